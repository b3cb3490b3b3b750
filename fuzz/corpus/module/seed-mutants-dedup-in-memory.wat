;; expect-fail: duplicate-after-restart
;;
;; Mutant: the lesson's in-memory Set. It remembers the last ids in the module's memory (a ring of
;; 16 slots at 512). A duplicate at the same instance is caught; after a restart the memory is
;; empty and the duplicate credits again.
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

  (global $next (mut i32) (i32.const 0))
  (func $seen (param $id i64) (result i32)
    (local $i i32)
    (block $done
      (loop $scan
        (br_if $done (i32.ge_u (local.get $i) (i32.const 16)))
        (if (i64.eq (i64.load (i32.add (i32.const 512) (i32.shl (local.get $i) (i32.const 3)))) (local.get $id))
          (then (return (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $scan)))
    (i32.const 0))
  (func (export "verarbeite") (result i32)
    (local $len i32) (local $id i64)
    (local.set $id (call $msg_int (i32.const 16) (i32.const 2)))
    (if (call $seen (local.get $id)) (then (return (i32.const 0))))
    (drop (call $exec (i32.const 64) (i32.const 5)))
      ;; ?1 = body.punkte, ?2 = body.kunde (copied into the buffer at 1024)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 160) (i32.const 51))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (drop (call $exec (i32.const 80) (i32.const 6)))
    (i64.store (i32.add (i32.const 512) (i32.shl (global.get $next) (i32.const 3))) (local.get $id))
    (global.set $next (i32.and (i32.add (global.get $next) (i32.const 1)) (i32.const 15)))
    (i32.const 1))
)
