//! expect-fail: constraint-violation
//! Mutant: ignores a failed credit (`let _ =`), so the dedup row commits alone and the queue acks a
//! message whose effect never happened.
use pruefstein_sdk::{bind_int, bind_text, exec, msg_int, msg_text, transaction, DbError, Outcome};

fn credit() -> Result<Outcome, DbError> {
    bind_int(1, msg_int("id"));
    match exec("INSERT INTO gesehen (msg_id) VALUES (?)") {
        Err(DbError::Duplicate) => return Ok(Outcome::AlreadyProcessed),
        other => other?,
    }
    bind_int(1, msg_int("body.punkte"));
    bind_text(2, &msg_text("body.kunde"));
    let _ = exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?");
    Ok(Outcome::Processed)
}

#[no_mangle]
pub extern "C" fn verarbeite() -> i32 {
    transaction(credit)
}
