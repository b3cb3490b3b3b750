/* The pieces of reading a delivery's message in one pass over the host's JSON text that both
 * guests share: the cursor, white space, a literal word, a string without escapes. Each guest
 * builds its own interpreter's values with them, and hands any shape it does not take (an escape,
 * a fraction, a long integer, deep nesting) whole to its interpreter's own JSON parser. */

#ifndef PF_JSON_SCAN_H
#define PF_JSON_SCAN_H

#include <stddef.h>
#include <string.h>

/* Nesting deeper than this goes to the interpreter's own parser. */
#define PF_MESSAGE_DEPTH_MAX 32

typedef struct {
    const char *at;
    const char *end;
} pf_json_text;

static inline void pf_json_space(pf_json_text *in) {
    while (in->at < in->end && (*in->at == ' ' || *in->at == '\n' || *in->at == '\r' || *in->at == '\t')) {
        in->at++;
    }
}

/* Whether `word` (true, false, null) is next; past it if so. */
static inline int pf_json_word(pf_json_text *in, const char *word) {
    size_t len = strlen(word);
    if ((size_t)(in->end - in->at) < len || memcmp(in->at, word, len) != 0) {
        return 0;
    }
    in->at += len;
    return 1;
}

/* A string without escapes or control characters, `in` at its opening quote: where its text
 * starts, its length in `len`, and `in` past its closing quote; NULL for any other string. */
static inline const char *pf_json_string_text(pf_json_text *in, size_t *len) {
    const char *start = ++in->at;
    while (in->at < in->end && *in->at != '"') {
        if (*in->at == '\\' || (unsigned char)*in->at < 0x20) {
            return NULL;
        }
        in->at++;
    }
    if (in->at >= in->end) {
        return NULL;
    }
    *len = (size_t)(in->at - start);
    in->at++;
    return start;
}

/* What follows an item of an array or an object: a comma (PF_JSON_MORE, `in` past it), the
 * closing `close` (PF_JSON_CLOSED, `in` past it), or anything else (PF_JSON_BAD). */
#define PF_JSON_BAD 0
#define PF_JSON_MORE 1
#define PF_JSON_CLOSED 2

static inline int pf_json_after_item(pf_json_text *in, char close) {
    pf_json_space(in);
    if (in->at < in->end && *in->at == ',') {
        in->at++;
        return PF_JSON_MORE;
    }
    if (in->at < in->end && *in->at == close) {
        in->at++;
        return PF_JSON_CLOSED;
    }
    return PF_JSON_BAD;
}

#endif
