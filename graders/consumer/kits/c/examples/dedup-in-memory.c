/* expect-fail: duplicate-after-restart */
/* Mutant: decides "seen before?" from a set in the module's memory. It does record the id in
 * `gesehen`, but never asks the table. A duplicate on the same instance is caught; after a restart the
 * memory is empty and the points are credited twice. */
#include "pruefstein.h"

static ps_i64 seen[64];
static int seen_count;

static int credit(void *unused) {
    (void)unused;
    ps_bind_int(1, ps_msg_int("id"));
    if (ps_exec("INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)") != PS_OK) return PS_FAILED;
    char kunde[256];
    if (ps_msg_text("body.kunde", kunde, sizeof kunde) < 0) return PS_FAILED;
    ps_bind_int(1, ps_msg_int("body.punkte"));
    ps_bind_text(2, kunde);
    if (ps_exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?") != PS_OK) return PS_FAILED;
    return PS_PROCESSED;
}

PS_EXPORT("verarbeite") int verarbeite(void) {
    ps_i64 id = ps_msg_int("id");
    for (int i = 0; i < seen_count; i++) {
        if (seen[i] == id) return PS_ALREADY_PROCESSED;
    }
    int result = ps_transaction(credit, 0);
    if (result == PS_PROCESSED && seen_count < 64) seen[seen_count++] = id;
    return result;
}
