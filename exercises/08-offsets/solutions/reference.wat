;; Exercise 8 in WAT: the committed offset (offset + 1, the next record to read) and the effect in
;; one transaction (solutions/reference.py in WAT).
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "changes" (func $changes (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "partition")                                                                                 ;; 16, 9
  (data (i32.const 32) "offset")                                                                                    ;; 32, 6
  (data (i32.const 48) "body.kunde")                                                                                ;; 48, 10
  (data (i32.const 64) "body.betrag")                                                                               ;; 64, 11
  (data (i32.const 80) "BEGIN")                                                                                     ;; 80, 5
  (data (i32.const 96) "COMMIT")                                                                                    ;; 96, 6
  (data (i32.const 112) "ROLLBACK")                                                                                  ;; 112, 8
  (data (i32.const 128) "UPDATE offsets SET naechster = ?1 + 1 WHERE gruppe = 'statistik' AND partition = ?2 AND naechster <= ?1") ;; 128, 103
  (data (i32.const 320) "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)")                 ;; 320, 73
  ;; bytes 1024..1280: the customer

  ;; ROLLBACK and report an error (the record is not processed and comes again)
  (func $fail (result i32)
    (drop (call $exec (i32.const 112) (i32.const 8)))
    (i32.const 2))

  (func (export "verarbeite") (result i32)
    (local $len i32)
    ;; with con:  -- one transaction for the offset and the effect
    (drop (call $exec (i32.const 80) (i32.const 5)))
    ;; move the offset on to offset + 1 unless it is past the record already
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 6)))
    (call $bind_int (i32.const 2) (call $msg_int (i32.const 16) (i32.const 9)))
    (if (call $exec (i32.const 128) (i32.const 103)) (then (return (call $fail))))
    ;; no row changed: read before (return False)
    (if (i64.eqz (call $changes))
      (then
        (drop (call $exec (i32.const 112) (i32.const 8)))
        (return (i32.const 0))))
    ;; the row in posten; betrag <= 0 fails the CHECK: roll back, the offset with it
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 9)))
    (call $bind_int (i32.const 2) (call $msg_int (i32.const 32) (i32.const 6)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 3) (i32.const 1024) (local.get $len))
    (call $bind_int (i32.const 4) (call $msg_int (i32.const 64) (i32.const 11)))
    (if (call $exec (i32.const 320) (i32.const 73)) (then (return (call $fail))))
    (if (call $exec (i32.const 96) (i32.const 6)) (then (return (call $fail))))
    (i32.const 1))
)
