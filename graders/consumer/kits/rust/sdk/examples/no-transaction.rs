//! expect-fail: crash-points
//! Mutant: the dedup row and the credit are two separate autocommit writes. A crash between them
//! leaves the id remembered but the points never credited: the redelivery is taken for a duplicate.
use pruefstein_sdk::{bind_int, bind_text, exec, msg_int, msg_text, DbError, Outcome, FAILED};

fn credit() -> Result<Outcome, DbError> {
    bind_int(1, msg_int("id"));
    match exec("INSERT INTO gesehen (msg_id) VALUES (?)") {
        Err(DbError::Duplicate) => return Ok(Outcome::AlreadyProcessed),
        other => other?,
    }
    bind_int(1, msg_int("body.punkte"));
    bind_text(2, &msg_text("body.kunde"));
    exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?")?;
    Ok(Outcome::Processed)
}

#[no_mangle]
pub extern "C" fn verarbeite() -> i32 {
    match credit() {
        Ok(outcome) => outcome as i32,
        Err(_) => FAILED,
    }
}
