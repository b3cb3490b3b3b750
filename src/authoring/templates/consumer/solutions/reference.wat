;; The reference solution: the oracle whose fault-free states are the expected ones.
;; One transaction: remember the id (a duplicate key means "already processed"), then credit.
;; Returns 1 (processed), 0 (duplicate) or 2 (an error: the credit failed, nothing changed).
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id")                                                    ;; 16, 2
  (data (i32.const 32) "body.betrag")                                           ;; 32, 11
  (data (i32.const 48) "body.konto")                                            ;; 48, 10
  (data (i32.const 64) "BEGIN")                                                 ;; 64, 5
  (data (i32.const 80) "COMMIT")                                                ;; 80, 6
  (data (i32.const 96) "ROLLBACK")                                              ;; 96, 8
  (data (i32.const 112) "INSERT INTO verarbeitet (msg_id) VALUES (?)")          ;; 112, 43
  (data (i32.const 160) "UPDATE konten SET saldo = saldo + ? WHERE konto = ?")  ;; 160, 51
  ;; bytes 1024..1280: a buffer for the account's name

  (func $fail (result i32)
    (drop (call $exec (i32.const 96) (i32.const 8)))
    (i32.const 2))

  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32)
    (if (call $exec (i32.const 64) (i32.const 5)) (then (return (i32.const 2))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 43)))
    (if (i32.eq (local.get $status) (i32.const 1)) ;; duplicate key: already processed
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 0))))
    (if (local.get $status) (then (return (call $fail))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (if (i32.gt_u (local.get $len) (i32.const 256)) (then (return (call $fail))))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 160) (i32.const 51)) (then (return (call $fail))))
    (if (call $exec (i32.const 80) (i32.const 6)) (then (return (call $fail))))
    (i32.const 1))
)
