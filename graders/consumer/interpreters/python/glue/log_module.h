/* The module `log` of an exercise whose event log keeps the offsets (glue/log.py over ABI v1.1's
 * world.commit_offset), kept apart from pruefstein.c, which includes it after its helpers. */
#include "log_py.h"

IMPORT("world", "commit_offset") int host_commit_offset(long long partition, long long offset);

/* The bit of env.pf_world for a log that keeps the offsets. */
#define PF_WORLD_LOG 4

/* An int as a machine word: TypeError for anything else (a bool, a float, a str), OverflowError for
 * an int beyond it. */
static long long log_int(mp_obj_t value) {
    if (!mp_obj_is_int(value) || value == mp_const_true || value == mp_const_false) {
        mp_raise_TypeError(MP_ERROR_TEXT("commit_offset takes int partition and offset"));
    }
    return mp_obj_is_small_int(value) ? MP_OBJ_SMALL_INT_VALUE(value) : mp_obj_int_get_checked(value);
}

/* world.commit_offset(partition, offset) for integers; the status code. */
static mp_obj_t pf_commit_offset(mp_obj_t partition, mp_obj_t offset) {
    long long p = log_int(partition);
    long long o = log_int(offset);
    tell_statement_line();
    return MP_OBJ_NEW_SMALL_INT(host_commit_offset(p, o));
}
static MP_DEFINE_CONST_FUN_OBJ_2(pf_commit_offset_obj, pf_commit_offset);

/* `import log` (and the global `log`) where the exercise's log keeps the offsets. */
static void setup_log_module(mp_obj_dict_t *main, int world) {
    if (!(world & PF_WORLD_LOG)) {
        return;
    }
    mp_obj_t log = mp_obj_new_module(qstr_from_str("log"));
    mp_obj_t log_dict = MP_OBJ_FROM_PTR(mp_obj_module_get_globals(log));
    store(log_dict, "_world_commit_offset", MP_OBJ_FROM_PTR(&pf_commit_offset_obj));
    exec_in("log.py", LOG_PY, sizeof(LOG_PY) - 1, mp_obj_module_get_globals(log));
    store(MP_OBJ_FROM_PTR(main), "log", log);
}
