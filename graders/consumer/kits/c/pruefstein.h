/*
 * pruefstein.h: a small C SDK for consumer ABI v1 (graders/consumer/ABI.md).
 *
 * Header only, no libc: include it in your consumer and build with
 *     clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -o build/consumer.wasm consumer.c
 *
 * Strings are ordinary NUL-terminated C strings; the SDK passes pointer and length to the host.
 * Status codes of the database are named constants (PS_OK, PS_DUPLICATE, ...), and so are the return
 * values of verarbeite (PS_PROCESSED, PS_ALREADY_PROCESSED, PS_FAILED).
 */
#ifndef PRUEFSTEIN_H
#define PRUEFSTEIN_H

typedef unsigned long ps_size_t;
typedef long long ps_i64;

/* ---- Return values of verarbeite (ABI v1) ---------------------------------------------------- */

/** The message was processed: the queue acks it (the lesson's `return True`). */
#define PS_PROCESSED 1
/** The message was processed before, nothing was done: the queue acks it (`return False`). */
#define PS_ALREADY_PROCESSED 0
/** An error: the queue does not ack, the message comes again later (the lesson's `raise`). */
#define PS_FAILED 2

/* ---- Status codes of db.exec and db.query_int ----------------------------------------------- */

/** The statement succeeded. */
#define PS_OK 0
/** A UNIQUE or PRIMARY KEY constraint failed: the lesson's IntegrityError on the dedup table. */
#define PS_DUPLICATE 1
/** Another constraint failed (CHECK, NOT NULL, FOREIGN KEY). */
#define PS_CONSTRAINT 2
/** Anything else: a syntax error, a statement that is not allowed, a limit. */
#define PS_ERROR 3
/** ps_query_int found no row. */
#define PS_NO_ROW 4

/* ---- The host's functions (ABI v1 imports) -------------------------------------------------- */

#define PS_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

PS_IMPORT("msg", "int") ps_i64 ps_abi_msg_int(const char *path, int path_len);
PS_IMPORT("msg", "text") int ps_abi_msg_text(const char *path, int path_len, char *buf, int cap);
PS_IMPORT("db", "bind_int") void ps_abi_bind_int(int index, ps_i64 value);
PS_IMPORT("db", "bind_text") void ps_abi_bind_text(int index, const char *text, int len);
PS_IMPORT("db", "exec") int ps_abi_exec(const char *sql, int sql_len);
PS_IMPORT("db", "query_int") int ps_abi_query_int(const char *sql, int sql_len, ps_i64 *out);
PS_IMPORT("db", "changes") ps_i64 ps_abi_changes(void);
PS_IMPORT("db", "last_error") int ps_abi_last_error(char *buf, int cap);
PS_IMPORT("env", "log") void ps_abi_log(const char *text, int len);

/*
 * There is no libc: the SDK brings the few functions the compiler may call by itself. They are weak,
 * so a program that brings its own wins.
 */
__attribute__((weak)) ps_size_t strlen(const char *s) {
    const char *p = s;
    while (*p) p++;
    return (ps_size_t)(p - s);
}

__attribute__((weak)) void *memcpy(void *dst, const void *src, ps_size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    while (n--) *d++ = *s++;
    return dst;
}

__attribute__((weak)) void *memset(void *dst, int value, ps_size_t n) {
    unsigned char *d = (unsigned char *)dst;
    while (n--) *d++ = (unsigned char)value;
    return dst;
}

/* ---- The message being delivered ------------------------------------------------------------ */

/** The integer at a dotted path such as "id" or "body.punkte". A missing path ends the instance. */
static inline ps_i64 ps_msg_int(const char *path) {
    return ps_abi_msg_int(path, (int)strlen(path));
}

/**
 * Copies the text at `path` into `buf` (NUL-terminated) and returns its length in bytes, or -1 if it
 * does not fit into `cap` bytes (then nothing is written: never act on a cut name).
 */
static inline int ps_msg_text(const char *path, char *buf, int cap) {
    if (cap < 1) return -1;
    int len = ps_abi_msg_text(path, (int)strlen(path), buf, cap - 1);
    if (len < 0 || len > cap - 1) return -1;
    buf[len] = 0;
    return len;
}

/* ---- The database: one statement per call -------------------------------------------------- */

/** Binds parameter `index` (from 1) of the next statement to an integer. */
static inline void ps_bind_int(int index, ps_i64 value) { ps_abi_bind_int(index, value); }

/** Binds parameter `index` (from 1) of the next statement to a text. */
static inline void ps_bind_text(int index, const char *text) {
    ps_abi_bind_text(index, text, (int)strlen(text));
}

/** Runs one SQL statement; returns PS_OK, PS_DUPLICATE, PS_CONSTRAINT or PS_ERROR. */
static inline int ps_exec(const char *sql) { return ps_abi_exec(sql, (int)strlen(sql)); }

/** Runs a query and stores the first column of its first row in `*out`; PS_NO_ROW if there is none. */
static inline int ps_query_int(const char *sql, ps_i64 *out) {
    return ps_abi_query_int(sql, (int)strlen(sql), out);
}

/** Rows changed by the last successful statement. */
static inline ps_i64 ps_changes(void) { return ps_abi_changes(); }

/** The last statement's error message into `buf` (NUL-terminated); its length, or -1 if too long. */
static inline int ps_last_error(char *buf, int cap) {
    if (cap < 1) return -1;
    int len = ps_abi_last_error(buf, cap - 1);
    if (len < 0 || len > cap - 1) return -1;
    buf[len] = 0;
    return len;
}

/** Appends a line to the delivery's log (shown in the report's trace). */
static inline void ps_log(const char *text) { ps_abi_log(text, (int)strlen(text)); }

/* ---- Transactions --------------------------------------------------------------------------- */

static inline int ps_begin(void) { return ps_exec("BEGIN"); }
static inline int ps_commit(void) { return ps_exec("COMMIT"); }
static inline int ps_rollback(void) { return ps_exec("ROLLBACK"); }

/**
 * Runs `body` in one transaction, like Python's `with con:`.
 *
 * BEGIN; then `body(context)`. If it returns PS_PROCESSED, COMMIT (a failed COMMIT is rolled back
 * and gives PS_FAILED). Anything else (PS_ALREADY_PROCESSED, PS_FAILED, ...) rolls back and is
 * returned unchanged. The transaction is never left open.
 */
static inline int ps_transaction(int (*body)(void *context), void *context) {
    if (ps_begin() != PS_OK) return PS_FAILED;
    int result = body(context);
    if (result != PS_PROCESSED) {
        ps_rollback();
        return result;
    }
    if (ps_commit() != PS_OK) {
        ps_rollback();
        return PS_FAILED;
    }
    return PS_PROCESSED;
}

/** Exports a function under the name the harness calls: `PS_EXPORT("verarbeite") int verarbeite(void)`. */
#define PS_EXPORT(name) __attribute__((export_name(name)))

#endif /* PRUEFSTEIN_H */
