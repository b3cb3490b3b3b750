/* What an interpreter guest's database module needs to know of a statement before it runs,
 * scanned once in C (an interpreted loop over the characters costs far more fuel): its first
 * keyword in upper case, the number of parameters it uses (? and ?NNN outside strings and
 * comments), and whether it says RETURNING. Shared by the Python and the JavaScript guest. */

#ifndef PF_SQL_SCAN_H
#define PF_SQL_SCAN_H

#include <stddef.h>
#include <string.h>

/* Bytes of the first keyword kept; a longer word is no keyword (its length is 0). */
#define PF_KEYWORD_BYTES_MAX 16

typedef struct {
    char keyword[PF_KEYWORD_BYTES_MAX];
    size_t keyword_len;
    /* The highest parameter number the statement uses. */
    long parameters;
    int returning;
} pf_sql_scan_t;

static inline int pf_is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}

/* Where the comment that starts at `i` ends (`-- …` to the line's end, a block comment past its
 * closing mark); `i` itself when none starts there. */
static inline size_t pf_comment_end(const char *sql, size_t n, size_t i) {
    if (sql[i] == '-' && i + 1 < n && sql[i + 1] == '-') {
        while (i < n && sql[i] != '\n') {
            i++;
        }
        return i;
    }
    if (sql[i] == '/' && i + 1 < n && sql[i + 1] == '*') {
        i += 2;
        while (i + 1 < n && !(sql[i] == '*' && sql[i + 1] == '/')) {
            i++;
        }
        return i + 2;
    }
    return i;
}

static inline pf_sql_scan_t pf_scan_sql(const char *sql, size_t n) {
    pf_sql_scan_t scan = {{0}, 0, 0, 0};
    size_t i = 0;
    /* the first keyword */
    while (i < n) {
        char c = sql[i];
        size_t comment_end = pf_comment_end(sql, n, i);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '(') {
            i++;
        } else if (comment_end != i) {
            i = comment_end;
        } else {
            break;
        }
    }
    size_t w = 0;
    while (i < n && pf_is_word_char(sql[i]) && !(sql[i] >= '0' && sql[i] <= '9')) {
        if (w < PF_KEYWORD_BYTES_MAX) {
            char c = sql[i];
            scan.keyword[w++] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
        }
        i++;
    }
    scan.keyword_len = w == PF_KEYWORD_BYTES_MAX ? 0 : w;
    /* parameters and RETURNING, over the whole text */
    long count = 0;
    i = 0;
    while (i < n) {
        char c = sql[i];
        size_t comment_end = pf_comment_end(sql, n, i);
        if (c == '\'' || c == '"') {
            i++;
            while (i < n && sql[i] != c) {
                i++;
            }
            i++;
        } else if (comment_end != i) {
            i = comment_end;
        } else if (c == '?') {
            size_t j = i + 1;
            long number = 0;
            while (j < n && sql[j] >= '0' && sql[j] <= '9' && number < 100000) {
                number = number * 10 + (sql[j] - '0');
                j++;
            }
            if (j > i + 1) {
                scan.parameters = number > scan.parameters ? number : scan.parameters;
            } else {
                count++;
                scan.parameters = count > scan.parameters ? count : scan.parameters;
            }
            i = j;
        } else if (pf_is_word_char(c)) {
            size_t j = i;
            while (j < n && pf_is_word_char(sql[j])) {
                j++;
            }
            if (j - i == 9) {
                static const char upper[] = "RETURNING";
                int same = 1;
                for (size_t k = 0; k < 9; k++) {
                    char d = sql[i + k];
                    d = (d >= 'a' && d <= 'z') ? (char)(d - 32) : d;
                    same &= d == upper[k];
                }
                scan.returning |= same;
            }
            i = j;
        } else {
            i++;
        }
    }
    return scan;
}

/* Whether the statement's first keyword is `word` (in upper case). */
static inline int pf_scan_keyword_is(const pf_sql_scan_t *scan, const char *word) {
    size_t n = strlen(word);
    return scan->keyword_len == n && memcmp(scan->keyword, word, n) == 0;
}

/* Whether the statement writes rows (its changes count): INSERT, UPDATE, DELETE, REPLACE. */
static inline int pf_scan_writes(const pf_sql_scan_t *scan) {
    return pf_scan_keyword_is(scan, "INSERT") || pf_scan_keyword_is(scan, "UPDATE") ||
           pf_scan_keyword_is(scan, "DELETE") || pf_scan_keyword_is(scan, "REPLACE");
}

/* Whether the statement gives rows (it runs as a query): SELECT, WITH, VALUES, or RETURNING. */
static inline int pf_scan_gives_rows(const pf_sql_scan_t *scan) {
    return pf_scan_keyword_is(scan, "SELECT") || pf_scan_keyword_is(scan, "WITH") ||
           pf_scan_keyword_is(scan, "VALUES") || scan->returning;
}

#endif
