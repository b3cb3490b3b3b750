;; expect-fail: at-least-once-schedule
;; The provider's status is dropped: "409, try again later" is taken for success, the fee is
;; committed and the message acknowledged, and the receipt of message 24 never goes out.
(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  ;; ABI v1.1: the exercise's mail provider (status 0 sent or replayed, 3 invalid, 5 key reused, 6 in flight)
  (import "world" "send_mail" (func $send_mail (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id")                                                              ;; 16, 2
  (data (i32.const 32) "body.betrag")                                                     ;; 32, 11
  (data (i32.const 48) "body.konto")                                                      ;; 48, 10
  (data (i32.const 64) "body.email")                                                      ;; 64, 10
  (data (i32.const 80) "BEGIN")                                                           ;; 80, 5
  (data (i32.const 96) "COMMIT")                                                          ;; 96, 6
  (data (i32.const 112) "ROLLBACK")                                                       ;; 112, 8
  (data (i32.const 128) "INSERT INTO erledigt (msg_id) VALUES (?)")                       ;; 128, 40
  (data (i32.const 192) "UPDATE konten SET saldo = saldo - ? WHERE konto = ?")            ;; 192, 51
  (data (i32.const 256) "Monatsgebühr abgebucht.")                                        ;; 256, 24
  ;; bytes 1024..1280: the account; 2048..2112: the key; 2304..2560: the recipient

  ;; mail.send_mail(key=<the message's id>, to=msg["body"]["email"], body=...); its status
  (func $mail (result i32)
    (local $key i32) (local $to i32)
    (local.set $key (call $msg_text (i32.const 16) (i32.const 2) (i32.const 2048) (i32.const 64)))
    (local.set $to (call $msg_text (i32.const 64) (i32.const 10) (i32.const 2304) (i32.const 256)))
    (call $send_mail (i32.const 2048) (local.get $key) (i32.const 2304) (local.get $to) (i32.const 256) (i32.const 24)))

  ;; ROLLBACK and report an error (the message is not acked and comes again)
  (func $fail (result i32)
    (drop (call $exec (i32.const 112) (i32.const 8)))
    (i32.const 2))

  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32)
    ;; with con:  -- one transaction for the remembered id and the debit
    (drop (call $exec (i32.const 80) (i32.const 5)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 128) (i32.const 40)))
    ;; except IntegrityError: return False  -- booked before: no booking, no mail
    (if (i32.eq (local.get $status) (i32.const 1))
      (then
        (drop (call $exec (i32.const 112) (i32.const 8)))
        (return (i32.const 0))))
    (if (local.get $status) (then (return (call $fail))))
    ;; the debit; below zero the CHECK fails: roll back, the id too, no mail
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (if (call $exec (i32.const 192) (i32.const 51)) (then (return (call $fail))))
    ;; the confirmation inside the transaction, before the COMMIT, keyed by the message id: a crash
    ;; after it rolls the booking back, and the redelivery's call is replayed by the provider
    ;; whatever the provider answers: go on
    (drop (call $mail))
    (if (call $exec (i32.const 96) (i32.const 6)) (then (return (call $fail))))
    (i32.const 1))
)
