/*
 * json_out.h — a small streaming JSON writer for the CLI's --json outputs.
 *
 * Streaming so that `dump --json` of a multi-gigabyte trace runs in constant memory; the
 * writer keeps only a stack of "is this the first member" bits. Commas, colons and (when
 * pretty) indentation are placed by the writer, so callers only say what comes next.
 * Strings are escaped to valid JSON whatever their bytes: quotes, backslash and control
 * characters are escaped, bytes that are not UTF-8 become \ufffd, and terminal-unsafe code
 * points (C1 controls, bidi overrides, U+2028/9) are written as \uXXXX so a JSON line
 * printed on a terminal cannot move the cursor or change colours.
 */
#ifndef JSON_OUT_H
#define JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_out {
    FILE *f;
    int pretty;                                  /* newlines and two-space indentation */
    int depth;                                   /* containers open */
    int after_key;                               /* a key was written; its value comes next */
    int misuse;                                  /* set when calls do not nest properly (a bug) */
    unsigned char has_items[JSON_MAX_DEPTH + 1]; /* per level: an item was written */
};

/* Starts a document on f. pretty: 1 for indented output, 0 for one line (JSON Lines). */
void json_init(struct json_out *j, FILE *f, int pretty);

void json_begin_object(struct json_out *j);
void json_end_object(struct json_out *j);
void json_begin_array(struct json_out *j);
void json_end_array(struct json_out *j);

/* A member name inside an object; the next call writes its value. */
void json_key(struct json_out *j, const char *key);

void json_string(struct json_out *j, const char *s);             /* NULL writes null */
void json_string_n(struct json_out *j, const char *s, size_t n); /* s may hold any bytes */
void json_u64(struct json_out *j, uint64_t v);
void json_i64(struct json_out *j, int64_t v);
void json_double(struct json_out *j, double v); /* NaN and infinities write null */
/* ns / 1000 with exactly three decimals ("-12.345"): microseconds from nanoseconds without
 * going through a double (fast, and exact at any magnitude). */
void json_ns_as_us(struct json_out *j, int64_t ns);
void json_bool(struct json_out *j, int v);
void json_null(struct json_out *j);

/* key + value in one call, for the common case. */
void json_kv_string(struct json_out *j, const char *key, const char *s);
void json_kv_u64(struct json_out *j, const char *key, uint64_t v);
void json_kv_i64(struct json_out *j, const char *key, int64_t v);
void json_kv_bool(struct json_out *j, const char *key, int v);
void json_kv_double(struct json_out *j, const char *key, double v);

/* Ends a top-level value (writes the newline). Returns 0, or -1 if the calls did not nest
 * (an unclosed container or a misplaced key: a bug in the caller). */
int json_finish(struct json_out *j);

#endif
