/* expect-fail: crash-points */
/* Mutant: the dedup row and the credit are two separate autocommit writes. A crash between them
 * leaves the id remembered but the points never credited: the redelivery is taken for a duplicate. */
#include "pruefstein.h"

PS_EXPORT("verarbeite") int verarbeite(void) {
    ps_bind_int(1, ps_msg_int("id"));
    int status = ps_exec("INSERT INTO gesehen (msg_id) VALUES (?)");
    if (status == PS_DUPLICATE) return PS_ALREADY_PROCESSED;
    if (status != PS_OK) return PS_FAILED;

    char kunde[256];
    if (ps_msg_text("body.kunde", kunde, sizeof kunde) < 0) return PS_FAILED;
    ps_bind_int(1, ps_msg_int("body.punkte"));
    ps_bind_text(2, kunde);
    if (ps_exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?") != PS_OK) return PS_FAILED;
    return PS_PROCESSED;
}
