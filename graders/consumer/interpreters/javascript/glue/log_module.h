/* The module `log` of an exercise whose event log keeps the offsets (glue/log.js over ABI v1.1's
 * world.commit_offset), kept apart from pruefstein.c, which includes it before its module loader. */
#include "log_js.h"

IMPORT("world", "commit_offset") int host_commit_offset(long long partition, long long offset);

/* The bit of env.pf_world for a log that keeps the offsets. */
#define PF_WORLD_LOG 4

/* ABI v1.1's world.commit_offset(partition, offset) for the module `log`; the status code. */
static JSValue js_commit_offset(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
    (void)this_val;
    int64_t partition, offset;
    if (argc < 2) {
        return JS_ThrowTypeError(c, "commitOffset needs partition and offset");
    }
    if (JS_ToInt64Ext(c, &partition, argv[0]) || JS_ToInt64Ext(c, &offset, argv[1])) {
        return JS_EXCEPTION;
    }
    host_statement_line(JS_PruefsteinCallerLine(c, consumer_file));
    return JS_NewInt32(c, host_commit_offset(partition, offset));
}
