/* Prüfstein's glue around MicroPython: a consumer guest for ABI v1 that runs a student's Python
 * source. The host starts an instance, writes the source with `pf_source`, loads it with `pf_load`
 * and then calls `verarbeite` once per delivery, exactly as it calls a compiled module's. Every
 * statement goes through ABI v1's `db.*` imports (see sqlite3.py), so crash points, interleavings
 * and schedules work unchanged. Output (`print`, tracebacks) goes line by line to `env.log`.
 * No WASI: no clock, no randomness, no files. */

#include <stdint.h>
#include <string.h>

#include "py/bc.h"
#include "py/builtin.h"
#include "py/objfun.h"
#include "py/compile.h"
#include "py/gc.h"
#include "py/lexer.h"
#include "py/mperrno.h"
#include "py/objmodule.h"
#include "py/objstr.h"
#include "py/runtime.h"
#include "py/stackctrl.h"

#include "sql_scan.h"
#include "sqlite3_native.h"
#include "sqlite3_py.h"
#include "mail_py.h"
#include "broker_py.h"

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
IMPORT("world", "publish") int host_publish(const char *topic, int topic_len, const char *key, int key_len,
    const char *payload, int payload_len);
IMPORT("world", "send_mail") int host_send_mail(const char *key, int key_len, const char *to, int to_len,
    const char *body, int body_len);
IMPORT("env", "pf_statement_line") void host_statement_line(int line);
IMPORT("env", "pf_return_line") void host_return_line(int line);
IMPORT("env", "pf_world") int host_world(void);

/* The bits of env.pf_world: the outside services the exercise declares. */
#define PF_WORLD_MAIL 1
#define PF_WORLD_BROKER 2

/* Limits of the guest (their host-side names are in src/limits.rs). */
#define PF_HEAP_BYTES (2 * 1024 * 1024)
#define PF_SOURCE_BYTES_MAX (64 * 1024)
#define PF_ENTRY_BYTES_MAX 64
#define PF_ERROR_BYTES_MAX 2048
#define PF_LOG_LINE_BYTES_MAX 1024
/* Python recursion stops with RuntimeError before the shadow stack (1 MiB, --stack-first) ends. */
#define PF_STACK_LIMIT_BYTES (768 * 1024)

static char heap[PF_HEAP_BYTES];
static char source[PF_SOURCE_BYTES_MAX + PF_ENTRY_BYTES_MAX];
static char error_text[PF_ERROR_BYTES_MAX];
static int error_len = 0;
static char log_line[PF_LOG_LINE_BYTES_MAX];
static int log_len = 0;
static mp_obj_t entry_fn = MP_OBJ_NULL;
static int initialised = 0;

/* ---- output: lines to env.log, or to the error buffer while loading ---- */

static void log_flush(void) {
    if (log_len > 0) {
        host_log(log_line, log_len);
        log_len = 0;
    }
}

void mp_hal_stdout_tx_strn_cooked(const char *str, size_t len) {
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

static void error_strn(void *env, const char *str, size_t len) {
    (void)env;
    for (size_t i = 0; i < len && error_len < PF_ERROR_BYTES_MAX; i++) {
        error_text[error_len++] = str[i];
    }
}

static const mp_print_t error_print = {NULL, error_strn};

/* ---- the line of consumer.py that makes a statement ---- */

/* The student's file's name as the compiler interned it (set in pf_init). */
static qstr consumer_file = MP_QSTRnull;

/* The file a frame's code comes from. */
static qstr source_of(const mp_code_state_t *state) {
    #if MICROPY_EMIT_BYTECODE_USES_QSTR_TABLE
    return state->fun_bc->context->constants.qstr_table[0];
    #else
    return state->fun_bc->context->constants.source_file;
    #endif
}

/* The line a frame is at, as a traceback would name it. */
static int line_of(const mp_code_state_t *state) {
    const byte *ip = state->fun_bc->bytecode;
    MP_BC_PRELUDE_SIG_DECODE(ip);
    MP_BC_PRELUDE_SIZE_DECODE(ip);
    (void)n_state;
    (void)n_exc_stack;
    (void)scope_flags;
    (void)n_def_pos_args;
    const byte *line_info_top = ip + n_info;
    const byte *bytecode_start = ip + n_info + n_cell;
    for (size_t i = 0; i < 1 + n_pos_args + n_kwonly_args; ++i) {
        ip = mp_decode_uint_skip(ip);
    }
    size_t bc = (size_t)(state->ip - bytecode_start);
    return (int)mp_bytecode_get_source_line(ip, line_info_top, bc);
}

/* Tells the host the line of consumer.py that makes the statement about to run: the innermost frame
 * of that file on the chain the VM keeps (`pf_current_code_state`, vendor/py/vm.c under
 * PRUEFSTEIN_FRAMES; the frames of sqlite3.py are its callees), as a traceback would name it; 0
 * when none. */
static void tell_statement_line(void) {
    for (mp_code_state_t *state = pf_current_code_state; state != NULL; state = state->pf_prev) {
        if (source_of(state) == consumer_file) {
            host_statement_line(line_of(state));
            return;
        }
    }
    host_statement_line(0);
}

/* Called by the VM when a frame executes `return` (glue/return-line.patch): the student's entry
 * function (a frame of consumer.py that no frame of consumer.py called) tells the host its line. */
void pf_frame_returning(mp_code_state_t *state) {
    if (source_of(state) != consumer_file) {
        return;
    }
    if (state->pf_prev != NULL && source_of(state->pf_prev) == consumer_file) {
        return;
    }
    host_return_line(line_of(state));
}

/* ---- the host's db.* and msg.* as functions of the sqlite3 module ---- */

static mp_obj_t pf_exec(mp_obj_t sql_in) {
    size_t len;
    const char *sql = mp_obj_str_get_data(sql_in, &len);
    tell_statement_line();
    return MP_OBJ_NEW_SMALL_INT(host_exec(sql, (int)len));
}
static MP_DEFINE_CONST_FUN_OBJ_1(pf_exec_obj, pf_exec);

static mp_obj_t pf_query_int(mp_obj_t sql_in) {
    size_t len;
    const char *sql = mp_obj_str_get_data(sql_in, &len);
    long long value = 0;
    tell_statement_line();
    int status = host_query_int(sql, (int)len, &value);
    mp_obj_t items[2] = {MP_OBJ_NEW_SMALL_INT(status), mp_obj_new_int_from_ll(value)};
    return mp_obj_new_tuple(2, items);
}
static MP_DEFINE_CONST_FUN_OBJ_1(pf_query_int_obj, pf_query_int);

/* ABI v1.1's world.send_mail: key, recipient and body as str or bytes; the status code. */
static mp_obj_t pf_send_mail(mp_obj_t key_in, mp_obj_t to_in, mp_obj_t body_in) {
    size_t key_len, to_len, body_len;
    const char *key = mp_obj_str_get_data(key_in, &key_len);
    const char *to = mp_obj_str_get_data(to_in, &to_len);
    const char *body = mp_obj_str_get_data(body_in, &body_len);
    tell_statement_line();
    return MP_OBJ_NEW_SMALL_INT(host_send_mail(key, (int)key_len, to, (int)to_len, body, (int)body_len));
}
static MP_DEFINE_CONST_FUN_OBJ_3(pf_send_mail_obj, pf_send_mail);

/* ABI v1.1's world.publish: topic, key and payload as str or bytes; the status code. */
static mp_obj_t pf_publish(mp_obj_t topic_in, mp_obj_t key_in, mp_obj_t payload_in) {
    size_t topic_len, key_len, payload_len;
    const char *topic = mp_obj_str_get_data(topic_in, &topic_len);
    const char *key = mp_obj_str_get_data(key_in, &key_len);
    const char *payload = mp_obj_str_get_data(payload_in, &payload_len);
    tell_statement_line();
    return MP_OBJ_NEW_SMALL_INT(host_publish(topic, (int)topic_len, key, (int)key_len, payload, (int)payload_len));
}
static MP_DEFINE_CONST_FUN_OBJ_3(pf_publish_obj, pf_publish);

static mp_obj_t pf_bind_int(mp_obj_t index, mp_obj_t value) {
    long long v;
    if (mp_obj_is_small_int(value)) {
        v = MP_OBJ_SMALL_INT_VALUE(value);
    } else {
        v = mp_obj_int_get_checked(value);
    }
    host_bind_int(mp_obj_get_int(index), v);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(pf_bind_int_obj, pf_bind_int);

static mp_obj_t pf_bind_text(mp_obj_t index, mp_obj_t text) {
    size_t len;
    const char *s = mp_obj_str_get_data(text, &len);
    host_bind_text(mp_obj_get_int(index), s, (int)len);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(pf_bind_text_obj, pf_bind_text);

static mp_obj_t pf_changes(void) {
    return mp_obj_new_int_from_ll(host_changes());
}
static MP_DEFINE_CONST_FUN_OBJ_0(pf_changes_obj, pf_changes);

/* What sqlite3.py needs to know of a statement before it runs (`../common/sql_scan.h`). */
static mp_obj_t pf_scan(mp_obj_t sql_in) {
    size_t n;
    const char *sql = mp_obj_str_get_data(sql_in, &n);
    pf_sql_scan_t scan = pf_scan_sql(sql, n);
    mp_obj_t items[3] = {mp_obj_new_str(scan.keyword, scan.keyword_len), MP_OBJ_NEW_SMALL_INT(scan.parameters),
        mp_obj_new_bool(scan.returning)};
    return mp_obj_new_tuple(3, items);
}
static MP_DEFINE_CONST_FUN_OBJ_1(pf_scan_obj, pf_scan);

/* A text the host returns by full length: try a stack buffer, then one of the full size. */
static mp_obj_t host_text(int (*get)(const char *, int, char *, int), const char *arg, int arg_len) {
    char small[256];
    int len = get(arg, arg_len, small, sizeof(small));
    if (len <= (int)sizeof(small)) {
        return mp_obj_new_str(small, len);
    }
    vstr_t vstr;
    vstr_init_len(&vstr, len);
    get(arg, arg_len, vstr.buf, len);
    return mp_obj_new_str_from_utf8_vstr(&vstr);
}

static int last_error_get(const char *unused, int unused_len, char *buf, int cap) {
    (void)unused;
    (void)unused_len;
    return host_last_error(buf, cap);
}

static mp_obj_t pf_last_error(void) {
    return host_text(last_error_get, NULL, 0);
}
static MP_DEFINE_CONST_FUN_OBJ_0(pf_last_error_obj, pf_last_error);

/* The whole message as JSON (msg.text with the empty path). */
static mp_obj_t pf_message(void) {
    return host_text(host_msg_text, "", 0);
}
static MP_DEFINE_CONST_FUN_OBJ_0(pf_message_obj, pf_message);

/* For sqlite3_native.c. */
void pf_tell_statement_line(void) {
    tell_statement_line();
}

mp_obj_t pf_last_error_text(void) {
    return pf_last_error();
}

mp_obj_t pf_message_text(void) {
    return pf_message();
}

/* `open` exists in the language but there are no files in the sandbox. */
static mp_obj_t pf_open(size_t n_args, const mp_obj_t *args, mp_map_t *kwargs) {
    (void)n_args;
    (void)args;
    (void)kwargs;
    mp_raise_msg(&mp_type_OSError, MP_ERROR_TEXT("open() is not available: a consumer has no files"));
}
MP_DEFINE_CONST_FUN_OBJ_KW(mp_builtin_open_obj, 1, pf_open);

/* After a traceback: the limit an exception means, named as the report names limits. */
static void print_exception(const mp_print_t *print, mp_obj_t exc) {
    mp_obj_print_exception(print, exc);
    if (mp_obj_is_subclass_fast(MP_OBJ_FROM_PTR(mp_obj_get_type(exc)), MP_OBJ_FROM_PTR(&mp_type_MemoryError))) {
        mp_printf(print, "The interpreter's heap (%u MiB) is full (limit \"interpreter heap\").\n",
            (unsigned)(PF_HEAP_BYTES / (1024 * 1024)));
    } else if (mp_obj_is_subclass_fast(MP_OBJ_FROM_PTR(mp_obj_get_type(exc)), MP_OBJ_FROM_PTR(&mp_type_RuntimeError))) {
        mp_obj_t args = mp_obj_exception_get_value(exc);
        if (mp_obj_is_str(args) && strstr(mp_obj_str_get_str(args), "recursion") != NULL) {
            mp_printf(print, "Recursion went deeper than the interpreter allows (limit \"recursion depth\").\n");
        }
    }
}

/* ---- the interpreter's life ---- */

void gc_collect(void) {
    gc_collect_start();
    volatile uintptr_t marker = 0;
    void *sp = (void *)&marker;
    uintptr_t top = (uintptr_t)MP_STATE_THREAD(stack_top);
    if (top > (uintptr_t)sp) {
        gc_collect_root((void **)sp, (top - (uintptr_t)sp) / sizeof(uintptr_t));
    }
    gc_collect_end();
}

void nlr_jump_fail(void *val) {
    (void)val;
    __builtin_trap();
}

void __assert_func(const char *file, int line, const char *func, const char *expr) {
    (void)file;
    (void)line;
    (void)func;
    (void)expr;
    __builtin_trap();
}

/* After the collection that ends loading: allocation starts in the free space after the last block
 * in use instead of in the holes the parser and compiler left. MicroPython's gc_alloc scans the
 * allocation table from its hint, and a multi-block allocation scanned the whole fragmented part
 * at every call (thousands of instructions per allocation, every delivery). The holes are used
 * again after the next collection, which starts over from the beginning. */
static void allocate_after_live_blocks(void) {
    mp_state_mem_area_t *area = &MP_STATE_MEM(area);
    area->gc_last_free_atb_index = area->gc_last_used_block / 4 + 1;
}

static void enter(void *top) {
    mp_stack_set_top(top);
    mp_stack_set_limit(PF_STACK_LIMIT_BYTES);
}

static void store(mp_obj_t dict, const char *name, mp_obj_t value) {
    mp_obj_dict_store(dict, MP_OBJ_NEW_QSTR(qstr_from_str(name)), value);
}

/* Runs `code` as the body of module `globals`. */
static void exec_in(const char *name, const char *code, size_t len, mp_obj_dict_t *globals) {
    /* The compiled code takes its globals from those in force when it is compiled. */
    mp_obj_dict_t *old_globals = mp_globals_get();
    mp_obj_dict_t *old_locals = mp_locals_get();
    mp_globals_set(globals);
    mp_locals_set(globals);
    mp_lexer_t *lex = mp_lexer_new_from_str_len(qstr_from_str(name), code, len, 0);
    qstr source_name = lex->source_name;
    mp_parse_tree_t tree = mp_parse(lex, MP_PARSE_FILE_INPUT);
    mp_obj_t module_fun = mp_compile(&tree, source_name, false);
    mp_call_function_0(module_fun);
    mp_globals_set(old_globals);
    mp_locals_set(old_locals);
}

/* Starts the interpreter and loads the sqlite3 module; 0 when it worked. */
EXPORT("pf_init") int pf_init(void) {
    volatile int top = 0;
    enter((void *)&top);
    gc_init(heap, heap + sizeof(heap));
    mp_init();
    consumer_file = qstr_from_str("consumer.py");
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        mp_obj_t module = mp_obj_new_module(qstr_from_str("sqlite3"));
        mp_obj_t dict = MP_OBJ_FROM_PTR(mp_obj_module_get_globals(module));
        store(dict, "_exec", MP_OBJ_FROM_PTR(&pf_exec_obj));
        store(dict, "_query_int", MP_OBJ_FROM_PTR(&pf_query_int_obj));
        store(dict, "_bind_int", MP_OBJ_FROM_PTR(&pf_bind_int_obj));
        store(dict, "_bind_text", MP_OBJ_FROM_PTR(&pf_bind_text_obj));
        store(dict, "_changes", MP_OBJ_FROM_PTR(&pf_changes_obj));
        store(dict, "_last_error", MP_OBJ_FROM_PTR(&pf_last_error_obj));
        store(dict, "_message", MP_OBJ_FROM_PTR(&pf_message_obj));
        store(dict, "_scan", MP_OBJ_FROM_PTR(&pf_scan_obj));
        pf_sqlite3_native_register(dict);
        exec_in("sqlite3.py", SQLITE3_PY, sizeof(SQLITE3_PY) - 1, mp_obj_module_get_globals(module));
        /* The lesson's function uses sqlite3.IntegrityError without importing it in its own
         * lines: the module is there from the start, as in the lesson's file. */
        store(MP_OBJ_FROM_PTR(mp_globals_get()), "sqlite3", module);
        /* Kept reachable for the collector: the module lives in the loaded-modules dict. */
        nlr_pop();
    } else {
        error_len = 0;
        mp_obj_print_exception(&error_print, MP_OBJ_FROM_PTR(nlr.ret_val));
        return 1;
    }
    gc_collect();
    allocate_after_live_blocks();
    initialised = 1;
    return 0;
}

/* The buffer the host writes `entry` + source into; 0 when they do not fit. */
EXPORT("pf_source") char *pf_source(int len) {
    if (len < 0 || len > (int)sizeof(source)) {
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

#include "log_module.h"

/* Loads the student's file: the first `entry_len` bytes of the buffer name the entry function,
 * the next `source_len` bytes are the source. 0 when it loaded and defines the entry function;
 * otherwise the error (a traceback) is at pf_error_ptr. */
EXPORT("pf_load") int pf_load(int entry_len, int source_len) {
    volatile int top = 0;
    enter((void *)&top);
    error_len = 0;
    if (!initialised || entry_len <= 0 || entry_len > PF_ENTRY_BYTES_MAX || source_len < 0 ||
        entry_len + source_len > (int)sizeof(source)) {
        error_strn(NULL, "bad load request", 16);
        return 1;
    }
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        mp_obj_dict_t *main = mp_globals_get();
        /* The broker and the mail provider, only in an exercise that declares them (glue/broker.py,
         * glue/mail.py): `import broker`, `import mail`, or the globals. Elsewhere nothing of them
         * is on the heap. */
        int world = host_world();
        if (world & PF_WORLD_BROKER) {
            mp_obj_t broker = mp_obj_new_module(qstr_from_str("broker"));
            mp_obj_t broker_dict = MP_OBJ_FROM_PTR(mp_obj_module_get_globals(broker));
            store(broker_dict, "_world_publish", MP_OBJ_FROM_PTR(&pf_publish_obj));
            exec_in("broker.py", BROKER_PY, sizeof(BROKER_PY) - 1, mp_obj_module_get_globals(broker));
            store(MP_OBJ_FROM_PTR(main), "broker", broker);
        }
        setup_log_module(main, world);
        if (world & PF_WORLD_MAIL) {
            mp_obj_t mail = mp_obj_new_module(qstr_from_str("mail"));
            mp_obj_t mail_dict = MP_OBJ_FROM_PTR(mp_obj_module_get_globals(mail));
            store(mail_dict, "_world_send_mail", MP_OBJ_FROM_PTR(&pf_send_mail_obj));
            exec_in("mail.py", MAIL_PY, sizeof(MAIL_PY) - 1, mp_obj_module_get_globals(mail));
            store(MP_OBJ_FROM_PTR(main), "mail", mail);
        }
        exec_in("consumer.py", source + entry_len, (size_t)source_len, main);
        mp_obj_t name = mp_obj_new_str(source, entry_len);
        mp_map_elem_t *elem = mp_map_lookup(&main->map, name, MP_MAP_LOOKUP);
        if (elem == NULL || !mp_obj_is_callable(elem->value)) {
            mp_raise_msg_varg(&mp_type_NameError,
                MP_ERROR_TEXT("consumer.py defines no function %s(con, msg)"), mp_obj_str_get_str(name));
        }
        entry_fn = elem->value;
        store(MP_OBJ_FROM_PTR(main), "__pf_entry__", entry_fn);
        nlr_pop();
        /* The parser's and compiler's garbage goes now, once, not in a later delivery of every
         * instance that starts from this state. */
        gc_collect();
        allocate_after_live_blocks();
    } else {
        print_exception(&error_print, MP_OBJ_FROM_PTR(nlr.ret_val));
        log_flush();
        return 1;
    }
    log_flush();
    return 0;
}

/* One delivery: pf_sqlite3_deliver(entry) returns 1 (True) or 0 (False); an exception is printed to
 * the log and the delivery ends with 2 (an error was raised: the message is not acked). */
EXPORT("verarbeite") int verarbeite(void) {
    volatile int top = 0;
    enter((void *)&top);
    if (entry_fn == MP_OBJ_NULL) {
        return 3;
    }
    int result = 2;
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        result = pf_sqlite3_deliver(entry_fn);
        nlr_pop();
    } else {
        print_exception(&mp_plat_print, MP_OBJ_FROM_PTR(nlr.ret_val));
        result = 2;
    }
    log_flush();
    return result;
}
