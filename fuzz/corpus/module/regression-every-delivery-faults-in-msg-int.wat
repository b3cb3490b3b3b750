;; A correct variant: INSERT OR IGNORE into the dedup table, and db.changes() tells whether the id
;; was new. Both writes in one transaction.
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "changes" (func $changes (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id") ;; $id: 16, 2 bytes
  (data (i32.const 32) "bod1.punkte") ;; $punkte: 32, 11 bytes
  (data (i32.const 48) "body.kunde") ;; $kunde: 48, 10 bytes
  (data (i32.const 64) "BEGIN") ;; $begin: 64, 5 bytes
  (data (i32.const 80) "COMMIT") ;; $commit: 80, 6 bytes
  (data (i32.const 96) "ROLLBACK") ;; $rollback: 96, 8 bytes
  (data (i32.const 112) "INSERT INTO gesehen (msg_id) VALUES (?)") ;; $insert: 112, 39 bytes
  (data (i32.const 160) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?") ;; $update: 160, 51 bytes
  (data (i32.const 224) "INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)") ;; $insert_ignore: 224, 49 bytes
  ;; bytes 1024..1280: buffer for the customer's name

  (func (export "verarbeite") (result i32)
    (local $len i32)
    (drop (call $exec (i32.const 64) (i32.const 5)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (if (call $exec (i32.const 224) (i32.const 49))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (if (i64.eqz (call $changes)) ;; thePPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP id was there already: a duplicate
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
    (if (call $exec (i32.const 80) (i32.const 6))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (i32.const 1))
)
