/* The hot path of the Python guest's sqlite3 module in C: a statement of `execute`, the
 * connection's `commit`, `rollback`, `__enter__` and `__exit__`, and a delivery (the message, a
 * fresh connection, the call of the student's function and the check of its result). The same
 * steps as the Python they replace, in the same order and with the same errors (sqlite3.py keeps
 * that Python as the reference and slow path), for a part of the interpreter's fuel: a statement
 * cost about 110,000 instructions of interpreted Python (decision 0133).
 *
 * A case the fast path does not know (SQL that is not exactly a str, parameters that are not a
 * tuple or list of None, bool, small int or str, an isolation level that is not None or a str) is
 * handed, before anything has happened, to `Cursor._run`, which does what it always did; a call
 * of another shape (keywords, another number of arguments) to the Python method it replaced. */

#include <string.h>

#include "py/objtype.h"
#include "py/parsenum.h"
#include "py/runtime.h"

#include "json_scan.h"
#include "sql_scan.h"
#include "sqlite3_native.h"

#define IMPORT(m, n) __attribute__((import_module(m), import_name(n)))

IMPORT("db", "bind_int") void host_bind_int(int index, long long value);
IMPORT("db", "bind_text") void host_bind_text(int index, const char *ptr, int len);
IMPORT("db", "exec") int host_exec(const char *sql, int len);
IMPORT("db", "query_int") int host_query_int(const char *sql, int len, long long *out);
IMPORT("db", "changes") long long host_changes(void);

/* Slots of a Cursor's or Connection's attribute table made in C: their seven or five and room. */
#define PF_INSTANCE_ATTRIBUTES 8

/* The status codes of ABI v1's db.exec and db.query_int. */
#define PF_OK 0
#define PF_DUPLICATE 1
#define PF_CONSTRAINT 2
#define PF_NO_ROW 4

/* The module's globals (reachable: the module is in the loaded-modules dict). */
static mp_obj_dict_t *globals = NULL;
static mp_obj_t json_loads = MP_OBJ_NULL;

/* Attribute names, interned once in pf_sqlite3_native_init. */
static qstr q_connection, q_closed, q_in_transaction, q_isolation_level, q_rows, q_rowcount, q_wrote,
    q_lastrowid, q_run, q_arraysize, q_description, q_row_factory, q_total_changes, q_bad_result, q_Cursor,
    q_Connection;

static mp_obj_t global(qstr name) {
    return mp_obj_dict_get(MP_OBJ_FROM_PTR(globals), MP_OBJ_NEW_QSTR(name));
}

/* Raises the module's exception class `name` (looked up now, as sqlite3.py's code does) with
 * `message`. */
static NORETURN void raise_named(const char *name, mp_obj_t message) {
    nlr_raise(mp_make_raise_obj(mp_call_function_1(global(qstr_from_str(name)), message)));
}

/* sqlite3.py's _raise_for: the database's error as IntegrityError or OperationalError. */
static NORETURN void raise_for(int status) {
    mp_obj_t message = pf_last_error_text();
    raise_named(status == PF_DUPLICATE || status == PF_CONSTRAINT ? "IntegrityError" : "OperationalError",
        message);
}

/* The methods the natives replace, in their order in `natives` below: each native hands a call of
 * a shape it does not take (keywords, another number of arguments) to the Python method, which
 * sqlite3.py keeps as the class's `_py_<name>` (so the collector sees it too). */
enum { CURSOR_EXECUTE, CONNECTION_EXECUTE, COMMIT, ROLLBACK, ENTER, EXIT, NATIVES };
static mp_obj_t slow[NATIVES];
/* The classes as sqlite3.py made them: an instance of one is made in C only while the module's
 * name still means it (else the name is called, as the Python does). The slow methods and the
 * classes are also kept in a tuple in the loaded-modules dict, a root of the collector no import
 * reaches, so that nothing a student rebinds frees them. */
static mp_obj_t cursor_class = MP_OBJ_NULL;
static mp_obj_t connection_class = MP_OBJ_NULL;

static mp_obj_t call_slow(int which, size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    size_t n_kw = kw->used;
    mp_obj_t *all = m_new(mp_obj_t, n_args + 2 * n_kw);
    memcpy(all, args, n_args * sizeof(mp_obj_t));
    size_t j = n_args;
    for (size_t i = 0; i < kw->alloc; i++) {
        if (mp_map_slot_is_filled(kw, i)) {
            all[j++] = kw->table[i].key;
            all[j++] = kw->table[i].value;
        }
    }
    return mp_call_function_n_kw(slow[which], n_args, n_kw, all);
}

/* Whether a call has the shape the native takes: no keywords, `min` to `max` arguments. */
static int shaped(size_t n_args, const mp_map_t *kw, size_t min, size_t max) {
    return kw->used == 0 && n_args >= min && n_args <= max;
}

/* Connection._check. */
static void check_open(mp_obj_t con) {
    if (mp_obj_is_true(mp_load_attr(con, q_closed))) {
        static const char closed[] = "Cannot operate on a closed database.";
        raise_named("ProgrammingError", mp_obj_new_str(closed, sizeof(closed) - 1));
    }
}

/* `" TO " in sql.upper()`, for ASCII letters (the only ones whose upper case is T or O). */
static int says_to(const char *sql, size_t n) {
    for (size_t i = 0; i + 4 <= n; i++) {
        if (sql[i] == ' ' && (sql[i + 1] | 0x20) == 't' && (sql[i + 2] | 0x20) == 'o' && sql[i + 3] == ' ') {
            return 1;
        }
    }
    return 0;
}

/* Connection._track after a statement that ran. */
static void track(mp_obj_t con, const pf_sql_scan_t *scan, const char *sql, size_t n) {
    if (pf_scan_keyword_is(scan, "BEGIN") ||
        (pf_scan_keyword_is(scan, "SAVEPOINT") && !mp_obj_is_true(mp_load_attr(con, q_in_transaction)))) {
        mp_store_attr(con, q_in_transaction, mp_const_true);
    } else if (pf_scan_keyword_is(scan, "COMMIT") || pf_scan_keyword_is(scan, "END")) {
        mp_store_attr(con, q_in_transaction, mp_const_false);
    } else if (pf_scan_keyword_is(scan, "ROLLBACK") && !says_to(sql, n)) {
        mp_store_attr(con, q_in_transaction, mp_const_false);
    }
}

/* Connection._statement for a statement of the glue's own (BEGIN, COMMIT, ROLLBACK). */
static void statement(mp_obj_t con, const char *sql, size_t n) {
    pf_tell_statement_line();
    int status = host_exec(sql, (int)n);
    if (status != PF_OK) {
        raise_for(status);
    }
    pf_sql_scan_t scan = pf_scan_sql(sql, n);
    track(con, &scan, sql, n);
}

/* Whether the fast path binds every value as Cursor._run would: None, bool, small int, str. */
static int bindable(size_t n, const mp_obj_t *values) {
    for (size_t i = 0; i < n; i++) {
        mp_obj_t v = values[i];
        if (!(v == mp_const_none || v == mp_const_true || v == mp_const_false || mp_obj_is_small_int(v) ||
                mp_obj_is_str(v))) {
            return 0;
        }
    }
    return 1;
}

static void bind(size_t n, const mp_obj_t *values) {
    for (size_t i = 0; i < n; i++) {
        mp_obj_t v = values[i];
        int index = (int)i + 1;
        if (v == mp_const_none) {
            continue;
        } else if (v == mp_const_true || v == mp_const_false) {
            host_bind_int(index, v == mp_const_true ? 1 : 0);
        } else if (mp_obj_is_small_int(v)) {
            host_bind_int(index, MP_OBJ_SMALL_INT_VALUE(v));
        } else {
            size_t len;
            const char *s = mp_obj_str_get_data(v, &len);
            host_bind_text(index, s, (int)len);
        }
    }
}

/* The implicit BEGIN before a write outside a transaction; 0 when the fast path cannot tell the
 * statement (an isolation level that is neither None nor a str). */
static int implicit_begin_known(mp_obj_t con, const pf_sql_scan_t *scan) {
    if (!pf_scan_writes(scan)) {
        return 1;
    }
    mp_obj_t level = mp_load_attr(con, q_isolation_level);
    return level == mp_const_none || mp_obj_is_str(level) || mp_obj_is_true(mp_load_attr(con, q_in_transaction));
}

static void implicit_begin(mp_obj_t con, const pf_sql_scan_t *scan) {
    if (!pf_scan_writes(scan) || mp_obj_is_true(mp_load_attr(con, q_in_transaction))) {
        return;
    }
    mp_obj_t level = mp_load_attr(con, q_isolation_level);
    if (level == mp_const_none) {
        return;
    }
    size_t len;
    const char *text = mp_obj_str_get_data(level, &len);
    vstr_t begin;
    vstr_init(&begin, 6 + len + 1);
    vstr_add_str(&begin, "BEGIN");
    if (len > 0) {
        vstr_add_char(&begin, ' ');
        vstr_add_strn(&begin, text, len);
    }
    statement(con, begin.buf, begin.len);
    vstr_clear(&begin);
    mp_store_attr(con, q_in_transaction, mp_const_true);
}

/* The statement itself, after binding: a query keeps its row, a write its changes. */
static void run_statement(mp_obj_t cursor, mp_obj_t con, const pf_sql_scan_t *scan, const char *sql, size_t n) {
    mp_store_attr(cursor, q_rows, mp_obj_new_list(0, NULL));
    mp_store_attr(cursor, q_rowcount, MP_OBJ_NEW_SMALL_INT(-1));
    mp_store_attr(cursor, q_wrote, mp_const_false);
    pf_tell_statement_line();
    if (pf_scan_gives_rows(scan)) {
        long long value = 0;
        int status = host_query_int(sql, (int)n, &value);
        if (status == PF_OK) {
            mp_obj_t row = mp_obj_new_tuple(1, (mp_obj_t[]){mp_obj_new_int_from_ll(value)});
            mp_store_attr(cursor, q_rows, mp_obj_new_list(1, &row));
        } else if (status != PF_NO_ROW) {
            raise_for(status);
        }
    } else {
        int status = host_exec(sql, (int)n);
        if (status != PF_OK) {
            raise_for(status);
        }
        track(con, scan, sql, n);
        if (pf_scan_writes(scan)) {
            mp_store_attr(cursor, q_rowcount, mp_obj_new_int_from_ll(host_changes()));
            int wrote = pf_scan_keyword_is(scan, "INSERT") || pf_scan_keyword_is(scan, "REPLACE");
            mp_store_attr(cursor, q_wrote, mp_obj_new_bool(wrote));
        }
    }
    mp_store_attr(cursor, q_lastrowid, mp_const_none);
}

/* Cursor.execute(sql, parameters=()): Cursor._run's steps, or Cursor._run itself for a case the
 * fast path does not know. */
static mp_obj_t cursor_execute(size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    if (!shaped(n_args, kw, 2, 3)) {
        return call_slow(CURSOR_EXECUTE, n_args, args, kw);
    }
    mp_obj_t cursor = args[0];
    mp_obj_t sql_in = args[1];
    mp_obj_t parameters = n_args > 2 ? args[2] : mp_const_empty_tuple;
    mp_obj_t con = mp_load_attr(cursor, q_connection);
    check_open(con);
    size_t n_values = 0;
    mp_obj_t *values = NULL;
    int known = mp_obj_is_str(sql_in) &&
                (mp_obj_is_exact_type(parameters, &mp_type_tuple) || mp_obj_is_exact_type(parameters, &mp_type_list));
    if (known) {
        mp_obj_get_array(parameters, &n_values, &values);
        known = bindable(n_values, values);
    }
    size_t n;
    const char *sql = known ? mp_obj_str_get_data(sql_in, &n) : NULL;
    pf_sql_scan_t scan;
    if (known) {
        scan = pf_scan_sql(sql, n);
        known = implicit_begin_known(con, &scan);
    }
    if (!known) {
        return mp_call_function_n_kw(mp_load_attr(cursor, q_run), 2, 0, (mp_obj_t[]){sql_in, parameters});
    }
    if (scan.parameters < 0 || (size_t)scan.parameters != n_values) {
        vstr_t text;
        vstr_init(&text, 128);
        vstr_printf(&text,
            "Incorrect number of bindings supplied. The current statement uses %d, and there are %d supplied.",
            (int)scan.parameters, (int)n_values);
        raise_named("ProgrammingError", mp_obj_new_str_from_vstr(&text));
    }
    implicit_begin(con, &scan);
    bind(n_values, values);
    run_statement(cursor, con, &scan, sql, n);
    return cursor;
}
static MP_DEFINE_CONST_FUN_OBJ_KW(cursor_execute_obj, 0, cursor_execute);

/* An instance of `cls` (of sqlite3.py, no native base) without running its __init__, its
 * attributes' table made at once for the attributes __init__ sets (growing it store by store cost
 * an allocation each). */
static mp_obj_t new_instance(mp_obj_t cls) {
    const mp_obj_type_t *native_base = NULL;
    mp_obj_instance_t *o = mp_obj_new_instance(MP_OBJ_TO_PTR(cls), &native_base);
    mp_map_init(&o->members, PF_INSTANCE_ATTRIBUTES);
    return MP_OBJ_FROM_PTR(o);
}

/* A Cursor of `con` as Cursor.__init__ makes it, without running Python. */
static mp_obj_t new_cursor(mp_obj_t con) {
    mp_obj_t cls = global(q_Cursor);
    if (cls != cursor_class) {
        return mp_call_function_1(cls, con);
    }
    mp_obj_t cursor = new_instance(cls);
    mp_store_attr(cursor, q_connection, con);
    mp_store_attr(cursor, q_arraysize, MP_OBJ_NEW_SMALL_INT(1));
    mp_store_attr(cursor, q_description, mp_const_none);
    mp_store_attr(cursor, q_rowcount, MP_OBJ_NEW_SMALL_INT(-1));
    mp_store_attr(cursor, q_lastrowid, mp_const_none);
    mp_store_attr(cursor, q_rows, mp_obj_new_list(0, NULL));
    mp_store_attr(cursor, q_wrote, mp_const_false);
    return cursor;
}

/* Connection.execute(sql, parameters=()): Cursor(self).execute(sql, parameters). */
static mp_obj_t connection_execute(size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    if (!shaped(n_args, kw, 2, 3)) {
        return call_slow(CONNECTION_EXECUTE, n_args, args, kw);
    }
    mp_obj_t call[3] = {new_cursor(args[0]), args[1], n_args > 2 ? args[2] : mp_const_empty_tuple};
    return cursor_execute(3, call, kw);
}
static MP_DEFINE_CONST_FUN_OBJ_KW(connection_execute_obj, 0, connection_execute);

/* Connection.commit and Connection.rollback. */
static void end_transaction(mp_obj_t con, const char *sql) {
    check_open(con);
    if (mp_obj_is_true(mp_load_attr(con, q_in_transaction))) {
        statement(con, sql, strlen(sql));
        mp_store_attr(con, q_in_transaction, mp_const_false);
    }
}

static mp_obj_t connection_commit(size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    if (!shaped(n_args, kw, 1, 1)) {
        return call_slow(COMMIT, n_args, args, kw);
    }
    end_transaction(args[0], "COMMIT");
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_KW(connection_commit_obj, 0, connection_commit);

static mp_obj_t connection_rollback(size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    if (!shaped(n_args, kw, 1, 1)) {
        return call_slow(ROLLBACK, n_args, args, kw);
    }
    end_transaction(args[0], "ROLLBACK");
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_KW(connection_rollback_obj, 0, connection_rollback);

static mp_obj_t connection_enter(size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    if (!shaped(n_args, kw, 1, 1)) {
        return call_slow(ENTER, n_args, args, kw);
    }
    check_open(args[0]);
    return args[0];
}
static MP_DEFINE_CONST_FUN_OBJ_KW(connection_enter_obj, 0, connection_enter);

/* Connection.__exit__: commit after success (rolling back and raising again when the commit
 * fails with an Exception), roll back after an exception; the exception is never swallowed. */
static mp_obj_t connection_exit(size_t n_args, const mp_obj_t *args, mp_map_t *kw) {
    if (!shaped(n_args, kw, 4, 4)) {
        return call_slow(EXIT, n_args, args, kw);
    }
    mp_obj_t con = args[0];
    if (args[1] != mp_const_none) {
        end_transaction(con, "ROLLBACK");
        return mp_const_false;
    }
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        end_transaction(con, "COMMIT");
        nlr_pop();
    } else {
        mp_obj_t exc = MP_OBJ_FROM_PTR(nlr.ret_val);
        if (mp_obj_is_subclass_fast(MP_OBJ_FROM_PTR(mp_obj_get_type(exc)), MP_OBJ_FROM_PTR(&mp_type_Exception))) {
            end_transaction(con, "ROLLBACK");
        }
        nlr_jump(nlr.ret_val);
    }
    return mp_const_false;
}
static MP_DEFINE_CONST_FUN_OBJ_KW(connection_exit_obj, 0, connection_exit);

/* A Connection as Connection.__init__ makes it, without running Python. */
static mp_obj_t new_connection(void) {
    mp_obj_t cls = global(q_Connection);
    if (cls != connection_class) {
        return mp_call_function_0(cls);
    }
    mp_obj_t con = new_instance(cls);
    mp_store_attr(con, q_in_transaction, mp_const_false);
    mp_store_attr(con, q_isolation_level, MP_OBJ_NEW_QSTR(MP_QSTR_));
    mp_store_attr(con, q_row_factory, mp_const_none);
    mp_store_attr(con, q_total_changes, MP_OBJ_NEW_SMALL_INT(0));
    mp_store_attr(con, q_closed, mp_const_false);
    return con;
}

/* The message as Python objects in one pass over the host's JSON text, built with the calls
 * json.loads makes (mp_obj_new_str, mp_parse_num_integer, a dict and a list filled in the text's
 * order, so that a dict iterates alike), for the shapes the host sends: objects, arrays, strings
 * without escapes, integers, true, false, null. Anything else (an escape, a fraction or an
 * exponent, nesting deeper than PF_MESSAGE_DEPTH_MAX, text that is not JSON) gives MP_OBJ_NULL
 * before any object escapes, and json.loads reads the whole text as it always did. */
static mp_obj_t json_value(pf_json_text *in, int depth);

/* A string without escapes, `in` at its opening quote. */
static mp_obj_t json_string(pf_json_text *in) {
    size_t len = 0;
    const char *text = pf_json_string_text(in, &len);
    return text ? mp_obj_new_str(text, len) : MP_OBJ_NULL;
}

static mp_obj_t json_integer(pf_json_text *in) {
    const char *start = in->at;
    if (*in->at == '-') {
        in->at++;
    }
    const char *digits = in->at;
    while (in->at < in->end && *in->at >= '0' && *in->at <= '9') {
        in->at++;
    }
    bool fraction = in->at < in->end && (*in->at == '.' || *in->at == 'e' || *in->at == 'E');
    if (in->at == digits || fraction || in->at - digits > 18) {
        return MP_OBJ_NULL;
    }
    return mp_parse_num_integer(start, (size_t)(in->at - start), 10, NULL);
}

static mp_obj_t json_array(pf_json_text *in, int depth) {
    in->at++;
    mp_obj_t list = mp_obj_new_list(0, NULL);
    pf_json_space(in);
    if (in->at < in->end && *in->at == ']') {
        in->at++;
        return list;
    }
    for (;;) {
        mp_obj_t item = json_value(in, depth + 1);
        if (item == MP_OBJ_NULL) {
            return MP_OBJ_NULL;
        }
        mp_obj_list_append(list, item);
        int after = pf_json_after_item(in, ']');
        if (after == PF_JSON_MORE) {
            continue;
        }
        if (after == PF_JSON_CLOSED) {
            return list;
        }
        return MP_OBJ_NULL;
    }
}

static mp_obj_t json_object(pf_json_text *in, int depth) {
    in->at++;
    mp_obj_t dict = mp_obj_new_dict(0);
    pf_json_space(in);
    if (in->at < in->end && *in->at == '}') {
        in->at++;
        return dict;
    }
    for (;;) {
        pf_json_space(in);
        if (in->at >= in->end || *in->at != '"') {
            return MP_OBJ_NULL;
        }
        mp_obj_t key = json_string(in);
        pf_json_space(in);
        if (key == MP_OBJ_NULL || in->at >= in->end || *in->at != ':') {
            return MP_OBJ_NULL;
        }
        in->at++;
        mp_obj_t value = json_value(in, depth + 1);
        if (value == MP_OBJ_NULL) {
            return MP_OBJ_NULL;
        }
        mp_obj_dict_store(dict, key, value);
        int after = pf_json_after_item(in, '}');
        if (after == PF_JSON_MORE) {
            continue;
        }
        if (after == PF_JSON_CLOSED) {
            return dict;
        }
        return MP_OBJ_NULL;
    }
}

static mp_obj_t json_value(pf_json_text *in, int depth) {
    pf_json_space(in);
    if (in->at >= in->end || depth > PF_MESSAGE_DEPTH_MAX) {
        return MP_OBJ_NULL;
    }
    switch (*in->at) {
        case '{':
            return json_object(in, depth);
        case '[':
            return json_array(in, depth);
        case '"':
            return json_string(in);
        case 't':
            return pf_json_word(in, "true") ? mp_const_true : MP_OBJ_NULL;
        case 'f':
            return pf_json_word(in, "false") ? mp_const_false : MP_OBJ_NULL;
        case 'n':
            return pf_json_word(in, "null") ? mp_const_none : MP_OBJ_NULL;
        default:
            return (*in->at == '-' || (*in->at >= '0' && *in->at <= '9')) ? json_integer(in) : MP_OBJ_NULL;
    }
}

/* The delivery's message: parsed in one pass where it can be, else by json.loads. */
static mp_obj_t delivery_message(void) {
    mp_obj_t text = pf_message_text();
    size_t len;
    const char *bytes = mp_obj_str_get_data(text, &len);
    pf_json_text in = {bytes, bytes + len};
    mp_obj_t value = json_value(&in, 0);
    pf_json_space(&in);
    if (value == MP_OBJ_NULL || in.at != in.end) {
        return mp_call_function_1(json_loads, text);
    }
    return value;
}

int pf_sqlite3_deliver(mp_obj_t entry) {
    mp_obj_t msg = delivery_message();
    mp_obj_t result = mp_call_function_2(entry, new_connection(), msg);
    if (result == mp_const_true) {
        return 1;
    }
    if (result == mp_const_false) {
        return 0;
    }
    /* sqlite3.py's _bad_result raises the TypeError that names the value. */
    mp_call_function_1(global(q_bad_result), result);
    return 2;
}

/* sqlite3.py's `_native(Cursor, Connection)`: each method below becomes a native (a closure over
 * it, so that it binds self as a Python method does), the Python method is kept as `_py_<name>`. */
static mp_obj_t native(mp_obj_t cursor_in, mp_obj_t connection_in) {
    static const struct {
        int cursor;
        const char *name;
        const mp_obj_base_t *fun;
    } natives[NATIVES] = {
        [CURSOR_EXECUTE] = {1, "execute", &cursor_execute_obj.base},
        [CONNECTION_EXECUTE] = {0, "execute", &connection_execute_obj.base},
        [COMMIT] = {0, "commit", &connection_commit_obj.base},
        [ROLLBACK] = {0, "rollback", &connection_rollback_obj.base},
        [ENTER] = {0, "__enter__", &connection_enter_obj.base},
        [EXIT] = {0, "__exit__", &connection_exit_obj.base},
    };
    vstr_t name;
    vstr_init(&name, 16);
    for (int i = 0; i < NATIVES; i++) {
        mp_obj_t cls = natives[i].cursor ? cursor_in : connection_in;
        qstr method = qstr_from_str(natives[i].name);
        slow[i] = mp_load_attr(cls, method);
        vstr_reset(&name);
        vstr_add_str(&name, "_py_");
        vstr_add_str(&name, natives[i].name);
        mp_store_attr(cls, qstr_from_strn(name.buf, name.len), slow[i]);
        mp_store_attr(cls, method, mp_obj_new_closure(MP_OBJ_FROM_PTR(natives[i].fun), 0, NULL));
    }
    vstr_clear(&name);
    cursor_class = cursor_in;
    connection_class = connection_in;
    mp_obj_t kept[NATIVES + 2];
    memcpy(kept, slow, sizeof(slow));
    kept[NATIVES] = cursor_in;
    kept[NATIVES + 1] = connection_in;
    mp_obj_dict_store(MP_OBJ_FROM_PTR(&MP_STATE_VM(mp_loaded_modules_dict)),
        MP_OBJ_NEW_QSTR(qstr_from_str("sqlite3 native")), mp_obj_new_tuple(NATIVES + 2, kept));
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(native_obj, native);

void pf_sqlite3_native_register(mp_obj_t dict) {
    mp_obj_dict_store(dict, MP_OBJ_NEW_QSTR(qstr_from_str("_native")), MP_OBJ_FROM_PTR(&native_obj));
    globals = MP_OBJ_TO_PTR(dict);
    json_loads = mp_load_attr(mp_import_name(MP_QSTR_json, mp_const_none, MP_OBJ_NEW_SMALL_INT(0)), MP_QSTR_loads);
    q_connection = qstr_from_str("connection");
    q_closed = qstr_from_str("_closed");
    q_in_transaction = qstr_from_str("in_transaction");
    q_isolation_level = qstr_from_str("isolation_level");
    q_rows = qstr_from_str("_rows");
    q_rowcount = qstr_from_str("rowcount");
    q_wrote = qstr_from_str("_wrote");
    q_lastrowid = qstr_from_str("_lastrowid");
    q_run = qstr_from_str("_run");
    q_arraysize = qstr_from_str("arraysize");
    q_description = qstr_from_str("description");
    q_row_factory = qstr_from_str("row_factory");
    q_total_changes = qstr_from_str("total_changes");
    q_bad_result = qstr_from_str("_bad_result");
    q_Cursor = qstr_from_str("Cursor");
    q_Connection = qstr_from_str("Connection");
}
