/*
 * Your consumer for exercise 3 ("Idempotenten Konsumenten bauen"). Fill in `process` below, then
 *     ./build.sh
 *     pruefstein grade exercises/03-idempotenter-konsument graders/consumer/kits/c/build/consumer.wasm
 *
 * The message looks like {"id": 7, "body": {"kunde": "anna", "punkte": 50}};
 * the tables are in exercises/03-idempotenter-konsument/schema.sql.
 */
#include "pruefstein.h"

/* Runs inside one transaction (see verarbeite): return PS_PROCESSED to commit, anything else rolls back. */
static int process(void *unused) {
    (void)unused;
    /* TODO 1: remember the message id in the dedup table `gesehen`:
     *     ps_bind_int(1, ps_msg_int("id"));
     *     int status = ps_exec("INSERT INTO gesehen (msg_id) VALUES (?)");
     * TODO 2: status PS_DUPLICATE means: already processed -> return PS_ALREADY_PROCESSED;
     *         any other status than PS_OK is an error -> return PS_FAILED.
     * TODO 3: credit the points: read "body.kunde" with ps_msg_text and "body.punkte" with ps_msg_int,
     *         bind them and run "UPDATE punkte SET stand = stand + ? WHERE kunde = ?".
     *         If that fails (CHECK stand <= 1000), return PS_FAILED: the whole transaction rolls back.
     */
    ps_log("verarbeite is not written yet");
    return PS_FAILED;
}

PS_EXPORT("verarbeite") int verarbeite(void) {
    return ps_transaction(process, 0);
}
