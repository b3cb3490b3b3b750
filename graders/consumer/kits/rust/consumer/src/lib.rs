//! Your consumer for exercise 3 ("Idempotenten Konsumenten bauen"). Fill in `process`, then (with the
//! target installed: `rustup target add wasm32-unknown-unknown`)
//!     ./build.sh
//!     pruefstein grade exercises/03-idempotenter-konsument graders/consumer/kits/rust/build/consumer.wasm
//!
//! The message looks like {"id": 7, "body": {"kunde": "anna", "punkte": 50}};
//! the tables are in exercises/03-idempotenter-konsument/schema.sql.
#[allow(unused_imports)]
use pruefstein_sdk::{bind_int, bind_text, exec, log, msg_int, msg_text, transaction, DbError, Outcome};

/// Runs inside one transaction (see `verarbeite`): `Ok(Outcome::Processed)` commits, anything else
/// rolls back.
fn process() -> Result<Outcome, DbError> {
    // TODO 1: remember the message id in the dedup table `gesehen`:
    //     bind_int(1, msg_int("id"));
    //     match exec("INSERT INTO gesehen (msg_id) VALUES (?)") { ... }
    // TODO 2: Err(DbError::Duplicate) means: already processed -> Ok(Outcome::AlreadyProcessed);
    //         any other error -> return it (`?`): the transaction rolls back, the message comes again.
    // TODO 3: credit the points: bind_int(1, msg_int("body.punkte")); bind_text(2, &msg_text("body.kunde"));
    //         exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?")?;
    log("verarbeite is not written yet");
    Err(DbError::Sql)
}

#[no_mangle]
pub extern "C" fn verarbeite() -> i32 {
    transaction(process)
}
