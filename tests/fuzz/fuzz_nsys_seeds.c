/*
 * fuzz_nsys_seeds.c — seeds for fuzz_nsys: real traces exported to the nsys schema
 * (ssi_nsys_export), their rows written in fuzz_nsys's input format (fuzz_nsys_rows.h).
 *
 *   fuzz_nsys_seeds OUTDIR TRACE...
 *
 * At most MAX_ROWS rows per table, so a seed stays a few KiB; text longer than 255 bytes is
 * cut (the format's limit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_nsys_rows.h"
#include "interop/ssi.h"

#define MAX_ROWS 40

static int dump_rows(sqlite3 *db, const struct fz_schema *s, FILE *f)
{
    for (size_t t = 0; t < s->n; t++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" LIMIT %d", s->name[t], MAX_ROWS);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) continue; /* not exported */
        if (sqlite3_column_count(st) != s->ncol[t]) {
            sqlite3_finalize(st);
            continue;
        }
        while (sqlite3_step(st) == SQLITE_ROW) {
            fputc((int)t, f);
            for (int c = 0; c < s->ncol[t]; c++)
                fz_put_value(f, st, c);
        }
        sqlite3_finalize(st);
    }
    return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_nsys_seeds OUTDIR TRACE...\n");
        return 2;
    }
    struct fz_schema s;
    if (fz_schema_init(&s) != 0) return 1;
    for (int i = 2; i < argc; i++) {
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        char db_path[4096], seed[4096], err[256] = "";
        snprintf(db_path, sizeof db_path, "%s/%s.sqlite", argv[1], base);
        snprintf(seed, sizeof seed, "%s/%s.rows", argv[1], base);
        unlink(db_path);
        if (ssi_nsys_export(argv[i], NULL, db_path, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_nsys_seeds: %s: %s\n", argv[i], err);
            return 1;
        }
        sqlite3 *db = NULL;
        FILE *f = fopen(seed, "wb");
        int rc = f && sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
                     ? dump_rows(db, &s, f)
                     : -1;
        if (f && fclose(f) != 0) rc = -1;
        sqlite3_close(db);
        unlink(db_path);
        if (rc != 0) {
            fprintf(stderr, "fuzz_nsys_seeds: %s: cannot write %s\n", argv[i], seed);
            return 1;
        }
    }
    sqlite3_free(s.image);
    return 0;
}
