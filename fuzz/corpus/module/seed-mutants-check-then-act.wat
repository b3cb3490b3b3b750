;; expect-fail: concurrent-duplicate
;;
;; Mutant: check-then-act. It asks "seen already?" with a SELECT outside the transaction, then
;; credits and remembers the id in one transaction, with INSERT OR IGNORE so that it never sees a
;; duplicate key. One consumer at a time, it is correct, and a crash at any write leaves all or
;; nothing. But when the visibility timeout expires while it works, a second process asks the same
;; question before the first has remembered the id: both credit.
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "query_int" (func $query_int (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id") ;; $id: 16, 2 bytes
  (data (i32.const 32) "body.punkte") ;; $punkte: 32, 11 bytes
  (data (i32.const 48) "body.kunde") ;; $kunde: 48, 10 bytes
  (data (i32.const 64) "BEGIN") ;; $begin: 64, 5 bytes
  (data (i32.const 80) "COMMIT") ;; $commit: 80, 6 bytes
  (data (i32.const 96) "ROLLBACK") ;; $rollback: 96, 8 bytes
  (data (i32.const 112) "INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)") ;; $insert: 112, 49 bytes
  (data (i32.const 176) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?") ;; $update: 176, 51 bytes
  (data (i32.const 240) "SELECT count(*) FROM gesehen WHERE msg_id = ?") ;; $select: 240, 45 bytes
  ;; bytes 512..520: the count; bytes 1024..1280: buffer for the customer's name

  (func (export "verarbeite") (result i32)
    (local $len i32)
    ;; check ...
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (if (call $query_int (i32.const 240) (i32.const 45) (i32.const 512))
      (then (return (i32.const 2))))
    (if (i64.ne (i64.load (i32.const 512)) (i64.const 0))
      (then (return (i32.const 0))))
    ;; ... then act
    (drop (call $exec (i32.const 64) (i32.const 5)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 176) (i32.const 51))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (if (call $exec (i32.const 112) (i32.const 49))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (if (call $exec (i32.const 80) (i32.const 6))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (i32.const 1))
)
