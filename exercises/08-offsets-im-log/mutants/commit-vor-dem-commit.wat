;; expect-fail: crash-points
;; The offset is committed to the log before the COMMIT of the transaction that counts the record:
;; a crash between `commit_offset` and the COMMIT rolls the count back, while the log already
;; stands past the record and never delivers it again.
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "changes" (func $changes (result i64)))
  (import "world" "commit_offset" (func $commit_offset (param i64 i64) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "partition")                                                                 ;; 16, 9
  (data (i32.const 32) "offset")                                                                    ;; 32, 6
  (data (i32.const 48) "body.kunde")                                                                ;; 48, 10
  (data (i32.const 64) "body.betrag")                                                               ;; 64, 11
  (data (i32.const 80) "BEGIN")                                                                     ;; 80, 5
  (data (i32.const 96) "COMMIT")                                                                    ;; 96, 6
  (data (i32.const 112) "ROLLBACK")                                                                 ;; 112, 8
  (data (i32.const 128) "INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)")      ;; 128, 67
  (data (i32.const 320) "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)") ;; 320, 73
  ;; bytes 1024..1280: the customer

  ;; ROLLBACK and report an error (the record is not processed and comes again)
  (func $fail (result i32)
    (drop (call $exec (i32.const 112) (i32.const 8)))
    (i32.const 2))

  ;; log.commit_offset(partition, offset + 1): after the COMMIT, a call to the log
  (func $commit
    (drop (call $commit_offset
      (call $msg_int (i32.const 16) (i32.const 9))
      (i64.add (call $msg_int (i32.const 32) (i32.const 6)) (i64.const 1)))))

  (func (export "verarbeite") (result i32)
    (local $len i32)
    (drop (call $exec (i32.const 80) (i32.const 5)))
    ;; remember the record; no row inserted: counted before (the log delivered it again)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 9)))
    (call $bind_int (i32.const 2) (call $msg_int (i32.const 32) (i32.const 6)))
    (if (call $exec (i32.const 128) (i32.const 67)) (then (return (call $fail))))
    (if (i64.eqz (call $changes))
      (then
        (drop (call $exec (i32.const 112) (i32.const 8)))
        (call $commit)
        (return (i32.const 0))))
    ;; the row in posten; betrag <= 0 fails the CHECK: roll back, no offset committed
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 9)))
    (call $bind_int (i32.const 2) (call $msg_int (i32.const 32) (i32.const 6)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 3) (i32.const 1024) (local.get $len))
    (call $bind_int (i32.const 4) (call $msg_int (i32.const 64) (i32.const 11)))
    (if (call $exec (i32.const 320) (i32.const 73)) (then (return (call $fail))))
    (call $commit)
    (if (call $exec (i32.const 96) (i32.const 6)) (then (return (call $fail))))
    (i32.const 1))
)
