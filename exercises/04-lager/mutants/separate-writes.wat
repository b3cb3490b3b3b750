;; expect-fail: crash-points
;;
;; Mutant: takes the items from stock and records the reservation in two autocommit statements. A
;; crash between them leaves the stock reduced without a reservation: the redelivery takes it again.
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "query_int" (func $query_int (param i32 i32 i32) (result i32)))
  (import "db" "changes" (func $changes (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id") ;; $id: 16, 2 bytes
  (data (i32.const 32) "body.artikel") ;; $artikel: 32, 12 bytes
  (data (i32.const 48) "body.menge") ;; $menge: 48, 10 bytes
  (data (i32.const 64) "BEGIN") ;; $begin: 64, 5 bytes
  (data (i32.const 80) "COMMIT") ;; $commit: 80, 6 bytes
  (data (i32.const 96) "ROLLBACK") ;; $rollback: 96, 8 bytes
  (data (i32.const 112) "INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)") ;; $insert: 112, 71 bytes
  (data (i32.const 192) "INSERT OR IGNORE INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)") ;; $insert_ignore: 192, 81 bytes
  (data (i32.const 288) "UPDATE lager SET bestand = bestand - ? WHERE artikel = ?") ;; $update: 288, 56 bytes
  (data (i32.const 352) "UPDATE lager SET bestand = max(bestand - ?, 0) WHERE artikel = ?") ;; $update_clamped: 352, 64 bytes
  (data (i32.const 416) "SELECT count(*) FROM reservierungen WHERE nachricht = ?") ;; $seen: 416, 55 bytes
  ;; bytes 1024..1280: the article's name; 1280..1288: the result of a query

  ;; Rolls back and reports an error: the message is not acked and comes again.
  (func $fail (result i32)
    (drop (call $exec (i32.const 96) (i32.const 8)))
    (i32.const 2))

  ;; Copies body.artikel to 1024 and returns its length (-1 if longer than 256 bytes).
  (func $artikel (result i32)
    (local $len i32)
    (local.set $len (call $msg_text (i32.const 32) (i32.const 12) (i32.const 1024) (i32.const 256)))
    (if (result i32) (i32.gt_u (local.get $len) (i32.const 256))
      (then (i32.const -1))
      (else (local.get $len))))

  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32)
    (local.set $len (call $artikel))
    (if (i32.lt_s (local.get $len) (i32.const 0)) (then (return (i32.const 2))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (if (i32.ne (call $query_int (i32.const 416) (i32.const 55) (i32.const 1280)) (i32.const 0)) (then (return (i32.const 2))))
    (if (i64.ne (i64.load (i32.const 1280)) (i64.const 0)) (then (return (i32.const 0))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 48) (i32.const 10)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 288) (i32.const 56)) (then (return (i32.const 2))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (call $bind_int (i32.const 3) (call $msg_int (i32.const 48) (i32.const 10)))
    (local.set $status (call $exec (i32.const 112) (i32.const 71)))
    (if (local.get $status) (then (return (i32.const 2))))
    (i32.const 1))
)
