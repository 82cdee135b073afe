/*
 * ssi_nsys_im.h — the state of the nsys SQLite reader, shared by its files:
 * ssi_nsys_import.c (opening and checking the database, the process, the header records, the
 * merge of the tables in time order) and ssi_nsys_import_rows.c (one row -> trace records,
 * every value checked).
 *
 * Nothing in the database is trusted: a missing table or column, a NULL in a column the schema
 * declares NOT NULL, text where an integer belongs, a value out of range or an end before its
 * start stops the import with one line naming the table, the row (rowid) and the column.
 */
#ifndef SSI_NSYS_IM_H
#define SSI_NSYS_IM_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/sst_writer.h"

/* One column a reader wants: required columns must exist; optional ones read as NULL when
 * the table lacks them. */
struct im_col {
    const char *name;
    int required;
};

/* The tables read in time order, each through its own sorted cursor. */
enum im_src { IM_CLOSE, IM_KERNEL, IM_MEMCPY, IM_MEMSET, IM_SYNC, IM_RUNTIME, IM_OPEN, IM_NSRC };

#define IM_SAME_TIME 64 /* rows of one time a cursor remembers, to find exact repeats */

struct im_cursor {
    enum im_src src;
    const char *table;
    const struct im_col *cols;
    size_t n_cols;
    sqlite3_stmt *st;
    int has;     /* a current row */
    int64_t key; /* its time */
    int64_t rowid;
    /* the rows read at time same_key, hashed over every column but the rowid: a row equal to
     * one of them is a repeat (the cursor is sorted by time, so repeats meet here) */
    int64_t same_key;
    uint64_t same[IM_SAME_TIME];
    size_t n_same;
};

/* key -> value map of 64-bit integers (open addressing; key 0 is stored aside). */
struct im_map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap, n;
    int has_zero;
    uint64_t zero_val;
};
int im_map_put(struct im_map *m, uint64_t key, uint64_t val);
int im_map_get(const struct im_map *m, uint64_t key, uint64_t *val);
void im_map_free(struct im_map *m);

struct im_frame { /* an NVTX push waiting for its pop (for STEP records) */
    uint8_t is_step, source;
    uint64_t number;
};

struct im_stack { /* pushes of one thread in one domain */
    uint32_t tid;
    int64_t domain;
    size_t n, cap;
    struct im_frame *v;
};

struct im {
    sqlite3 *db;
    struct sst_writer *w;
    char *err;
    size_t errlen;
    int rc;
    uint32_t pid;        /* the process imported */
    int filter_pid;      /* rows of other processes are skipped */
    int64_t n_processes; /* processes with kernels in the file */
    uint64_t t_min, t_max;
    uint64_t start_ns; /* the trace header's start (session start) */
    struct im_cursor cur[IM_NSRC];
    sqlite3_stmt *string_stmt;
    struct im_map strings;   /* nsys StringIds id -> trace string id */
    struct im_map api_names; /* nameId -> domain << 32 | cbid, or UINT64_MAX when unknown */
    struct im_map async;     /* correlationId -> 1 async copy/memset API, 0 blocking */
    struct im_map domains;   /* domainId -> trace string id of its name */
    struct im_stack *stacks;
    size_t n_stacks, cap_stacks;
    uint64_t step_ordinal;
    uint32_t step_domain; /* trace string id of "stepscope" (0: not seen) */
    uint32_t step_text;   /* of "step" */
    uint64_t skipped_api, unknown_api;
    char **meta; /* STEPSCOPE_* rows of META_DATA_CAPTURE: key, value, key, value... */
    size_t n_meta;
    /* damage (issue #41), written as DAMAGE records after the rows: the file's own check
     * (PRAGMA quick_check), rows repeated exactly (left out) */
    char integrity[160]; /* the check's first complaint; "" when the file passed */
    uint64_t repeats;
    char first_repeat[96];
};

/* Sets m->rc and the message (first error wins); returns m->rc. */
int im_fail(struct im *m, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads column i of the cursor's current row as an integer. nullable: NULL gives dflt.
 * Text, blobs, reals, NULL in a required value and values outside [lo, hi] are errors. */
int im_int(struct im *m, const struct im_cursor *c, int i, int nullable, int64_t dflt, int64_t lo,
           int64_t hi, int64_t *out);
/* Column i as text (NULL when SQL NULL; an error when not text). */
int im_text(struct im *m, const struct im_cursor *c, int i, const char **out, size_t *len);

/* The most columns a reader asks of one table (im_columns' have[]). */
#define IM_MAX_COLS 32
/* have[i] = 1 when table has the column cols[i].name, else 0 (have[0], the rowid: 1); one
 * query for all n <= IM_MAX_COLS columns. */
void im_columns(struct im *m, const char *table, const struct im_col *cols, size_t n,
                unsigned char *have);

/* The trace string id of a StringIds id (interned on first use); 0 after an error. */
uint32_t im_string(struct im *m, const struct im_cursor *c, const char *col, int64_t id);
uint32_t im_intern(struct im *m, const char *s, size_t len);

/* The current row of a cursor as trace records (ssi_nsys_import_rows.c). */
int im_emit(struct im *m, struct im_cursor *c);

void im_stacks_free(struct im *m);

/* ssi_nsys_import_meta.c: what comes before the rows. im_session reads the capture's
 * facts for the trace header (clock, process, start times: stepscope's META_DATA_CAPTURE keys
 * when the file came from stepscope, else nsys's session tables); im_header_records writes
 * the PROCESS, ENV, DEVICE, THREAD and DROPPED records. */
int im_session(struct im *m, struct sst_writer_opts *o);
int im_header_records(struct im *m);
/* The damage a stepscope export carried (STEPSCOPE_DAMAGE_<kind>) as DAMAGE records. */
int im_meta_damage(struct im *m);
void im_meta_free(struct im *m);

#endif
