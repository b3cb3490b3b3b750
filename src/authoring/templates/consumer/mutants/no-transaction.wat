;; expect-fail: crash-points
;;
;; A mutant: a wrong solution that must fail the check declared above (`pruefstein check` proves it).
;; This one writes the id and the credit as two autocommit statements: a crash between them leaves the
;; id remembered and the credit lost, and the redelivery is taken for a duplicate.
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
  (data (i32.const 112) "INSERT INTO verarbeitet (msg_id) VALUES (?)")          ;; 112, 43
  (data (i32.const 160) "UPDATE konten SET saldo = saldo + ? WHERE konto = ?")  ;; 160, 51

  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 43)))
    (if (i32.eq (local.get $status) (i32.const 1)) (then (return (i32.const 0))))
    (if (local.get $status) (then (return (i32.const 2))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 160) (i32.const 51)) (then (return (i32.const 2))))
    (i32.const 1))
)
