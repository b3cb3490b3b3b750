;; expect-fail: crash-points
;;
;; Mutant: remembers the id in a transaction of its own (BEGIN; INSERT INTO gesehen; COMMIT) and then
;; credits the points in a second statement (autocommit). When the credit fails it deletes the id
;; again, so without a crash every delivery ends right, the violation message included. But if the
;; process dies after the COMMIT and before the credit, the id is remembered, the redelivery is
;; taken for a duplicate and the credit never happens: "Merkst du zuerst und die Buchung scheitert,
;; ist die Nachricht für immer erledigt, aber nie ausgeführt." Only a crash right after the COMMIT
;; shows it.
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
  (data (i32.const 224) "DELETE FROM gesehen WHERE msg_id = ?") ;; $forget: 224, 36 bytes
  (data (i32.const 272) "SELECT stand + ? <= 1000 FROM punkte WHERE kunde = ?") ;; $fits: 272, 52 bytes
  ;; bytes 512..520: a query result; bytes 1024..1280: buffer for the customer's name

  ;; Remembers the id in its own transaction: BEGIN, INSERT, COMMIT. Returns 1 when the id is new
  ;; and now committed, 0 for a duplicate, 2 for another error (each transaction closed).
  (func $remember (result i32)
    (local $status i32)
    (drop (call $exec (i32.const 64) (i32.const 5)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 39)))
    (if (local.get $status)
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (select (i32.const 0) (i32.const 2) (i32.eq (local.get $status) (i32.const 1))))))
    (if (call $exec (i32.const 80) (i32.const 6))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (i32.const 1))

  ;; Binds ?1 = body.punkte, ?2 = body.kunde (copied into the buffer at 1024).
  (func $bind_credit
    (local $len i32)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len)))

  ;; Forgets the id again (a statement of its own, autocommit).
  (func $forget
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (drop (call $exec (i32.const 224) (i32.const 36))))

  (func (export "verarbeite") (result i32)
    (local $remembered i32)
    (local.set $remembered (call $remember))
    (if (i32.ne (local.get $remembered) (i32.const 1)) (then (return (local.get $remembered))))
    (call $bind_credit)
    (if (call $exec (i32.const 160) (i32.const 51))
      (then
        (call $forget)
        (return (i32.const 2))))
    (i32.const 1))
)
