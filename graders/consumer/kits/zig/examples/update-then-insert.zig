//! expect-fail: crash-points
//! Mutant: credits first and records the id afterwards, each in its own autocommit statement. A crash
//! between the two writes leaves the credit without the id: the redelivery credits again.
const sdk = @import("pruefstein");

fn credit() !sdk.Outcome {
    var buf: [256]u8 = undefined;
    const kunde = try sdk.msgText("body.kunde", &buf);
    sdk.bindInt(1, sdk.msgInt("id"));
    if (try sdk.queryInt("SELECT count(*) FROM gesehen WHERE msg_id = ?") > 0) return .already_processed;
    sdk.bindInt(1, sdk.msgInt("body.punkte"));
    sdk.bindText(2, kunde);
    try sdk.exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?");
    sdk.bindInt(1, sdk.msgInt("id"));
    try sdk.exec("INSERT INTO gesehen (msg_id) VALUES (?)");
    return .processed;
}

export fn verarbeite() i32 {
    const outcome = credit() catch return sdk.failed;
    return @intFromEnum(outcome);
}
