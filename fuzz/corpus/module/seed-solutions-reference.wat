;; Reference solution of exercise 3, equivalent to the lesson's Python:
;;
;;     with con:
;;         try:
;;             con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
;;         except sqlite3.IntegrityError:
;;             return False
;;         con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?", ...)
;;         return True
;;
;; Returns 1 (processed), 0 (duplicate) or 2 (the credit failed: the error is passed on).
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id") ;; $id: 16, 2 bytes
  (data (i32.const 32) "body.punkte") ;; $punkte: 32, 11 bytes
  (data (i32.const 48) "body.kunde") ;; $kunde: 48, 10 bytes
  (data (i32.const 64) "BEGIN") ;; $begin: 64, 5 bytes
  (data (i32.const 80) "COMMIT") ;; $commit: 80, 6 bytes
  (data (i32.const 96) "ROLLBACK") ;; $rollback: 96, 8 bytes
  (data (i32.const 112) "INSERT INTO gesehen (msg_id) VALUES (?)") ;; $insert: 112, 39 bytes
  (data (i32.const 160) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?") ;; $update: 160, 51 bytes
  ;; bytes 1024..1280: buffer for the customer's name

  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32)
    (drop (call $exec (i32.const 64) (i32.const 5)))
    ;; Remember the id first: the PRIMARY KEY makes the duplicate check atomic.
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 39)))
    (if (i32.eq (local.get $status) (i32.const 1)) ;; duplicate key: already processed
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 0))))
    (if (local.get $status)
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
      ;; ?1 = body.punkte, ?2 = body.kunde (copied into the buffer at 1024)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (local.set $status (call $exec (i32.const 160) (i32.const 51)))
    (if (local.get $status) ;; e.g. CHECK (stand <= 1000): undo the INSERT too, pass the error on
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (if (call $exec (i32.const 80) (i32.const 6))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (i32.const 1))
)
