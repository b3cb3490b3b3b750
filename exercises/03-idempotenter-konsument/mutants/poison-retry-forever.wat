;; expect-fail: at-least-once-schedule
;;
;; Mutant: the first time a credit fails it rolls back and reports the error, but when the same
;; message fails again on this instance it retries the credit inside the delivery, again and again,
;; instead of letting the queue's receive limit move the poison message to the dead-letter list. The
;; retries never end (the statement limit stops them).
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

  ;; A small memory of ids whose credit failed on this instance: 16 slots at 512.
  (global $next (mut i32) (i32.const 0))
  (func $failed_before (param $id i64) (result i32)
    (local $i i32)
    (block $done
      (loop $scan
        (br_if $done (i32.ge_u (local.get $i) (i32.const 16)))
        (if (i64.eq (i64.load (i32.add (i32.const 512) (i32.shl (local.get $i) (i32.const 3)))) (local.get $id))
          (then (return (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $scan)))
    (i32.const 0))
  (func $remember_failure (param $id i64)
    (i64.store (i32.add (i32.const 512) (i32.shl (global.get $next) (i32.const 3))) (local.get $id))
    (global.set $next (i32.and (i32.add (global.get $next) (i32.const 1)) (i32.const 15))))

  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32) (local $retry i32)
    (local.set $retry (call $failed_before (call $msg_int (i32.const 16) (i32.const 2))))
    (loop $again
      (drop (call $exec (i32.const 64) (i32.const 5)))
      (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
      (local.set $status (call $exec (i32.const 112) (i32.const 39)))
      (if (i32.eq (local.get $status) (i32.const 1))
        (then
          (drop (call $exec (i32.const 96) (i32.const 8)))
          (return (i32.const 0))))
      (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
      (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
      (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
      (if (call $exec (i32.const 160) (i32.const 51))
        (then
          (drop (call $exec (i32.const 96) (i32.const 8)))
          (br_if $again (local.get $retry)) ;; "it will work next time"
          (call $remember_failure (call $msg_int (i32.const 16) (i32.const 2)))
          (return (i32.const 2)))))
    (drop (call $exec (i32.const 80) (i32.const 6)))
    (i32.const 1))
)
