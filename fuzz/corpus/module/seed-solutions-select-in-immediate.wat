;; A correct variant: look the id up with a SELECT inside BEGIN IMMEDIATE (which takes the write
;; lock at once, so no second consumer can slip in between the check and the write), then credit,
;; then remember the id, and commit.
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
  (data (i32.const 112) "INSERT INTO gesehen (msg_id) VALUES (?)") ;; $insert: 112, 39 bytes
  (data (i32.const 160) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?") ;; $update: 160, 51 bytes
  (data (i32.const 224) "BEGIN IMMEDIATE") ;; $begin_immediate: 224, 15 bytes
  (data (i32.const 240) "SELECT count(*) FROM gesehen WHERE msg_id = ?") ;; $select: 240, 45 bytes
  ;; bytes 1024..1280: buffer for the customer's name

  (func (export "verarbeite") (result i32)
    (local $len i32)
    (drop (call $exec (i32.const 224) (i32.const 15)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    ;; count(*) goes to the 8 bytes at 512
    (if (call $query_int (i32.const 240) (i32.const 45) (i32.const 512))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (if (i64.ne (i64.load (i32.const 512)) (i64.const 0))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 0))))
      ;; ?1 = body.punkte, ?2 = body.kunde (copied into the buffer at 1024)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 160) (i32.const 51))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (if (call $exec (i32.const 112) (i32.const 39))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (if (call $exec (i32.const 80) (i32.const 6))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (i32.const 1))
)
