;; expect-fail: invariant jede-buchung-veroeffentlicht
;; The relay marks an event sent before it publishes it: a crash between the marking and `publish`
;; loses the event, the restarted relay finds nothing to send.
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "query_int" (func $query_int (param i32 i32 i32) (result i32)))
  (import "world" "publish" (func $publish (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; The strings, each at an offset with its length in bytes.
  (data (i32.const 16) "id")                                                                    ;; id: 16, 2
  (data (i32.const 32) "body.betrag")                                                           ;; betrag: 32, 11
  (data (i32.const 48) "body.konto")                                                            ;; konto: 48, 10
  (data (i32.const 64) "BEGIN")                                                                 ;; begin: 64, 5
  (data (i32.const 80) "COMMIT")                                                                ;; commit: 80, 6
  (data (i32.const 96) "ROLLBACK")                                                              ;; rollback: 96, 8
  (data (i32.const 112) "INSERT INTO erledigt (msg_id) VALUES (?)")                              ;; ins_erledigt: 112, 40
  (data (i32.const 160) "UPDATE konten SET saldo = saldo - ? WHERE konto = ?")                   ;; upd_konto: 160, 51
  (data (i32.const 224) "INSERT INTO outbox (ereignis, konto, betrag) VALUES (?, ?, ?)")         ;; ins_outbox: 224, 61
  (data (i32.const 288) "SELECT nr FROM outbox WHERE gesendet = 0 ORDER BY nr LIMIT 1")          ;; next: 288, 60
  (data (i32.const 352) "SELECT ereignis FROM outbox WHERE nr = ?")                              ;; sel_ereignis: 352, 40
  (data (i32.const 400) "SELECT konto FROM outbox WHERE nr = ?")                                 ;; sel_konto: 400, 37
  (data (i32.const 448) "SELECT betrag FROM outbox WHERE nr = ?")                                ;; sel_betrag: 448, 38
  (data (i32.const 496) "UPDATE outbox SET gesendet = 1 WHERE nr = ?")                           ;; mark: 496, 43
  (data (i32.const 544) "abbuchungen")                                                           ;; topic: 544, 11
  (data (i32.const 560) "{\"ereignis\":")                                                        ;; p_ereignis: 560, 12
  (data (i32.const 576) ",\"konto\":")                                                           ;; p_konto: 576, 9
  (data (i32.const 592) ",\"betrag\":")                                                          ;; p_betrag: 592, 10
  (data (i32.const 608) "}")                                                                     ;; p_end: 608, 1
  ;; 2048: an i64 a query writes; 3072: the key; 3200: the payload

  ;; Undoes the open transaction and reports an error (the message is not acked).
  (func $fail (result i32)
    (drop (call $exec (i32.const 96) (i32.const 8)))
    (i32.const 2))

  (func (export "verarbeite") (result i32)
    (local $status i32)
    (drop (call $exec (i32.const 64) (i32.const 5)))
    ;; INSERT INTO erledigt: a duplicate id is the lesson's IntegrityError: return 0
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 40)))
    (if (i32.eq (local.get $status) (i32.const 1))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 0))))
    (if (local.get $status) (then (return (call $fail))))
    ;; the debit: below zero the CHECK fails, and everything is rolled back, the event too
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (call $bind_int (i32.const 2) (call $msg_int (i32.const 48) (i32.const 10)))
    (if (call $exec (i32.const 160) (i32.const 51)) (then (return (call $fail))))
    ;; the event into the outbox, in the same transaction
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (call $bind_int (i32.const 2) (call $msg_int (i32.const 48) (i32.const 10)))
    (call $bind_int (i32.const 3) (call $msg_int (i32.const 32) (i32.const 11)))
    (if (call $exec (i32.const 224) (i32.const 61)) (then (return (call $fail))))
    (if (call $exec (i32.const 80) (i32.const 6)) (then (return (call $fail))))
    (i32.const 1))

  ;; Writes `value` in decimal at `at`; returns the address after it.
  (func $decimal (param $value i64) (param $at i32) (result i32)
    (local $digits i32) (local $rest i64) (local $end i32)
    (if (i64.lt_s (local.get $value) (i64.const 0))
      (then
        (i32.store8 (local.get $at) (i32.const 45))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (local.set $value (i64.sub (i64.const 0) (local.get $value)))))
    (local.set $digits (i32.const 1))
    (local.set $rest (i64.div_u (local.get $value) (i64.const 10)))
    (block $counted
      (loop $count
        (br_if $counted (i64.eqz (local.get $rest)))
        (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
        (local.set $rest (i64.div_u (local.get $rest) (i64.const 10)))
        (br $count)))
    (local.set $end (i32.add (local.get $at) (local.get $digits)))
    (local.set $at (local.get $end))
    (loop $write
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at)
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $value) (i64.const 10)))))
      (local.set $value (i64.div_u (local.get $value) (i64.const 10)))
      (br_if $write (i64.ne (local.get $value) (i64.const 0))))
    (local.get $end))

  ;; Copies `len` bytes from `from` to `at`; returns the address after them.
  (func $append (param $at i32) (param $from i32) (param $len i32) (result i32)
    (memory.copy (local.get $at) (local.get $from) (local.get $len))
    (i32.add (local.get $at) (local.get $len)))

  ;; One column of the outbox row `nr`, by the query at `sql`.
  (func $column (param $sql i32) (param $len i32) (param $nr i64) (result i64)
    (call $bind_int (i32.const 1) (local.get $nr))
    (drop (call $query_int (local.get $sql) (local.get $len) (i32.const 2048)))
    (i64.load (i32.const 2048)))

  ;; The relay: while there is an unsent event, publish it and mark it sent.
  (func (export "weiterleiten") (result i32)
    (local $status i32) (local $nr i64) (local $ereignis i64) (local $at i32)
    (local $key_len i32) (local $payload_len i32)
    (loop $next
      (local.set $status (call $query_int (i32.const 288) (i32.const 60) (i32.const 2048)))
      ;; status 4: no row, nothing left to send
      (if (i32.eq (local.get $status) (i32.const 4)) (then (return (i32.const 1))))
      (if (local.get $status) (then (return (i32.const 2))))
      (local.set $nr (i64.load (i32.const 2048)))
      (local.set $ereignis (call $column (i32.const 352) (i32.const 40) (local.get $nr)))
      ;; the key: the event id in decimal
      (local.set $key_len (i32.sub (call $decimal (local.get $ereignis) (i32.const 3072)) (i32.const 3072)))
      ;; the payload: {"ereignis":7,"konto":1001,"betrag":30}
      (local.set $at (call $append (i32.const 3200) (i32.const 560) (i32.const 12)))
      (local.set $at (call $decimal (local.get $ereignis) (local.get $at)))
      (local.set $at (call $append (local.get $at) (i32.const 576) (i32.const 9)))
      (local.set $at (call $decimal (call $column (i32.const 400) (i32.const 37) (local.get $nr)) (local.get $at)))
      (local.set $at (call $append (local.get $at) (i32.const 592) (i32.const 10)))
      (local.set $at (call $decimal (call $column (i32.const 448) (i32.const 38) (local.get $nr)) (local.get $at)))
      (local.set $at (call $append (local.get $at) (i32.const 608) (i32.const 1)))
      (local.set $payload_len (i32.sub (local.get $at) (i32.const 3200)))
      ;; marked sent first (autocommit: durable at once), published after: the mistake
      (call $bind_int (i32.const 1) (local.get $nr))
      (if (call $exec (i32.const 496) (i32.const 43)) (then (return (i32.const 2))))
      ;; publish(topic "abbuchungen", key = the event id, payload): a crash after it and before
      ;; the marking publishes the event again after the restart, under the same key
      (if (call $publish (i32.const 544) (i32.const 11) (i32.const 3072) (local.get $key_len) (i32.const 3200) (local.get $payload_len))
        (then (return (i32.const 2))))
      (br $next))
    (i32.const 1))
)
