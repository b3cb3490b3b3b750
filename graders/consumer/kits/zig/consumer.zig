//! Your consumer for exercise 3 ("Idempotenten Konsumenten bauen"). Fill in `process`, then
//!     ./build.sh
//!     pruefstein grade exercises/03-idempotenter-konsument graders/consumer/kits/zig/build/consumer.wasm
//!
//! The message looks like {"id": 7, "body": {"kunde": "anna", "punkte": 50}};
//! the tables are in exercises/03-idempotenter-konsument/schema.sql.
const sdk = @import("pruefstein");

/// Runs inside one transaction (see `verarbeite`): `.processed` commits, anything else rolls back.
fn process() !sdk.Outcome {
    // TODO 1: remember the message id in the dedup table `gesehen`:
    //     sdk.bindInt(1, sdk.msgInt("id"));
    //     sdk.exec("INSERT INTO gesehen (msg_id) VALUES (?)") catch |err| switch (err) { ... };
    // TODO 2: error.Duplicate means: already processed -> return .already_processed;
    //         any other error -> return it (the transaction rolls back, the message comes again).
    // TODO 3: credit the points: sdk.msgText("body.kunde", &buf) and sdk.msgInt("body.punkte"),
    //         bind them and `try sdk.exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?")`.
    sdk.log("verarbeite is not written yet");
    return error.NotWrittenYet;
}

export fn verarbeite() i32 {
    return sdk.transaction(process);
}
