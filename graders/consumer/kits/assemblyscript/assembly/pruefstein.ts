// pruefstein.ts: a small AssemblyScript SDK for consumer ABI v1 (graders/consumer/ABI.md).
//
// Strings in and out (UTF-8 on the wire), status codes as the enum `Status`, what `verarbeite`
// returns as the enum `Outcome`, and `transaction(body)`, which runs `body` between BEGIN and
// COMMIT and never leaves the transaction open. AssemblyScript cannot catch exceptions, so failures
// are status codes, not throws.

// ---- The host's functions, exactly as ABI v1 defines them ----------------------------------------

@external("msg", "int") declare function abiMsgInt(path: usize, pathLen: i32): i64;
@external("msg", "text") declare function abiMsgText(path: usize, pathLen: i32, buf: usize, cap: i32): i32;
@external("db", "bind_int") declare function abiBindInt(index: i32, value: i64): void;
@external("db", "bind_text") declare function abiBindText(index: i32, text: usize, len: i32): void;
@external("db", "exec") declare function abiExec(sql: usize, sqlLen: i32): i32;
@external("db", "query_int") declare function abiQueryInt(sql: usize, sqlLen: i32, out: usize): i32;
@external("db", "changes") declare function abiChanges(): i64;
@external("db", "last_error") declare function abiLastError(buf: usize, cap: i32): i32;
@external("env", "log") declare function abiLog(text: usize, len: i32): void;

/** Status codes of `exec` and `queryInt`. */
export enum Status {
  /** The statement succeeded. */
  Ok = 0,
  /** A UNIQUE or PRIMARY KEY constraint failed: the lesson's IntegrityError on the dedup table. */
  Duplicate = 1,
  /** Another constraint failed (CHECK, NOT NULL, FOREIGN KEY). */
  Constraint = 2,
  /** Anything else: a syntax error, a statement that is not allowed, a limit. */
  Error = 3,
  /** `queryInt` found no row. */
  NoRow = 4,
}

/** What `verarbeite` returns to the queue. */
export enum Outcome {
  /** Processed before, nothing done (the lesson's `return False`): the queue acks. */
  AlreadyProcessed = 0,
  /** Processed (`return True`): the queue acks. */
  Processed = 1,
  /** An error (the lesson's `raise`): the queue does not ack, the message comes again. */
  Failed = 2,
}

function utf8(s: string): ArrayBuffer {
  return String.UTF8.encode(s);
}

function ptr(buf: ArrayBuffer): usize {
  return changetype<usize>(buf);
}

/** Reads a text the host writes only if it fits: first into 256 bytes, then into its full length. */
function readText(fill: (buf: usize, cap: i32) => i32): string {
  let cap = 256;
  let buf = new ArrayBuffer(cap);
  let len = fill(ptr(buf), cap);
  if (len > cap) {
    cap = len;
    buf = new ArrayBuffer(cap);
    len = fill(ptr(buf), cap);
  }
  if (len < 0 || len > cap) return "";
  return String.UTF8.decodeUnsafe(ptr(buf), <usize>len);
}

// ---- The message being delivered ------------------------------------------------------------------

/** The integer at a dotted path such as "id" or "body.punkte". A missing path ends the instance. */
export function msgInt(path: string): i64 {
  const p = utf8(path);
  return abiMsgInt(ptr(p), p.byteLength);
}

let textPath = new ArrayBuffer(0);

/** The text at a dotted path such as "body.kunde" (a number comes as its digits). */
export function msgText(path: string): string {
  textPath = utf8(path);
  return readText((buf: usize, cap: i32): i32 => abiMsgText(ptr(textPath), textPath.byteLength, buf, cap));
}

// ---- The database: one statement per call ---------------------------------------------------------

/** Binds parameter `index` (from 1) of the next statement to an integer. */
export function bindInt(index: i32, value: i64): void {
  abiBindInt(index, value);
}

/** Binds parameter `index` (from 1) of the next statement to a text. */
export function bindText(index: i32, text: string): void {
  const t = utf8(text);
  abiBindText(index, ptr(t), t.byteLength);
}

/** Runs one SQL statement. */
export function exec(sql: string): Status {
  const s = utf8(sql);
  return <Status>abiExec(ptr(s), s.byteLength);
}

/** The result of `queryInt`: a status and, when it is `Status.Ok`, the value. */
export class QueryResult {
  constructor(public status: Status, public value: i64) {}
  get ok(): bool {
    return this.status == Status.Ok;
  }
}

/** Runs a query; the first column of its first row, or `Status.NoRow`. */
export function queryInt(sql: string): QueryResult {
  const s = utf8(sql);
  const out = new ArrayBuffer(8);
  const status = <Status>abiQueryInt(ptr(s), s.byteLength, ptr(out));
  return new QueryResult(status, status == Status.Ok ? load<i64>(ptr(out)) : 0);
}

/** Rows changed by the last successful statement. */
export function changes(): i64 {
  return abiChanges();
}

/** The last statement's error message (empty if it succeeded). */
export function lastError(): string {
  return readText((buf: usize, cap: i32): i32 => abiLastError(buf, cap));
}

/** Appends a line to the delivery's log (shown in the report's trace). */
export function log(text: string): void {
  const t = utf8(text);
  abiLog(ptr(t), t.byteLength);
}

// ---- Transactions -----------------------------------------------------------------------------------

export function begin(): Status {
  return exec("BEGIN");
}

export function commit(): Status {
  return exec("COMMIT");
}

export function rollback(): Status {
  return exec("ROLLBACK");
}

/**
 * Runs `body` in one transaction, like Python's `with con:`, and returns what `verarbeite` returns.
 * `Outcome.Processed` commits (a failed COMMIT rolls back and gives `Outcome.Failed`); anything else
 * rolls back and is returned unchanged.
 */
export function transaction(body: () => Outcome): i32 {
  if (begin() != Status.Ok) return Outcome.Failed;
  const outcome = body();
  if (outcome != Outcome.Processed) {
    rollback();
    return outcome;
  }
  if (commit() != Status.Ok) {
    rollback();
    return Outcome.Failed;
  }
  return Outcome.Processed;
}
