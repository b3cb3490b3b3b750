;; expect-fail: crash-points
;; Mutant: commits the id in its own transaction before it credits the points (and deletes the id
;; again when the credit fails). Without a crash every delivery ends right; a crash after that first
;; COMMIT leaves the id remembered and the points never credited.
;; ===== SDK for consumer ABI v1 (graders/consumer/ABI.md): keep this part as it is =====
;; Imports with named parameters, status codes and return values as named constants, and the
;; transaction helper: the exported `verarbeite` runs your `$process` between BEGIN and COMMIT.
(module
  (import "msg" "int" (func $msg_int (param $path i32) (param $path_len i32) (result i64)))
  (import "msg" "text"
    (func $msg_text (param $path i32) (param $path_len i32) (param $buf i32) (param $cap i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param $index i32) (param $value i64)))
  (import "db" "bind_text" (func $bind_text (param $index i32) (param $text i32) (param $len i32)))
  (import "db" "exec" (func $exec (param $sql i32) (param $sql_len i32) (result i32)))
  (import "db" "query_int" (func $query_int (param $sql i32) (param $sql_len i32) (param $out i32) (result i32)))
  (import "db" "changes" (func $changes (result i64)))
  (import "db" "last_error" (func $last_error (param $buf i32) (param $cap i32) (result i32)))
  (import "env" "log" (func $log (param $text i32) (param $len i32)))
  (memory (export "memory") 1)

  ;; Status codes of $exec and $query_int.
  (global $OK i32 (i32.const 0))          ;; the statement succeeded
  (global $DUPLICATE i32 (i32.const 1))   ;; UNIQUE / PRIMARY KEY failed: the lesson's IntegrityError
  (global $CONSTRAINT i32 (i32.const 2))  ;; another constraint failed (CHECK, NOT NULL, FOREIGN KEY)
  (global $ERROR i32 (i32.const 3))       ;; anything else
  (global $NO_ROW i32 (i32.const 4))      ;; $query_int found no row
  ;; Return values of $process (and of verarbeite).
  (global $PROCESSED i32 (i32.const 1))          ;; done: COMMIT, the queue acks
  (global $ALREADY_PROCESSED i32 (i32.const 0))  ;; a duplicate: ROLLBACK, the queue acks
  (global $FAILED i32 (i32.const 2))             ;; an error: ROLLBACK, the message comes again

  ;; Bytes 0..255 belong to the SDK; put your strings at 256 and above.
  (data (i32.const 16) "BEGIN")       ;; 16, 5 bytes
  (data (i32.const 24) "COMMIT")      ;; 24, 6 bytes
  (data (i32.const 32) "ROLLBACK")    ;; 32, 8 bytes

  (func $begin (result i32) (call $exec (i32.const 16) (i32.const 5)))
  (func $commit (result i32) (call $exec (i32.const 24) (i32.const 6)))
  (func $rollback (result i32) (call $exec (i32.const 32) (i32.const 8)))

  ;; The transaction helper, like Python's `with con:`: BEGIN, then $process; COMMIT if it returned
  ;; $PROCESSED (a failed COMMIT rolls back and gives $FAILED), else ROLLBACK and pass its value on.
  (func (export "verarbeite") (result i32)
    (local $result i32)
    (if (call $begin) (then (return (global.get $FAILED))))
    (local.set $result (call $process))
    (if (i32.ne (local.get $result) (global.get $PROCESSED))
      (then
        (drop (call $rollback))
        (return (local.get $result))))
    (if (call $commit)
      (then
        (drop (call $rollback))
        (return (global.get $FAILED))))
    (global.get $PROCESSED))
  ;; ===== end of the SDK =====
  (data (i32.const 256) "id")                                                   ;; 256, 2
  (data (i32.const 272) "body.punkte")                                          ;; 272, 11
  (data (i32.const 288) "body.kunde")                                           ;; 288, 10
  (data (i32.const 304) "INSERT INTO gesehen (msg_id) VALUES (?)")              ;; 304, 39
  (data (i32.const 352) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?")  ;; 352, 51
  (data (i32.const 416) "DELETE FROM gesehen WHERE msg_id = ?")                 ;; 416, 36

  (func $process (result i32)
    (local $status i32) (local $len i32)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 256) (i32.const 2)))
    (local.set $status (call $exec (i32.const 304) (i32.const 39)))
    (if (i32.eq (local.get $status) (global.get $DUPLICATE)) (then (return (global.get $ALREADY_PROCESSED))))
    (if (i32.ne (local.get $status) (global.get $OK)) (then (return (global.get $FAILED))))
    ;; The mistake: make the id safe at once, then credit in a transaction of its own.
    (if (call $commit) (then (return (global.get $FAILED))))
    (if (call $begin) (then (return (global.get $FAILED))))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 272) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 288) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (if (i32.gt_u (local.get $len) (i32.const 256)) (then (return (global.get $FAILED))))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 352) (i32.const 51))
      (then
        ;; The credit failed: forget the id again (outside the transaction), so the message can
        ;; come back; then open a transaction again for the helper to roll back.
        (drop (call $rollback))
        (call $bind_int (i32.const 1) (call $msg_int (i32.const 256) (i32.const 2)))
        (drop (call $exec (i32.const 416) (i32.const 36)))
        (drop (call $begin))
        (return (global.get $FAILED))))
    (global.get $PROCESSED))
)
