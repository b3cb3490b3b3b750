//! A correct consumer for exercise 3: the dedup row and the credit commit in one transaction.
const sdk = @import("pruefstein");

fn credit() !sdk.Outcome {
    sdk.bindInt(1, sdk.msgInt("id"));
    sdk.exec("INSERT INTO gesehen (msg_id) VALUES (?)") catch |err| switch (err) {
        error.Duplicate => return .already_processed,
        else => return err,
    };
    var buf: [256]u8 = undefined;
    const kunde = try sdk.msgText("body.kunde", &buf);
    sdk.bindInt(1, sdk.msgInt("body.punkte"));
    sdk.bindText(2, kunde);
    try sdk.exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?");
    return .processed;
}

export fn verarbeite() i32 {
    return sdk.transaction(credit);
}
