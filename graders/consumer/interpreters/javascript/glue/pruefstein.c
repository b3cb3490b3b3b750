/* Prüfstein's glue around QuickJS-ng: a consumer guest for ABI v1 that runs a student's JavaScript
 * module. The host starts an instance, writes the source with `pf_source`, loads it with `pf_load`
 * and then calls `verarbeite` once per delivery, exactly as it calls a compiled module's (the same
 * exports as the Python guest). Every statement goes through ABI v1's `db.*` imports (see
 * sqlite.js, the guest's `node:sqlite`), so crash points, interleavings and schedules work
 * unchanged. Output (`console.log`, uncaught errors) goes line by line to `env.log`. The imports
 * beyond ABI v1, `env.pf_last_error_code` (the extended result code of the last failed statement,
 * for `e.code` and `e.errcode`), `env.pf_statement_line` (the line of consumer.js that issues
 * the next statement, for the report) and `env.pf_return_line` (the line whose `return` ended the
 * entry function), are given to Prüfstein's own guests only. No clock
 * (Date is the epoch), no randomness (Math.random is seeded once and for all), no files. */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>

#include "quickjs.h"

#include "json_scan.h"
#include "sql_scan.h"
#include "sqlite_js.h"
#include "mail_js.h"
#include "broker_js.h"

#define IMPORT(m, n) __attribute__((import_module(m), import_name(n)))
#define EXPORT(n) __attribute__((export_name(n)))

IMPORT("msg", "text") int host_msg_text(const char *path, int path_len, char *buf, int cap);
IMPORT("db", "bind_int") void host_bind_int(int index, long long value);
IMPORT("db", "bind_text") void host_bind_text(int index, const char *ptr, int len);
IMPORT("db", "exec") int host_exec(const char *sql, int len);
IMPORT("db", "query_int") int host_query_int(const char *sql, int len, long long *out);
IMPORT("db", "changes") long long host_changes(void);
IMPORT("db", "last_error") int host_last_error(char *buf, int cap);
IMPORT("env", "log") void host_log(const char *ptr, int len);
IMPORT("env", "pf_last_error_code") int host_last_error_code(void);
IMPORT("env", "pf_statement_line") void host_statement_line(int line);
IMPORT("env", "pf_return_line") void host_return_line(int line);
IMPORT("env", "pf_world") int host_world(void);
IMPORT("world", "publish") int host_publish(const char *topic, int topic_len, const char *key, int key_len,
    const char *payload, int payload_len);
IMPORT("world", "send_mail") int host_send_mail(const char *key, int key_len, const char *to, int to_len,
    const char *body, int body_len);

/* The bits of env.pf_world: the outside services the exercise declares. */
#define PF_WORLD_MAIL 1
#define PF_WORLD_BROKER 2

/* Limits of the guest (their host-side names are in src/limits.rs). */
#define PF_HEAP_BYTES (8 * 1024 * 1024)
#define PF_SOURCE_BYTES_MAX (64 * 1024)
#define PF_ENTRY_BYTES_MAX 64
#define PF_ERROR_BYTES_MAX 4096
#define PF_LOG_LINE_BYTES_MAX 1024
/* The most parameters the fast path of a statement binds itself (SQLite's bind index here goes to
 * 32: a statement with more goes to sqlite.js, which says so). */
#define PF_STATEMENT_PARAMETERS_MAX 32
/* ABI v1's statuses of db.exec and db.query_int. */
#define PF_STATUS_OK 0
#define PF_STATUS_NO_ROW 4
/* Recursion stops with RangeError before the shadow stack (1 MiB, --stack-first) ends. */
#define PF_STACK_LIMIT_BYTES (640 * 1024)

static char source[PF_SOURCE_BYTES_MAX + PF_ENTRY_BYTES_MAX + 1];
static char error_text[PF_ERROR_BYTES_MAX];
static int error_len = 0;
static char log_line[PF_LOG_LINE_BYTES_MAX];
static int log_len = 0;
static JSRuntime *rt = NULL;
static JSContext *ctx = NULL;
static JSValue deliver_fn;
static JSValue entry_fn;
static int initialised = 0;
static int loaded = 0;

/* ---- no clock, no files: what the C library would ask WASI for ---- */

int clock_gettime(clockid_t clock, struct timespec *ts) {
    (void)clock;
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    if (tv) {
        tv->tv_sec = 0;
        tv->tv_usec = 0;
    }
    return 0;
}

time_t time(time_t *t) {
    if (t) {
        *t = 0;
    }
    return 0;
}

void abort(void) {
    __builtin_trap();
}

/* The C library's stdio reaches WASI through these; QuickJS writes to stdio only in its debugging
 * dumps. Defining them here keeps them from becoming imports: the guest has no files, and writes
 * to stdout or stderr go to the log. */
static void log_text(const char *str, size_t len);

int32_t __imported_wasi_snapshot_preview1_fd_write(int32_t fd, int32_t iovs, int32_t iovs_len, int32_t written) {
    if (fd != 1 && fd != 2) {
        return 8; /* EBADF */
    }
    const int32_t *vec = (const int32_t *)(uintptr_t)iovs;
    uint32_t total = 0;
    for (int32_t i = 0; i < iovs_len; i++) {
        log_text((const char *)(uintptr_t)vec[2 * i], (size_t)(uint32_t)vec[2 * i + 1]);
        total += (uint32_t)vec[2 * i + 1];
    }
    *(uint32_t *)(uintptr_t)written = total;
    return 0;
}

int32_t __imported_wasi_snapshot_preview1_fd_close(int32_t fd) {
    (void)fd;
    return 8;
}

int32_t __imported_wasi_snapshot_preview1_fd_fdstat_get(int32_t fd, int32_t stat) {
    (void)fd;
    (void)stat;
    return 8;
}

int32_t __imported_wasi_snapshot_preview1_fd_seek(int32_t fd, int64_t offset, int32_t whence, int32_t position) {
    (void)fd;
    (void)offset;
    (void)whence;
    (void)position;
    return 8;
}

/* ---- output: lines to env.log, or to the error buffer while loading ---- */

static void log_flush(void) {
    if (log_len > 0) {
        host_log(log_line, log_len);
        log_len = 0;
    }
}

static void log_text(const char *str, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (str[i] == '\n') {
            if (log_len == 0) {
                host_log(log_line, 0);
            }
            log_flush();
        } else {
            if (log_len == PF_LOG_LINE_BYTES_MAX) {
                log_flush();
            }
            log_line[log_len++] = str[i];
        }
    }
}

static void error_add(const char *str, size_t len) {
    for (size_t i = 0; i < len && error_len < PF_ERROR_BYTES_MAX; i++) {
        error_text[error_len++] = str[i];
    }
}

/* A thrown value that ToString refuses (a Symbol), as String(value) tells it, as Node tells it
   (`Symbol(boom)`); NULL when that fails too. The refusal's own exception is cleared. */
static const char *told_by_string(JSValueConst value) {
    JS_FreeValue(ctx, JS_GetException(ctx));
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue string = JS_GetPropertyStr(ctx, global, "String");
    JSValue told = JS_Call(ctx, string, JS_UNDEFINED, 1, &value);
    const char *text = JS_IsException(told) ? NULL : JS_ToCString(ctx, told);
    if (!text) {
        JS_FreeValue(ctx, JS_GetException(ctx));
    }
    JS_FreeValue(ctx, told);
    JS_FreeValue(ctx, string);
    JS_FreeValue(ctx, global);
    return text;
}

/* An exception as "Name: message", its stack below, and the limit it means, to `out`. */
static void describe_exception(JSValueConst exception, void (*out)(const char *, size_t)) {
    const char *text = JS_ToCString(ctx, exception);
    if (!text) {
        text = told_by_string(exception);
    }
    if (text) {
        out(text, strlen(text));
        out("\n", 1);
    } else {
        out("an exception that has no text\n", 30);
    }
    int out_of_memory = text && strstr(text, "out of memory") != NULL;
    int too_deep = text && strstr(text, "call stack size exceeded") != NULL;
    if (text) {
        JS_FreeCString(ctx, text);
    }
    if (JS_IsError(exception)) {
        JSValue stack = JS_GetPropertyStr(ctx, exception, "stack");
        if (JS_IsString(stack)) {
            const char *lines = JS_ToCString(ctx, stack);
            if (lines) {
                out(lines, strlen(lines));
                JS_FreeCString(ctx, lines);
            }
        }
        JS_FreeValue(ctx, stack);
    }
    if (out_of_memory) {
        static const char line[] = "The interpreter's heap (8 MiB) is full (limit \"interpreter heap\").\n";
        out(line, sizeof(line) - 1);
    } else if (too_deep) {
        static const char line[] = "Recursion went deeper than the interpreter allows (limit \"recursion depth\").\n";
        out(line, sizeof(line) - 1);
    }
}

static void describe_pending(void (*out)(const char *, size_t)) {
    JSValue exception = JS_GetException(ctx);
    describe_exception(exception, out);
    JS_FreeValue(ctx, exception);
}

/* ---- the host's db.* and msg.* as functions of the guest's node:sqlite ---- */

static JSValue js_exec(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    size_t len;
    const char *sql = JS_ToCStringLen(c, &len, argv[0]);
    if (!sql) {
        return JS_EXCEPTION;
    }
    int status = host_exec(sql, (int)len);
    JS_FreeCString(c, sql);
    return JS_NewInt32(c, status);
}

static JSValue js_query_int(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    size_t len;
    const char *sql = JS_ToCStringLen(c, &len, argv[0]);
    if (!sql) {
        return JS_EXCEPTION;
    }
    long long value = 0;
    int status = host_query_int(sql, (int)len, &value);
    JS_FreeCString(c, sql);
    JSValue pair = JS_NewArray(c);
    JS_SetPropertyUint32(c, pair, 0, JS_NewInt32(c, status));
    JS_SetPropertyUint32(c, pair, 1, JS_NewInt64(c, value));
    return pair;
}

static JSValue js_bind_int(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    int32_t index;
    int64_t value;
    if (JS_ToInt32(c, &index, argv[0]) || JS_ToInt64Ext(c, &value, argv[1])) {
        return JS_EXCEPTION;
    }
    host_bind_int(index, value);
    return JS_UNDEFINED;
}

static JSValue js_bind_text(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    int32_t index;
    if (JS_ToInt32(c, &index, argv[0])) {
        return JS_EXCEPTION;
    }
    size_t len;
    const char *text = JS_ToCStringLen(c, &len, argv[1]);
    if (!text) {
        return JS_EXCEPTION;
    }
    host_bind_text(index, text, (int)len);
    JS_FreeCString(c, text);
    return JS_UNDEFINED;
}

static JSValue js_changes(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewInt64(c, host_changes());
}

/* The line of consumer.js that runs the statement about to be issued (its innermost frame there),
 * told to the host for the report; 0 when none is on the stack. (In the vendored quickjs.c.) */
int JS_PruefsteinCallerLine(JSContext *ctx, JSAtom filename);
static JSAtom consumer_file = JS_ATOM_NULL;

static JSValue js_statement_line(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    (void)argv;
    host_statement_line(JS_PruefsteinCallerLine(c, consumer_file));
    return JS_UNDEFINED;
}

/* Called by the VM when a function returns (in the vendored quickjs.c): the student's entry function
 * is a function of consumer.js that no function of consumer.js called; its line goes to the host. */
int pf_wants_return_line(JSAtom filename, JSAtom caller_filename) {
    return filename == consumer_file && caller_filename != consumer_file;
}

void pf_returned_at(int line) {
    host_return_line(line);
}

static JSValue js_error_code(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewInt32(c, host_last_error_code());
}

/* A text the host returns by full length: try a stack buffer, then one of the full size. */
static JSValue host_text(JSContext *c, int (*get)(const char *, int, char *, int), const char *arg, int arg_len) {
    char small[256];
    int len = get(arg, arg_len, small, sizeof(small));
    if (len <= (int)sizeof(small)) {
        return JS_NewStringLen(c, small, len);
    }
    char *big = js_malloc(c, (size_t)len);
    if (!big) {
        return JS_EXCEPTION;
    }
    get(arg, arg_len, big, len);
    JSValue text = JS_NewStringLen(c, big, (size_t)len);
    js_free(c, big);
    return text;
}

static int last_error_get(const char *unused, int unused_len, char *buf, int cap) {
    (void)unused;
    (void)unused_len;
    return host_last_error(buf, cap);
}

static JSValue js_last_error(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    (void)argv;
    return host_text(c, last_error_get, NULL, 0);
}

/* The message as JavaScript values in one pass over the host's JSON text, built with the calls
 * JSON.parse makes (JS_NewObject and JS_DefinePropertyValue in the text's order, JS_NewArray,
 * strings decoded from UTF-8), for the shapes the host sends: objects, arrays, strings without
 * escapes, integers of at most 15 digits (no -0), true, false, null. Anything else (an escape, a
 * fraction or an exponent, a longer integer, nesting deeper than PF_MESSAGE_DEPTH_MAX, text that
 * is not JSON) gives JS_UNINITIALIZED, every value made so far freed, and JS_ParseJSON (what
 * JSON.parse runs) reads the whole text. */
static JSValue json_value(JSContext *c, pf_json_text *in, int depth);

static JSValue json_integer(JSContext *c, pf_json_text *in) {
    int negative = *in->at == '-';
    if (negative) {
        in->at++;
    }
    const char *digits = in->at;
    int64_t value = 0;
    while (in->at < in->end && *in->at >= '0' && *in->at <= '9' && in->at - digits < 16) {
        value = value * 10 + (*in->at - '0');
        in->at++;
    }
    size_t count = (size_t)(in->at - digits);
    int more = in->at < in->end &&
        (*in->at == '.' || *in->at == 'e' || *in->at == 'E' || (*in->at >= '0' && *in->at <= '9'));
    if (count == 0 || count > 15 || more || (count > 1 && *digits == '0') || (negative && value == 0)) {
        return JS_UNINITIALIZED;
    }
    return JS_NewInt64(c, negative ? -value : value);
}

static JSValue json_array(JSContext *c, pf_json_text *in, int depth) {
    in->at++;
    JSValue array = JS_NewArray(c);
    pf_json_space(in);
    if (in->at < in->end && *in->at == ']') {
        in->at++;
        return array;
    }
    for (uint32_t index = 0;; index++) {
        JSValue item = json_value(c, in, depth + 1);
        if (JS_IsUninitialized(item) || JS_DefinePropertyValueUint32(c, array, index, item, JS_PROP_C_W_E) < 0) {
            break;
        }
        int after = pf_json_after_item(in, ']');
        if (after == PF_JSON_MORE) {
            continue;
        }
        if (after == PF_JSON_CLOSED) {
            return array;
        }
        break;
    }
    JS_FreeValue(c, array);
    return JS_UNINITIALIZED;
}

static JSValue json_object(JSContext *c, pf_json_text *in, int depth) {
    in->at++;
    JSValue object = JS_NewObject(c);
    pf_json_space(in);
    if (in->at < in->end && *in->at == '}') {
        in->at++;
        return object;
    }
    for (;;) {
        pf_json_space(in);
        size_t key_len = 0;
        const char *key = in->at < in->end && *in->at == '"' ? pf_json_string_text(in, &key_len) : NULL;
        pf_json_space(in);
        if (!key || in->at >= in->end || *in->at != ':') {
            break;
        }
        in->at++;
        JSValue value = json_value(c, in, depth + 1);
        if (JS_IsUninitialized(value)) {
            break;
        }
        JSAtom name = JS_NewAtomLen(c, key, key_len);
        int defined = name != JS_ATOM_NULL && JS_DefinePropertyValue(c, object, name, value, JS_PROP_C_W_E) >= 0;
        if (name == JS_ATOM_NULL) {
            JS_FreeValue(c, value);
        } else {
            JS_FreeAtom(c, name);
        }
        if (!defined) {
            break;
        }
        int after = pf_json_after_item(in, '}');
        if (after == PF_JSON_MORE) {
            continue;
        }
        if (after == PF_JSON_CLOSED) {
            return object;
        }
        break;
    }
    JS_FreeValue(c, object);
    return JS_UNINITIALIZED;
}

static JSValue json_value(JSContext *c, pf_json_text *in, int depth) {
    pf_json_space(in);
    if (in->at >= in->end || depth > PF_MESSAGE_DEPTH_MAX) {
        return JS_UNINITIALIZED;
    }
    switch (*in->at) {
        case '{':
            return json_object(c, in, depth);
        case '[':
            return json_array(c, in, depth);
        case '"': {
            size_t len = 0;
            const char *text = pf_json_string_text(in, &len);
            return text ? JS_NewStringLen(c, text, len) : JS_UNINITIALIZED;
        }
        case 't':
            return pf_json_word(in, "true") ? JS_TRUE : JS_UNINITIALIZED;
        case 'f':
            return pf_json_word(in, "false") ? JS_FALSE : JS_UNINITIALIZED;
        case 'n':
            return pf_json_word(in, "null") ? JS_NULL : JS_UNINITIALIZED;
        default:
            return (*in->at == '-' || (*in->at >= '0' && *in->at <= '9')) ? json_integer(c, in) : JS_UNINITIALIZED;
    }
}

/* The delivery's message (msg.text with the empty path) as JSON.parse makes it of the host's text:
 * read in one pass where it can be, else by JS_ParseJSON. */
static JSValue js_message(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    (void)argv;
    char small[512];
    int len = host_msg_text("", 0, small, (int)sizeof(small) - 1);
    char *text = small;
    if (len >= (int)sizeof(small)) {
        text = js_malloc(c, (size_t)len + 1);
        if (!text) {
            return JS_EXCEPTION;
        }
        host_msg_text("", 0, text, len);
    }
    text[len] = 0; /* JS_ParseJSON reads up to a NUL */
    pf_json_text in = {text, text + len};
    JSValue value = json_value(c, &in, 0);
    pf_json_space(&in);
    if (!JS_IsUninitialized(value) && in.at != in.end) {
        JS_FreeValue(c, value);
        value = JS_UNINITIALIZED;
    }
    if (JS_IsUninitialized(value)) {
        value = JS_ParseJSON(c, text, (size_t)len, "<input>");
    }
    if (text != small) {
        js_free(c, text);
    }
    return value;
}

static JSValue js_print(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    size_t len;
    const char *text = JS_ToCStringLen(c, &len, argv[0]);
    if (!text) {
        return JS_EXCEPTION;
    }
    log_text(text, len);
    log_text("\n", 1);
    JS_FreeCString(c, text);
    return JS_UNDEFINED;
}

static JSValue js_register(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    JS_FreeValue(c, deliver_fn);
    deliver_fn = JS_DupValue(c, argv[0]);
    return JS_UNDEFINED;
}

/* What sqlite.js needs to know of a statement before it runs (`../common/sql_scan.h`). */
static JSValue js_scan(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    (void)argc;
    size_t n;
    const char *sql = JS_ToCStringLen(c, &n, argv[0]);
    if (!sql) {
        return JS_EXCEPTION;
    }
    pf_sql_scan_t scan = pf_scan_sql(sql, n);
    JS_FreeCString(c, sql);
    JSValue triple = JS_NewArray(c);
    JS_SetPropertyUint32(c, triple, 0, JS_NewStringLen(c, scan.keyword, scan.keyword_len));
    JS_SetPropertyUint32(c, triple, 1, JS_NewInt32(c, (int32_t)scan.parameters));
    JS_SetPropertyUint32(c, triple, 2, JS_NewBool(c, scan.returning));
    return triple;
}

/* ---- a statement in one call: sqlite.js's fast path ---- */

/* What `statement` answers (sqlite.js names the same numbers). A number >= 0 is the statement's
 * changes (0 unless it is an INSERT, UPDATE, DELETE or REPLACE); a query's row, asked for, is
 * `[value, keyword, returning]`, and no row is `undefined`. */
#define PF_STATEMENT_BEGUN (-1)  /* BEGIN ran: a transaction is open */
#define PF_STATEMENT_ENDED (-2)  /* COMMIT or END ran: none is */
#define PF_STATEMENT_FAILED (-3) /* it ran and SQLite refused it: lastError tells why */
#define PF_STATEMENT_REFUSED (-9) /* not taken: nothing happened, sqlite.js runs it itself */

/* Whether `value` is bound as sqlite.js's `bind` binds it without a word to say (null, undefined, a
 * boolean, an integral number, a string); anything else (a fraction, a bigint, an object) is
 * left to sqlite.js, which checks it and says what is wrong. */
static int bound_as_is(JSContext *c, JSValueConst value) {
    if (JS_IsNull(value) || JS_IsUndefined(value) || JS_IsBool(value) || JS_IsString(value)) {
        return 1;
    }
    if (JS_VALUE_GET_TAG(value) == JS_TAG_INT) {
        return 1;
    }
    if (JS_IsNumber(value)) {
        double d;
        return JS_ToFloat64(c, &d, value) == 0 && isfinite(d) && trunc(d) == d;
    }
    return 0;
}

/* statement(sql, params, wantRow): what StatementSync's #query and run() do, in C, for every
 * statement whose parameters are all bound as they are: the scan, the count of parameters, the
 * binding, the statement's line, `exec` or `query_int`, the transaction's opening or closing and the
 * changes. A statement it cannot tell it would run exactly as sqlite.js does (parameters of another
 * kind or number, a ROLLBACK, whose `TO` sqlite.js reads) is REFUSED before anything happens. */
static JSValue js_statement(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    if (argc < 3 || !JS_IsString(argv[0]) || !JS_IsArray(argv[1])) {
        return JS_NewInt32(c, PF_STATEMENT_REFUSED);
    }
    int64_t count;
    if (JS_GetLength(c, argv[1], &count) != 0) {
        return JS_EXCEPTION;
    }
    size_t len;
    const char *sql = JS_ToCStringLen(c, &len, argv[0]);
    if (!sql) {
        return JS_EXCEPTION;
    }
    pf_sql_scan_t scan = pf_scan_sql(sql, len);
    int taken = scan.parameters == count && count <= PF_STATEMENT_PARAMETERS_MAX && !pf_scan_keyword_is(&scan, "ROLLBACK");
    JSValue answer = JS_NewInt32(c, PF_STATEMENT_REFUSED);
    JSValue values[PF_STATEMENT_PARAMETERS_MAX];
    int64_t got = 0;
    while (taken && got < count) {
        JSValue value = JS_GetPropertyUint32(c, argv[1], (uint32_t)got);
        if (JS_IsException(value)) {
            taken = 0;
            answer = JS_EXCEPTION;
            break;
        }
        values[got++] = value;
        taken = bound_as_is(c, value);
    }
    for (int64_t i = 0; taken && i < count; i++) {
        JSValueConst value = values[i];
        int index = (int)i + 1;
        if (JS_IsString(value)) {
            size_t text_len;
            const char *text = JS_ToCStringLen(c, &text_len, value);
            if (!text) {
                taken = 0;
                answer = JS_EXCEPTION;
                break;
            }
            host_bind_text(index, text, (int)text_len);
            JS_FreeCString(c, text);
        } else if (JS_IsBool(value)) {
            host_bind_int(index, JS_ToBool(c, value) ? 1 : 0);
        } else if (JS_IsNumber(value)) {
            int64_t number;
            JS_ToInt64Ext(c, &number, value);
            host_bind_int(index, number);
        }
    }
    for (int64_t i = 0; i < got; i++) {
        JS_FreeValue(c, values[i]);
    }
    if (!taken) {
        JS_FreeCString(c, sql);
        return answer;
    }
    host_statement_line(JS_PruefsteinCallerLine(c, consumer_file));
    int want_row = JS_ToBool(c, argv[2]);
    int write = pf_scan_writes(&scan);
    int query = pf_scan_gives_rows(&scan);
    if (query) {
        long long value = 0;
        int status = host_query_int(sql, (int)len, &value);
        JS_FreeCString(c, sql);
        if (status != PF_STATUS_OK && status != PF_STATUS_NO_ROW) {
            return JS_NewInt32(c, PF_STATEMENT_FAILED);
        }
        if (!want_row) {
            return JS_NewInt64(c, write ? host_changes() : 0);
        }
        if (status == PF_STATUS_NO_ROW) {
            return JS_UNDEFINED;
        }
        JSValue row = JS_NewArray(c);
        JS_SetPropertyUint32(c, row, 0, JS_NewInt64(c, value));
        JS_SetPropertyUint32(c, row, 1, JS_NewStringLen(c, scan.keyword, scan.keyword_len));
        JS_SetPropertyUint32(c, row, 2, JS_NewBool(c, scan.returning));
        return row;
    }
    int status = host_exec(sql, (int)len);
    JS_FreeCString(c, sql);
    if (status != PF_STATUS_OK) {
        return JS_NewInt32(c, PF_STATEMENT_FAILED);
    }
    if (pf_scan_keyword_is(&scan, "BEGIN")) {
        return JS_NewInt32(c, PF_STATEMENT_BEGUN);
    }
    if (pf_scan_keyword_is(&scan, "COMMIT") || pf_scan_keyword_is(&scan, "END")) {
        return JS_NewInt32(c, PF_STATEMENT_ENDED);
    }
    return JS_NewInt64(c, write && !want_row ? host_changes() : 0);
}

/* ABI v1.1's world.send_mail(key, to, body) for the module `mail` (glue/mail.js): the status code. */
static JSValue js_send_mail(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    if (argc < 3) {
        return JS_ThrowTypeError(c, "send_mail needs key, to and body");
    }
    size_t key_len, to_len, body_len;
    const char *key = JS_ToCStringLen(c, &key_len, argv[0]);
    const char *to = key ? JS_ToCStringLen(c, &to_len, argv[1]) : NULL;
    const char *body = to ? JS_ToCStringLen(c, &body_len, argv[2]) : NULL;
    int status = 0;
    if (body) {
        host_statement_line(JS_PruefsteinCallerLine(c, consumer_file));
        status = host_send_mail(key, (int)key_len, to, (int)to_len, body, (int)body_len);
    }
    JS_FreeCString(c, key);
    JS_FreeCString(c, to);
    JS_FreeCString(c, body);
    return body ? JS_NewInt32(c, status) : JS_EXCEPTION;
}

/* ABI v1.1's world.publish(topic, key, payload) for the module `broker` (glue/broker.js). */
static JSValue js_publish(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    if (argc < 3) {
        return JS_ThrowTypeError(c, "publish needs topic, key and payload");
    }
    size_t topic_len, key_len, payload_len;
    const char *topic = JS_ToCStringLen(c, &topic_len, argv[0]);
    const char *key = topic ? JS_ToCStringLen(c, &key_len, argv[1]) : NULL;
    const char *payload = key ? JS_ToCStringLen(c, &payload_len, argv[2]) : NULL;
    int status = 0;
    if (payload) {
        host_statement_line(JS_PruefsteinCallerLine(c, consumer_file));
        status = host_publish(topic, (int)topic_len, key, (int)key_len, payload, (int)payload_len);
    }
    JS_FreeCString(c, topic);
    JS_FreeCString(c, key);
    JS_FreeCString(c, payload);
    return payload ? JS_NewInt32(c, status) : JS_EXCEPTION;
}

/* A module of the world (`mail`, `broker`): its source compiled, its host call left in `global`
 * for the module to take. */
static JSModuleDef *world_module(JSContext *c, const char *global_name, JSCFunction *fn, const char *fn_name,
    const char *code, size_t len, const char *name) {
    JSValue global = JS_GetGlobalObject(c);
    JS_SetPropertyStr(c, global, global_name, JS_NewCFunction(c, fn, fn_name, 3));
    JS_FreeValue(c, global);
    JSValue compiled = JS_Eval(c, code, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    if (JS_IsException(compiled)) {
        return NULL;
    }
    JSModuleDef *module = JS_VALUE_GET_PTR(compiled);
    JS_FreeValue(c, compiled);
    return module;
}

#include "log_module.h"

/* ---- modules: node:sqlite is the guest's, `mail` and `broker` where the exercise declares them;
 * nothing else can be imported ---- */

static JSModuleDef *load_module(JSContext *c, const char *name, void *opaque) {
    (void)opaque;
    if (strcmp(name, "node:sqlite") == 0) {
        JSValue compiled = JS_Eval(c, SQLITE_JS, sizeof(SQLITE_JS) - 1, "node:sqlite",
            JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
        if (JS_IsException(compiled)) {
            return NULL;
        }
        JSModuleDef *module = JS_VALUE_GET_PTR(compiled);
        JS_FreeValue(c, compiled);
        return module;
    }
    if (strcmp(name, "mail") == 0 && (host_world() & PF_WORLD_MAIL)) {
        return world_module(c, "__pf_mail", js_send_mail, "send_mail", MAIL_JS, sizeof(MAIL_JS) - 1, "mail");
    }
    if (strcmp(name, "broker") == 0 && (host_world() & PF_WORLD_BROKER)) {
        return world_module(c, "__pf_broker", js_publish, "publish", BROKER_JS, sizeof(BROKER_JS) - 1, "broker");
    }
    if (strcmp(name, "log") == 0 && (host_world() & PF_WORLD_LOG)) {
        return world_module(c, "__pf_log", js_commit_offset, "commit_offset", LOG_JS, sizeof(LOG_JS) - 1, "log");
    }
    JS_ThrowReferenceError(c, "import not allowed: '%s' (a consumer may import only node:sqlite)", name);
    return NULL;
}

/* A module is named as the import names it (not resolved against the importing file), so that a
 * refused import is named as the student wrote it. */
static char *name_module(JSContext *c, const char *base, const char *name, void *opaque) {
    (void)base;
    (void)opaque;
    return js_strdup(c, name);
}

/* Runs the jobs promises queued (a module's evaluation is one). */
static void run_jobs(void) {
    JSContext *job_ctx;
    while (JS_ExecutePendingJob(rt, &job_ctx) > 0) {
    }
}

/* Evaluates a compiled module; 0 when it ran, else the exception is pending. */
static int evaluate(JSValue compiled) {
    JSValue promise = JS_EvalFunction(ctx, compiled);
    if (JS_IsException(promise)) {
        return 1;
    }
    run_jobs();
    int failed = 0;
    if (JS_IsPromise(promise)) {
        JSPromiseStateEnum state = JS_PromiseState(ctx, promise);
        if (state == JS_PROMISE_REJECTED) {
            JS_Throw(ctx, JS_PromiseResult(ctx, promise));
            failed = 1;
        } else if (state == JS_PROMISE_PENDING) {
            JS_ThrowTypeError(ctx, "the module awaits something that never comes (top-level await)");
            failed = 1;
        }
    }
    JS_FreeValue(ctx, promise);
    return failed;
}

static void set_function(JSValueConst object, const char *name, JSCFunction *fn, int length) {
    JS_SetPropertyStr(ctx, object, name, JS_NewCFunction(ctx, fn, name, length));
}

/* Starts the interpreter and loads node:sqlite; 0 when it worked. */
EXPORT("pf_init") int pf_init(void) {
    deliver_fn = JS_UNDEFINED;
    entry_fn = JS_UNDEFINED;
    rt = JS_NewRuntime();
    if (!rt) {
        error_add("no runtime", 10);
        return 1;
    }
    JS_SetMemoryLimit(rt, PF_HEAP_BYTES);
    JS_SetMaxStackSize(rt, PF_STACK_LIMIT_BYTES);
    JS_SetModuleLoaderFunc(rt, name_module, load_module, NULL);
    ctx = JS_NewContext(rt);
    if (!ctx) {
        error_add("no context", 10);
        return 1;
    }
    consumer_file = JS_NewAtom(ctx, "consumer.js");
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue host = JS_NewObject(ctx);
    set_function(host, "exec", js_exec, 1);
    set_function(host, "queryInt", js_query_int, 1);
    set_function(host, "bindInt", js_bind_int, 2);
    set_function(host, "bindText", js_bind_text, 2);
    set_function(host, "changes", js_changes, 0);
    set_function(host, "lastError", js_last_error, 0);
    set_function(host, "lastErrorCode", js_error_code, 0);
    set_function(host, "statementLine", js_statement_line, 0);
    set_function(host, "message", js_message, 0);
    set_function(host, "scan", js_scan, 1);
    set_function(host, "statement", js_statement, 3);
    set_function(host, "print", js_print, 1);
    set_function(host, "register", js_register, 1);
    JS_SetPropertyStr(ctx, global, "__pf", host);
    JS_FreeValue(ctx, global);
    static const char start[] = "import \"node:sqlite\";\n";
    JSValue compiled =
        JS_Eval(ctx, start, sizeof(start) - 1, "<start>", JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    if (JS_IsException(compiled) || evaluate(compiled) != 0) {
        error_len = 0;
        describe_pending(error_add);
        return 1;
    }
    if (!JS_IsFunction(ctx, deliver_fn)) {
        error_add("node:sqlite registered no delivery", 34);
        return 1;
    }
    JS_RunGC(rt);
    initialised = 1;
    return 0;
}

/* The buffer the host writes `entry` + source into; 0 when they do not fit. */
EXPORT("pf_source") char *pf_source(int len) {
    if (len < 0 || len >= (int)sizeof(source)) {
        return 0;
    }
    return source;
}

EXPORT("pf_error_ptr") char *pf_error_ptr(void) {
    return error_text;
}

EXPORT("pf_error_len") int pf_error_len(void) {
    return error_len;
}

/* Loads the student's module: the first `entry_len` bytes of the buffer name the entry function
 * (an export of the module), the next `source_len` bytes are the source. 0 when it loaded and
 * exports the entry function; otherwise the error is at pf_error_ptr. */
EXPORT("pf_load") int pf_load(int entry_len, int source_len) {
    JS_UpdateStackTop(rt);
    error_len = 0;
    if (!initialised || loaded || entry_len <= 0 || entry_len > PF_ENTRY_BYTES_MAX || source_len < 0 ||
        entry_len + source_len >= (int)sizeof(source)) {
        error_add("bad load request", 16);
        return 1;
    }
    char entry[PF_ENTRY_BYTES_MAX + 1];
    memcpy(entry, source, (size_t)entry_len);
    entry[entry_len] = 0;
    char *text = source + entry_len;
    text[source_len] = 0; /* QuickJS reads its input up to a NUL */
    JSValue compiled = JS_Eval(ctx, text, (size_t)source_len, "consumer.js",
        JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    if (JS_IsException(compiled)) {
        describe_pending(error_add);
        log_flush();
        return 1;
    }
    JSModuleDef *module = JS_VALUE_GET_PTR(compiled);
    if (evaluate(compiled) != 0) {
        describe_pending(error_add);
        log_flush();
        return 1;
    }
    JSValue namespace = JS_GetModuleNamespace(ctx, module);
    JSValue entry_value = JS_GetPropertyStr(ctx, namespace, entry);
    JS_FreeValue(ctx, namespace);
    if (!JS_IsFunction(ctx, entry_value)) {
        JS_FreeValue(ctx, entry_value);
        static const char head[] = "consumer.js exports no function ";
        error_add(head, sizeof(head) - 1);
        error_add(entry, (size_t)entry_len);
        static const char tail[] = "(db, msg): write `export function ";
        error_add(tail, sizeof(tail) - 1);
        error_add(entry, (size_t)entry_len);
        error_add("(db, msg) { ... }`\n", 19);
        log_flush();
        return 1;
    }
    entry_fn = entry_value;
    loaded = 1;
    /* The parser's garbage goes now, once, not in a later delivery of every instance that starts
     * from this state. */
    JS_RunGC(rt);
    log_flush();
    return 0;
}

/* One delivery: the guest's delivery function returns 1 (true) or 0 (false); an uncaught error is
 * printed to the log and the delivery ends with 2 (the message is not acked). */
EXPORT("verarbeite") int verarbeite(void) {
    if (!loaded) {
        return 3;
    }
    JS_UpdateStackTop(rt);
    JSValue result = JS_Call(ctx, deliver_fn, JS_UNDEFINED, 1, (JSValueConst *)&entry_fn);
    int status = 2;
    if (JS_IsException(result)) {
        log_text("Uncaught ", 9);
        describe_pending(log_text);
    } else {
        int32_t value = 2;
        JS_ToInt32(ctx, &value, result);
        status = value;
    }
    JS_FreeValue(ctx, result);
    run_jobs();
    log_flush();
    return status;
}
