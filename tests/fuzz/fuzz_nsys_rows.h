/*
 * fuzz_nsys_rows.h — the input format of fuzz_nsys: rows for the tables of the nsys export
 * schema (src/interop's ssi_nsys_schema, verbatim from nsys 2025.3.1), so that mutations
 * change rows of a well-formed database instead of SQLite's page format (SQLite is fuzzed by
 * its own project; what stepscope owns is what it does with the rows).
 *
 * Input: a sequence of rows. A row is one byte choosing the table (modulo the number of
 * tables), then one value per column of that table. A value is a tag byte (modulo 6):
 *   0 NULL   1 int8 (1 byte)   2 int64 (8 bytes LE)   3 double (8 bytes)
 *   4 text: a length byte L then L bytes (any bytes, NUL and invalid UTF-8 included)
 *   5 an edge-case integer: one byte indexing k_edge below
 * A row cut by the end of the input is dropped. Rows that break a constraint of the schema
 * (NOT NULL, PRIMARY KEY) are skipped by SQLite, as in a database nsys would not write.
 */
#ifndef FUZZ_NSYS_ROWS_H
#define FUZZ_NSYS_ROWS_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/ssi_nsys.h"

#define FZ_MAX_TABLES 128

struct fz_schema {
    size_t n;
    char name[FZ_MAX_TABLES][64];
    int ncol[FZ_MAX_TABLES];
    unsigned char *image; /* the empty database, serialized */
    sqlite3_int64 image_size;
};

/* clang-format off */
static const int64_t k_edge[] = {
    0, 1, -1, 2, 7, INT64_MAX, INT64_MIN, INT32_MAX, INT32_MIN, UINT32_MAX, 1ll << 24,
    (1ll << 48) + (7ll << 24) + 9, 1ll << 62, -(1ll << 40), 1000000000ll,
    59, 60, 34, /* NVTX event types: push/pop, start/end, mark */
};
/* clang-format on */
#define FZ_N_EDGE (sizeof k_edge / sizeof k_edge[0])

/* "CREATE TABLE NAME (" -> NAME */
static inline void fz_table_name(const char *create, char *out, size_t cap)
{
    const char *p = create + strlen("CREATE TABLE ");
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '(' && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* An in-memory database with every table of the schema, its table list and its image. */
static inline int fz_schema_init(struct fz_schema *s)
{
    sqlite3 *db;
    memset(s, 0, sizeof *s);
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return -1;
    sqlite3_exec(db, "PRAGMA page_size=512", NULL, NULL, NULL);
    for (size_t i = 0; i < ssi_nsys_n_schema && s->n < FZ_MAX_TABLES; i++) {
        if (strncmp(ssi_nsys_schema[i], "CREATE TABLE ", 13) != 0) {
            sqlite3_exec(db, ssi_nsys_schema[i], NULL, NULL, NULL); /* an index, a view */
            continue;
        }
        if (sqlite3_exec(db, ssi_nsys_schema[i], NULL, NULL, NULL) != SQLITE_OK) continue;
        fz_table_name(ssi_nsys_schema[i], s->name[s->n], sizeof s->name[0]);
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", s->name[s->n]);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) continue;
        s->ncol[s->n] = sqlite3_column_count(st);
        sqlite3_finalize(st);
        s->n++;
    }
    s->image = sqlite3_serialize(db, "main", &s->image_size, 0);
    sqlite3_close(db);
    return s->image && s->n ? 0 : -1;
}

struct fz_in {
    const uint8_t *p;
    size_t left;
};

static inline int fz_take(struct fz_in *in, void *dst, size_t n)
{
    if (in->left < n) return -1;
    memcpy(dst, in->p, n);
    in->p += n, in->left -= n;
    return 0;
}

/* Binds the next value of the input to parameter i; -1 when the input ends. */
static inline int fz_bind_value(sqlite3_stmt *st, int i, struct fz_in *in)
{
    uint8_t tag, b, len;
    int64_t v;
    double d;
    if (fz_take(in, &tag, 1)) return -1;
    switch (tag % 6) {
    case 0:
        return sqlite3_bind_null(st, i), 0;
    case 1:
        if (fz_take(in, &b, 1)) return -1;
        return sqlite3_bind_int64(st, i, (int8_t)b), 0;
    case 2:
        if (fz_take(in, &v, 8)) return -1;
        return sqlite3_bind_int64(st, i, v), 0;
    case 3:
        if (fz_take(in, &d, 8)) return -1;
        return sqlite3_bind_double(st, i, d), 0;
    case 4:
        if (fz_take(in, &len, 1) || in->left < len) return -1;
        sqlite3_bind_text(st, i, (const char *)in->p, len, SQLITE_TRANSIENT);
        in->p += len, in->left -= len;
        return 0;
    default:
        if (fz_take(in, &b, 1)) return -1;
        return sqlite3_bind_int64(st, i, k_edge[b % FZ_N_EDGE]), 0;
    }
}

/* Writes one value as fz_bind_value reads it (the seed maker's side). */
static inline void fz_put_value(FILE *f, sqlite3_stmt *st, int col)
{
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_NULL) {
        fputc(0, f);
    } else if (type == SQLITE_INTEGER) {
        int64_t v = sqlite3_column_int64(st, col);
        if (v >= -128 && v <= 127) {
            fputc(1, f), fputc((int)(uint8_t)(int8_t)v, f);
        } else {
            fputc(2, f), fwrite(&v, 8, 1, f);
        }
    } else if (type == SQLITE_FLOAT) {
        double d = sqlite3_column_double(st, col);
        fputc(3, f), fwrite(&d, 8, 1, f);
    } else {
        const unsigned char *t = sqlite3_column_text(st, col);
        int n = sqlite3_column_bytes(st, col);
        if (n > 255) n = 255;
        fputc(4, f), fputc(n, f);
        if (n) fwrite(t, 1, (size_t)n, f);
    }
}

#endif
