/* Between the glue (pruefstein.c) and the sqlite3 module's hot path in C (sqlite3_native.c). */
#ifndef PF_SQLITE3_NATIVE_H
#define PF_SQLITE3_NATIVE_H

#include "py/obj.h"

/* Of pruefstein.c: tells the host the line of consumer.py that makes the next statement; the
 * database's last error and the message (JSON), as str. */
void pf_tell_statement_line(void);
mp_obj_t pf_last_error_text(void);
mp_obj_t pf_message_text(void);

/* Of sqlite3_native.c: puts the native functions into the sqlite3 module's globals `dict` (before
 * sqlite3.py runs in them). */
void pf_sqlite3_native_register(mp_obj_t dict);
/* One delivery to `entry`: 1 (True) or 0 (False); raises what the delivery raised. */
int pf_sqlite3_deliver(mp_obj_t entry);

#endif
