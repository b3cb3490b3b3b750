// The node:sqlite module of Prüfstein's JavaScript guest: the part of Node's DatabaseSync a
// consumer uses, over ABI v1's db.* imports (exec, queryInt, bindInt, bindText, changes,
// lastError on the object the glue leaves in globalThis.__pf, taken away here before a student's
// module runs; statementLine tells the host the line of consumer.js that issues the next one).
// A statement runs in one call of the glue's C (`statement`, the fast path) when its parameters
// are bound as they are; `slowStep` below is the same in JavaScript for every other one.
// Autocommit as in Node: a statement outside BEGIN … COMMIT commits by itself;
// db.transaction(fn) wraps fn in one (as better-sqlite3 does). A failed statement throws a
// SqliteError whose `code` names SQLite's extended result code (better-sqlite3's
// "SQLITE_CONSTRAINT_PRIMARYKEY") and which carries `errcode` and `errstr` (node:sqlite's).
// Rows: the first column of the first row, as a number (what ABI v1 returns), named as SQLite
// names the column.

const host = globalThis.__pf;
delete globalThis.__pf;

const OK = 0;
const NO_ROW = 4;

// SQLite's result codes by number: the primary ones and the extended ones a consumer meets.
const CODE_NAMES = {
    1: "SQLITE_ERROR", 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 9: "SQLITE_INTERRUPT",
    13: "SQLITE_FULL", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
    21: "SQLITE_MISUSE", 23: "SQLITE_AUTH", 25: "SQLITE_RANGE",
    261: "SQLITE_BUSY_RECOVERY", 262: "SQLITE_LOCKED_SHAREDCACHE", 517: "SQLITE_BUSY_SNAPSHOT",
    275: "SQLITE_CONSTRAINT_CHECK", 531: "SQLITE_CONSTRAINT_COMMITHOOK",
    787: "SQLITE_CONSTRAINT_FOREIGNKEY", 1043: "SQLITE_CONSTRAINT_FUNCTION",
    1299: "SQLITE_CONSTRAINT_NOTNULL", 1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
    1811: "SQLITE_CONSTRAINT_TRIGGER", 2067: "SQLITE_CONSTRAINT_UNIQUE",
    2323: "SQLITE_CONSTRAINT_VTAB", 2579: "SQLITE_CONSTRAINT_ROWID",
};
// sqlite3_errstr of the primary codes.
const CODE_TEXTS = {
    1: "SQL logic error", 5: "database is locked", 6: "database table is locked", 7: "out of memory",
    9: "interrupted", 13: "database or disk is full", 18: "string or blob too big",
    19: "constraint failed", 20: "datatype mismatch", 21: "bad parameter or other API misuse",
    23: "authorization denied", 25: "column index out of range",
};

export class SqliteError extends Error {
    constructor(message, errcode) {
        super(message);
        this.name = "SqliteError";
        this.errcode = errcode;
        this.code = CODE_NAMES[errcode] || CODE_NAMES[errcode & 0xff] || "SQLITE_ERROR";
        this.errstr = CODE_TEXTS[errcode & 0xff] || "unknown error";
    }
}

function fail() {
    const code = host.lastErrorCode();
    throw new SqliteError(host.lastError(), code === 0 ? 1 : code);
}

function describe(value) {
    if (value === undefined) return "undefined";
    if (value === null) return "null";
    if (typeof value === "string") return JSON.stringify(value);
    if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
    return String(value);
}

// The name SQLite gives the first column of a query: its alias, a column's own name, or the
// expression as written.
function firstColumnName(sql, keyword, returning) {
    const upper = sql.toUpperCase();
    let start;
    if (returning) {
        start = upper.lastIndexOf("RETURNING") + "RETURNING".length;
    } else if (keyword === "VALUES") {
        return "column1";
    } else {
        start = topLevelWord(upper, "SELECT");
        if (start < 0) return "column1";
        start += "SELECT".length;
    }
    let depth = 0;
    let quote = "";
    let end = sql.length;
    for (let i = start; i < sql.length; i++) {
        const ch = sql[i];
        if (quote) {
            if (ch === quote) quote = "";
        } else if (ch === "'" || ch === '"' || ch === "`") {
            quote = ch;
        } else if (ch === "(") {
            depth++;
        } else if (ch === ")") {
            depth--;
        } else if (depth === 0 && (ch === "," || ch === ";" || isWordAt(upper, i, "FROM"))) {
            end = i;
            break;
        }
    }
    let text = sql.slice(start, end).trim().replace(/^(DISTINCT|ALL)\s+/i, "");
    let m = /\s+AS\s+["`]?([A-Za-z_][A-Za-z0-9_]*)["`]?$/i.exec(text);
    if (m) return m[1];
    m = /^(?:[A-Za-z_][A-Za-z0-9_]*\.)?["`]?([A-Za-z_][A-Za-z0-9_]*)["`]?$/.exec(text);
    if (m) return m[1];
    return text;
}

function isWordAt(upper, i, word) {
    const before = i === 0 ? " " : upper[i - 1];
    const after = upper[i + word.length] || " ";
    return upper.startsWith(word, i) && !/[A-Z0-9_]/.test(before) && !/[A-Z0-9_]/.test(after);
}

function topLevelWord(upper, word) {
    let depth = 0;
    let quote = "";
    for (let i = 0; i < upper.length; i++) {
        const ch = upper[i];
        if (quote) {
            if (ch === quote) quote = "";
        } else if (ch === "'" || ch === '"' || ch === "`") {
            quote = ch;
        } else if (ch === "(") {
            depth++;
        } else if (ch === ")") {
            depth--;
        } else if (depth === 0 && isWordAt(upper, i, word)) {
            return i;
        }
    }
    return -1;
}

const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;

function bind(sql, values) {
    const [keyword, wanted, returning] = host.scan(sql);
    if (values.length === 1 && values[0] !== null && typeof values[0] === "object" && !Array.isArray(values[0])) {
        throw new TypeError("named parameters are not supported here; use ? and positional values");
    }
    if (wanted !== values.length) {
        throw new RangeError(
            `the statement uses ${wanted} parameter(s), and ${values.length} were supplied`);
    }
    values.forEach((value, i) => {
        const index = i + 1;
        if (value === null || value === undefined) return;
        if (typeof value === "boolean") {
            host.bindInt(index, value ? 1 : 0);
        } else if (typeof value === "number") {
            if (!Number.isInteger(value)) {
                throw new TypeError(`parameter ${index} is ${value}: only integers and strings can be bound (ABI v1)`);
            }
            host.bindInt(index, value);
        } else if (typeof value === "bigint") {
            if (value < INT64_MIN || value > INT64_MAX) {
                throw new RangeError(`parameter ${index} is too large for an SQLite INTEGER`);
            }
            host.bindInt(index, value);
        } else if (typeof value === "string") {
            host.bindText(index, value);
        } else {
            throw new TypeError(`parameter ${index} is ${describe(value)}: only numbers, bigints, strings, booleans and null can be bound`);
        }
    });
    return { keyword, returning };
}

const WRITES = ["INSERT", "UPDATE", "DELETE", "REPLACE"];
const QUERIES = ["SELECT", "WITH", "VALUES"];

// What host.statement answers (glue/pruefstein.c): a number >= 0 is the changes of a statement
// that ran (0 unless it writes or a row was asked for), a query's row asked for is
// [value, keyword, returning], no row is undefined, and these:
const BEGUN = -1; // BEGIN ran
const ENDED = -2; // COMMIT or END ran
const FAILED = -3; // SQLite refused the statement
const REFUSED = -9; // not taken by the C: nothing happened, slowStep runs it

// Runs `sql` with `params` on `db`: in C when host.statement takes it, here otherwise; answers as
// host.statement does, having tracked the transaction and thrown a failure.
function step(db, sql, params, wantRow) {
    db._check();
    const answer = db._slow ? REFUSED : host.statement(sql, params, wantRow);
    if (answer === REFUSED) return slowStep(db, sql, params, wantRow);
    if (answer === FAILED) fail();
    if (answer === BEGUN) {
        db._track("BEGIN", sql);
    } else if (answer === ENDED) {
        db._track("COMMIT", sql);
    }
    return answer;
}

// What host.statement does, in JavaScript: every statement the C does not take goes here, which
// checks each parameter and says what is wrong with one.
function slowStep(db, sql, params, wantRow) {
    const { keyword, returning } = bind(sql, params);
    host.statementLine();
    if (QUERIES.includes(keyword) || returning) {
        const [status, value] = host.queryInt(sql);
        if (status !== OK && status !== NO_ROW) fail();
        if (!wantRow) return WRITES.includes(keyword) ? host.changes() : 0;
        return status === OK ? [value, keyword, returning] : undefined;
    }
    const status = host.exec(sql);
    if (status !== OK) fail();
    db._track(keyword, sql);
    return !wantRow && WRITES.includes(keyword) ? host.changes() : 0;
}

// Created by the guest for each delivery; a consumer cannot open a database of its own.
const OPEN = Symbol("open");

export class StatementSync {
    #db;
    #sql;
    constructor(db, sql) {
        if (!(db instanceof DatabaseSync)) throw new TypeError("Illegal constructor");
        this.#db = db;
        this.#sql = sql;
    }

    get sourceSQL() {
        return this.#sql;
    }

    // The statement's first row's first column, as node:sqlite names it, or undefined.
    #row(params) {
        const answer = step(this.#db, this.#sql, params, true);
        if (typeof answer !== "object") return undefined;
        const [value, keyword, returning] = answer;
        return { [firstColumnName(this.#sql, keyword, returning)]: value };
    }

    run(...params) {
        const answer = step(this.#db, this.#sql, params, false);
        const changes = answer > 0 ? answer : 0;
        let rowid;
        return {
            changes,
            get lastInsertRowid() {
                if (rowid === undefined) {
                    host.statementLine();
                    const [status, value] = host.queryInt("SELECT last_insert_rowid()");
                    rowid = status === OK ? value : 0;
                }
                return rowid;
            },
        };
    }

    get(...params) {
        return this.#row(params);
    }

    all(...params) {
        const row = this.#row(params);
        return row === undefined ? [] : [row];
    }

    *iterate(...params) {
        yield* this.all(...params);
    }
}

export class DatabaseSync {
    #open = true;
    #inTransaction = false;
    constructor(location, options) {
        if (location !== OPEN) {
            throw new Error("a consumer uses the database it is given: verarbeite(db, msg)");
        }
        void options;
    }

    get isOpen() {
        return this.#open;
    }

    get isTransaction() {
        return this.#inTransaction;
    }

    // for StatementSync
    _check() {
        if (!this.#open) throw new Error("database is not open");
    }

    _track(keyword, sql) {
        if (keyword === "BEGIN") {
            this.#inTransaction = true;
        } else if (keyword === "COMMIT" || keyword === "END") {
            this.#inTransaction = false;
        } else if (keyword === "ROLLBACK" && !/^\s*ROLLBACK\s+(TRANSACTION\s+)?TO\b/i.test(sql)) {
            this.#inTransaction = false;
        }
    }

    exec(sql) {
        if (typeof sql !== "string") throw new TypeError("The \"sql\" argument must be a string.");
        if (!(this instanceof DatabaseSync)) throw new TypeError("Illegal constructor");
        step(this, sql, [], false);
    }

    prepare(sql) {
        if (typeof sql !== "string") throw new TypeError("The \"sql\" argument must be a string.");
        this._check();
        return new StatementSync(this, sql);
    }

    // better-sqlite3's helper: fn runs inside BEGIN … COMMIT; if it throws, ROLLBACK, and the
    // error goes on.
    transaction(fn) {
        if (typeof fn !== "function") throw new TypeError("transaction() expects a function");
        const db = this;
        return function (...args) {
            db.exec("BEGIN");
            let result;
            try {
                result = fn.apply(this, args);
            } catch (error) {
                if (db.isTransaction) db.exec("ROLLBACK");
                throw error;
            }
            db.exec("COMMIT");
            return result;
        };
    }

    close() {
        this._check();
        this.#open = false;
    }

    open() {
        this.#open = true;
    }
}

// With `db._slow = true` every statement of `db` goes through slowStep: what the tests compare the
// C with. Not enumerable, as the methods are not.
Object.defineProperty(DatabaseSync.prototype, "_slow", { value: false, writable: true });

function format(value) {
    if (typeof value === "string") return value;
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    if (typeof value === "object" && value !== null) {
        try {
            return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
        } catch {
            return String(value);
        }
    }
    return String(value);
}

const print = (...values) => host.print(values.map(format).join(" "));
globalThis.console = { log: print, info: print, warn: print, error: print, debug: print };

host.register(function deliver(entry) {
    const msg = host.message(); // what JSON.parse makes of the host's text, read in C
    const result = entry(new DatabaseSync(OPEN), msg);
    if (result === true) return 1;
    if (result === false) return 0;
    if (result !== null && typeof result === "object" && typeof result.then === "function") {
        throw new TypeError("verarbeite returned a Promise: node:sqlite is synchronous, so write verarbeite without async");
    }
    throw new TypeError(`verarbeite must return true (processed) or false (duplicate), not ${describe(result)}`);
});

export default { DatabaseSync, StatementSync, SqliteError };
