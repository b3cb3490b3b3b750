//! pruefstein.zig: a small Zig SDK for consumer ABI v1 (graders/consumer/ABI.md).
//!
//! Strings are slices; database failures are Zig errors (`error.Duplicate`, `error.Constraint`, ...)
//! so `try` and `catch |err| switch (err)` read like the lesson's `try: ... except IntegrityError:`.
//! `transaction` runs a function between BEGIN and COMMIT and turns its result into the ABI's return
//! value.

/// The host's functions, exactly as ABI v1 defines them.
const abi = struct {
    const msg = struct {
        extern "msg" fn @"int"(path: [*]const u8, path_len: i32) i64;
        extern "msg" fn text(path: [*]const u8, path_len: i32, buf: [*]u8, cap: i32) i32;
    };
    const db = struct {
        extern "db" fn bind_int(index: i32, value: i64) void;
        extern "db" fn bind_text(index: i32, text: [*]const u8, len: i32) void;
        extern "db" fn exec(sql: [*]const u8, sql_len: i32) i32;
        extern "db" fn query_int(sql: [*]const u8, sql_len: i32, out: *i64) i32;
        extern "db" fn changes() i64;
        extern "db" fn last_error(buf: [*]u8, cap: i32) i32;
    };
    const env = struct {
        extern "env" fn log(text: [*]const u8, len: i32) void;
    };
};

/// Status codes of `db.exec` and `db.query_int`.
pub const Status = enum(i32) {
    /// The statement succeeded.
    ok = 0,
    /// A UNIQUE or PRIMARY KEY constraint failed: the lesson's IntegrityError on the dedup table.
    duplicate = 1,
    /// Another constraint failed (CHECK, NOT NULL, FOREIGN KEY).
    constraint = 2,
    /// Anything else: a syntax error, a statement that is not allowed, a limit.
    sql_error = 3,
    /// `queryInt` found no row.
    no_row = 4,
    _,
};

/// A failed statement, one error per status code.
pub const DbError = error{ Duplicate, Constraint, Sql, NoRow };

/// A text that does not fit into the buffer given for it (nothing was written).
pub const TextError = error{TooLong};

/// What `verarbeite` returns to the queue (ABI v1).
pub const Outcome = enum(i32) {
    /// Processed before, nothing done (the lesson's `return False`): the queue acks.
    already_processed = 0,
    /// Processed (`return True`): the queue acks.
    processed = 1,
};

/// The return value for an error: the queue does not ack, the message comes again.
pub const failed: i32 = 2;

fn len(s: []const u8) i32 {
    return @intCast(s.len);
}

fn check(status: i32) DbError!void {
    return switch (@as(Status, @enumFromInt(status))) {
        .ok => {},
        .duplicate => error.Duplicate,
        .constraint => error.Constraint,
        .no_row => error.NoRow,
        else => error.Sql,
    };
}

/// The integer at a dotted path such as "id" or "body.punkte". A missing path ends the instance.
pub fn msgInt(path: []const u8) i64 {
    return abi.msg.@"int"(path.ptr, len(path));
}

/// The text at `path`, copied into `buf`; `error.TooLong` if it does not fit.
pub fn msgText(path: []const u8, buf: []u8) TextError![]u8 {
    const n = abi.msg.text(path.ptr, len(path), buf.ptr, len(buf));
    if (n < 0 or n > buf.len) return error.TooLong;
    return buf[0..@intCast(n)];
}

/// Binds parameter `index` (from 1) of the next statement to an integer.
pub fn bindInt(index: i32, value: i64) void {
    abi.db.bind_int(index, value);
}

/// Binds parameter `index` (from 1) of the next statement to a text.
pub fn bindText(index: i32, text: []const u8) void {
    abi.db.bind_text(index, text.ptr, len(text));
}

/// Runs one SQL statement; a failure is the matching `DbError`.
pub fn exec(sql: []const u8) DbError!void {
    return check(abi.db.exec(sql.ptr, len(sql)));
}

/// Runs one SQL statement and returns its status code without turning it into an error.
pub fn execStatus(sql: []const u8) Status {
    return @enumFromInt(abi.db.exec(sql.ptr, len(sql)));
}

/// The first column of the first row of a query; `error.NoRow` if there is none.
pub fn queryInt(sql: []const u8) DbError!i64 {
    var out: i64 = 0;
    try check(abi.db.query_int(sql.ptr, len(sql), &out));
    return out;
}

/// Rows changed by the last successful statement.
pub fn changes() i64 {
    return abi.db.changes();
}

/// The last statement's error message, copied into `buf`.
pub fn lastError(buf: []u8) TextError![]u8 {
    const n = abi.db.last_error(buf.ptr, len(buf));
    if (n < 0 or n > buf.len) return error.TooLong;
    return buf[0..@intCast(n)];
}

/// Appends a line to the delivery's log (shown in the report's trace).
pub fn log(text: []const u8) void {
    abi.env.log(text.ptr, len(text));
}

pub fn begin() DbError!void {
    return exec("BEGIN");
}
pub fn commit() DbError!void {
    return exec("COMMIT");
}
pub fn rollback() void {
    _ = execStatus("ROLLBACK");
}

/// Runs `body` in one transaction, like Python's `with con:`, and returns what `verarbeite` returns:
/// `.processed` commits; `.already_processed` rolls back; an error rolls back, is logged by name and
/// returns `failed`. The transaction is never left open.
pub fn transaction(comptime body: fn () anyerror!Outcome) i32 {
    begin() catch return failed;
    const outcome = body() catch |err| {
        rollback();
        log(@errorName(err));
        return failed;
    };
    switch (outcome) {
        .processed => {
            commit() catch {
                rollback();
                return failed;
            };
        },
        .already_processed => rollback(),
    }
    return @intFromEnum(outcome);
}
