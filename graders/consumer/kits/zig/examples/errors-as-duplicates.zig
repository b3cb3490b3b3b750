//! expect-fail: constraint-violation
//! Mutant: treats every failed statement as "already processed". When the credit breaks
//! `CHECK (stand <= 1000)`, it returns 0 and the queue acks a message whose effect never happened.
const sdk = @import("pruefstein");

fn credit() !sdk.Outcome {
    sdk.bindInt(1, sdk.msgInt("id"));
    sdk.exec("INSERT INTO gesehen (msg_id) VALUES (?)") catch return .already_processed;
    var buf: [256]u8 = undefined;
    const kunde = try sdk.msgText("body.kunde", &buf);
    sdk.bindInt(1, sdk.msgInt("body.punkte"));
    sdk.bindText(2, kunde);
    sdk.exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?") catch return .already_processed;
    return .processed;
}

export fn verarbeite() i32 {
    return sdk.transaction(credit);
}
