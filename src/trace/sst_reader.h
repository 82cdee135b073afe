/*
 * sst_reader.h — streams the records of a trace file with constant memory.
 *
 * Memory: one chunk buffer (at most SST_CHUNK_MAX_RAW) and the interned strings. Records
 * are returned in file order, STRING records included (the reader has already added them
 * to its table when it returns them).
 * Damage: a file cut anywhere reads up to its last complete chunk; a chunk whose checksum
 * fails is reported through on_problem and skipped (the reader resynchronises on the next
 * valid chunk), unless strict is set, in which case reading stops with SS_ECORRUPT.
 * Nothing read from the file is trusted: every length is checked against what is there.
 * What was wrong is counted in one model (sst_reader_damage, the kinds of SST_DAMAGE_KINDS):
 * a chunk whose sequence number was read before is skipped, one out of sequence is read
 * where it is; a record holding an impossible time (an end before its start, a time past
 * SST_TIME_LIMIT, or outside the recording on the collector's clock) is never returned;
 * DROPPED records and the END chunk say what the recorder dropped; DAMAGE records what an
 * importer found wrong with its input. Every verb reports that model (issue #41).
 */
#ifndef SST_READER_H
#define SST_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sst_format.h"

struct sst_reader;

/* Called for each problem found: err is an ss_error code, offset the byte offset in the
 * file, msg one line without a newline. */
typedef void (*sst_problem_fn)(void *ctx, int err, uint64_t offset, const char *msg);

struct sst_reader_opts {
    int strict;               /* stop at the first corrupted chunk */
    sst_problem_fn on_problem; /* NULL: problems are only counted */
    void *problem_ctx;
    int show_inconsistent;    /* hand out records with impossible times too (still counted as
                               * inconsistent): `stepscope dump`, which shows what is there */
};

struct sst_read_status {
    uint64_t records;         /* records returned so far */
    uint64_t unknown_records; /* records of types this reader does not know (skipped) */
    uint64_t malformed;       /* records rejected as malformed (their chunk's rest skipped) */
    uint32_t chunks;          /* good RECORDS chunks read */
    uint32_t bad_chunks;      /* chunks skipped for a bad checksum or bad framing */
    uint64_t bad_bytes;       /* bytes skipped while resynchronising */
    uint64_t first_bad_offset;
    int closed;               /* the END chunk was read: the writer closed the file */
    int truncated;            /* the file ends inside a chunk, or without an END chunk */
    uint64_t truncated_at;    /* offset where the incomplete data starts */
    int32_t last_seq;         /* seq of the last good chunk, -1 when none */
    struct sst_end end;       /* valid when closed */
    uint64_t file_bytes;
    uint32_t unknown_chunks;  /* chunks of types this reader does not know (skipped) */
    uint64_t inconsistent;    /* records with impossible times: never returned */
    uint32_t dup_chunks;      /* chunks repeating a sequence number read before: skipped */
    uint32_t late_chunks;     /* chunks read after a later sequence number (out of order) */
    uint64_t dropped;         /* what DROPPED records count (strings cut left out) */
    uint64_t trailing_bytes;  /* data after the END chunk (holes of a sparse file not counted) */
    uint64_t imported[SST_DAMAGE_LIMIT]; /* DAMAGE records: what the producer's input lost */
};

/* Opens a trace and checks its header. On success *out owns the reader (free with
 * sst_reader_close). Errors: SS_ENOENT/SS_EACCES/SS_EIO, SS_EEMPTY, SS_ENOTTRACE,
 * SS_EVERSION (newer incompatible format), SS_EBYTEORDER, SS_ECORRUPT (bad header CRC). */
int sst_reader_open(const char *path, const struct sst_reader_opts *opts,
                    struct sst_reader **out);

/* Flags of sst_reader_open_ex. SST_READ_MAP: read a regular file through a read-only mapping
 * instead of pread (no copy out of the page cache). A file that another process truncates
 * while it is mapped raises SIGBUS on the next access to the cut pages: the reader then
 * installs a SIGBUS handler (only where SIGBUS has its default action; else it reads with
 * pread) that turns a fault inside a reader's mapping into one line on stderr ("stepscope: a
 * trace file shrank while it was being read ...") and _exit(1); faults elsewhere keep the
 * default action. So only a program (the CLI) for which that is the right end sets it. */
#define SST_READ_MAP 1u

/* As sst_reader_open, with flags (SST_READ_*). */
int sst_reader_open_ex(const char *path, const struct sst_reader_opts *opts, unsigned flags,
                       struct sst_reader **out);

/* As sst_reader_open_ex on a descriptor the caller opened (and sniffed with pread): the reader
 * owns fd from then on, also on failure. So a command opens each input file once. */
int sst_reader_open_fd(int fd, const struct sst_reader_opts *opts, unsigned flags,
                       struct sst_reader **out);

/* Routes the problems found from now on to fn (NULL: only counted); the previous handler in
 * *old_fn / *old_ctx when those are not NULL. The analysis takes an open reader's problems
 * this way, and gives them back. */
void sst_reader_set_problem(struct sst_reader *r, sst_problem_fn fn, void *ctx,
                            sst_problem_fn *old_fn, void **old_ctx);

/* As sst_reader_open on an open stream (fmemopen for fuzzing); takes ownership of f. */
int sst_reader_open_file(FILE *f, const struct sst_reader_opts *opts, struct sst_reader **out);

const struct sst_file_header *sst_reader_header(const struct sst_reader *r);

/* Chunks decoded ahead, on other threads (sst_ahead.c: the CLI's only, never the collector's).
 * The reader asks for the RECORDS chunk at each offset it reaches, in file order; the pool
 * answers with it checked (checksum passed, payload decompressed to exactly raw_len) or says
 * it has nothing good there, and the reader then loads that chunk itself as it always did. So
 * every decision about damage, sequence and errors stays on the reader's thread, in order. */
struct sst_ahead_ops {
    /* 1: *h and *payload (raw_len bytes, valid until the next take or restart) hold the
     * chunk at off; 0: nothing good there (the reader loads it itself) */
    int (*take)(void *ctx, uint64_t off, struct sst_chunk_header *h, const uint8_t **payload);
    void (*restart)(void *ctx); /* forget everything: the reader rewound */
    void (*free)(void *ctx);
};

/* Hands the reader a pool (ops NULL: none); the reader owns ctx from then on and frees it
 * with ops->free when another is set or at sst_reader_close. Set it on a reader that has not
 * handed out records since it was opened or rewound: the current chunk's rest is dropped. */
void sst_reader_set_ahead(struct sst_reader *r, const struct sst_ahead_ops *ops, void *ctx);

/* A reader that will be rewound and read again (the analysis' two passes) may keep the
 * payloads it decompresses on its first read, up to budget bytes, so that the re-read does
 * not decompress them again (zstd was most of the time of a report over many small traces).
 * Only a file read by descriptor keeps them (the chunks sst_reader_rewind trusts unread), and
 * not what an ahead pool decoded. 0 (the default) keeps none and frees those kept. */
void sst_reader_keep_raw(struct sst_reader *r, size_t budget);

/* The descriptor a pool reads the file through (pread, which is safe from any thread) and the
 * size taken at open: 0, or -1 for a stream (no pool then). */
int sst_reader_source(const struct sst_reader *r, int *fd, uint64_t *size);

/* A pool's own read-only mapping of a piece of the file, covered by the reader's SIGBUS guard
 * (a file cut while mapped ends the program with one line, as under the reader's own window:
 * SST_READ_MAP). */
struct sst_map {
    const uint8_t *base; /* the mapping (page-aligned), NULL: none */
    size_t len;
    void *slot; /* the guard's record of it */
};

/* Whether r reads its file through a mapping (SST_READ_MAP granted, the guard in place): only
 * then may a pool map the file too. Ask before the pool's threads start. */
int sst_reader_maps(const struct sst_reader *r);

/* Maps r's whole file once and keeps it mapped until sst_reader_close, instead of a window at a
 * time: for a pool whose threads first touch (fault) and sum the chunks, so that the reader's
 * passes find them mapped (a re-read's page faults were ~15 % of report -j 2's wall on 10 M
 * records). Only when r maps (sst_reader_maps) and the file is at most a quarter of the
 * machine's memory and 4 GiB: its pages are the page cache's, clean and shared, but they count
 * in the RSS. Returns the mapping of offset 0 (owned by r), or NULL: windows as before. Call it
 * before the pool's threads start. */
const uint8_t *sst_reader_map_whole(struct sst_reader *r);

/* Maps [off, off + len) of fd (a file of `size` bytes, as sst_reader_source says) into *m and
 * returns the address of byte off; NULL when the range is not inside the file, every guard
 * slot is taken or mmap fails (then read it otherwise). Safe from any thread. */
const uint8_t *sst_map_range(int fd, uint64_t size, uint64_t off, size_t len, struct sst_map *m);

/* Drops a mapping of sst_map_range (none: nothing). */
void sst_map_drop(struct sst_map *m);

/* Whether the chunk at off with header h passed its checksum on the first read and the file
 * is unchanged (a re-read: see sst_reader_rewind), so its payload need not be summed again.
 * Safe from a pool's threads: what it reads only changes in sst_reader_rewind, before the
 * reader restarts its pool, and during a first read it returns 0 without reading more. */
int sst_reader_verified(const struct sst_reader *r, uint64_t off, const struct sst_chunk_header *h);

/* The reader's hot state, the first member of struct sst_reader, so that the common case of
 * sst_reader_next (below) is decided inline in the caller's loop. Not for callers' use. */
struct sst_reader_hot {
    const uint8_t *payload; /* records of the current chunk (NULL: none) */
    size_t off, len;        /* next record's offset in it (off <= len), the payload's length */
    uint64_t records;       /* records returned so far (sst_read_status.records) */
    uint32_t fast_min[SST_REC_TYPE_LIMIT]; /* least size of each type taken inline;
                                            * UINT32_MAX: left to sst_reader_next_slow */
    /* where each kind keeps its first and last time (0: no time checked inline), and the
     * times a record may hold: one outside [t_lo, t_hi], or ending before it starts, is left
     * to the slow path, which counts it as inconsistent and skips it */
    uint16_t t_first[SST_REC_TYPE_LIMIT], t_last[SST_REC_TYPE_LIMIT];
    uint64_t t_lo, t_hi;
};

/* Everything the inline part of sst_reader_next does not take. */
int sst_reader_next_slow(struct sst_reader *r, const struct sst_rec_header **rec);

/* Whether the record at p (of a known type, whole) holds possible times: the inline check. */
static inline int sst_reader_times_ok(const struct sst_reader_hot *c, const uint8_t *p,
                                      uint16_t type)
{
    if (!c->t_first[type]) return 1;
    uint64_t a, b;
    __builtin_memcpy(&a, p + c->t_first[type], sizeof a);
    __builtin_memcpy(&b, p + c->t_last[type], sizeof b);
    return a <= b && a >= c->t_lo && b <= c->t_hi;
}

/* Next record: returns 1 and sets *rec (valid until the next call), 0 at the end of the
 * readable data, or a negative ss_error (strict mode, I/O error).
 * Inline: a well-formed record of a known type other than STRING is handed out here, after
 * the checks the reader makes on every record (at least 8 bytes left in the chunk, a size
 * that is a multiple of 8, fits in the chunk and is at least its type's struct); everything
 * else (STRING, unknown types, malformed records, the next chunk) goes to the slow path. */
static inline int sst_reader_next(struct sst_reader *r, const struct sst_rec_header **rec)
{
    struct sst_reader_hot *c = (struct sst_reader_hot *)(void *)r;
    size_t left = c->len - c->off;
    if (__builtin_expect(left >= 8, 1)) {
        const uint8_t *p = c->payload + c->off;
        struct sst_rec_header h;
        __builtin_memcpy(&h, p, sizeof h);
        if (__builtin_expect(h.type < SST_REC_TYPE_LIMIT && h.size >= c->fast_min[h.type] &&
                                 h.size <= left && (h.size & (SST_REC_ALIGN - 1)) == 0 &&
                                 sst_reader_times_ok(c, p, h.type),
                             1)) {
            c->off += h.size;
            c->records++;
            *rec = (const struct sst_rec_header *)(const void *)p;
            return 1;
        }
    }
    return sst_reader_next_slow(r, rec);
}

/* Copies the fixed part of record h into a struct of `size` bytes, zero-filling what a record
 * from an older writer lacks (records are read through copies: no alignment assumptions, and
 * a record shorter than today's struct reads as if its newer fields were 0). */
static inline void sst_rec_load(const struct sst_rec_header *h, void *dst, size_t size)
{
    size_t have = h->size < size ? h->size : size;
    __builtin_memset(dst, 0, size);
    __builtin_memcpy(dst, h, have);
}

/* The time record h covers: [*t0, *t1] (equal for instants; ordered even when a damaged
 * record ends before it starts). Returns 0 when its kind carries no time (STRING, ENV,
 * DEVICE...; the time column of SST_REC_TYPES) or a PROCESS does not know its start. */
int sst_rec_time_range(const struct sst_rec_header *h, uint64_t *t0, uint64_t *t1);

/* Where records of `type` keep their first and last time (the time column of SST_REC_TYPES;
 * both the same offset for an instant): 1 with the byte offsets, 0 for a kind without time.
 * Whoever makes records up (tests, the hostile-input harness) keeps their times possible. */
int sst_rec_time_fields(uint16_t type, size_t *first, size_t *last);

/* The text of an interned string and its length; NULL when id is 0 or was never defined
 * (e.g. its STRING record sat in a damaged chunk). Valid until sst_reader_close. */
const char *sst_reader_string(const struct sst_reader *r, uint32_t id, uint32_t *len);

const struct sst_read_status *sst_reader_status(const struct sst_reader *r);

/* Starts reading again from the first chunk, as a fresh reader of the same file would (status
 * and string table start empty; the file size stays the one taken at open). A chunk that
 * passed its checksum on the first read and has the very same header at the same offset is
 * not summed again, unless the file changed in between (inode, size or modification time
 * differ); every length is still checked. At most 65536 chunks are remembered. Returns 0. */
int sst_reader_rewind(struct sst_reader *r);

/* The one damage model (SST_DAMAGE_KINDS in sst_format.h): what is wrong with the input, by
 * kind, as far as it has been read (complete once the reader has returned 0); and how much of
 * the trace could be read against what the file says it held: the END chunk's counts when it
 * was read, else the chunk sequence numbers seen (a lower bound). */
#define SST_DAMAGE_DETAIL 128
struct sst_damage {
    uint64_t records_read;
    uint64_t records_expected; /* 0: not known (no END chunk) */
    uint32_t chunks_read;      /* good RECORDS chunks */
    uint32_t chunks_expected;  /* END's count, else the highest seq + 1 (less the chunks of
                                * unknown types) */
    int damaged;               /* a kind other than truncation: chunks or records skipped,
                                * lost, repeated, out of order, dropped, impossible */
    int any;                   /* any kind, truncation included: a verb exits non-zero on it
                                * unless --accept-damage */
    double read_fraction;      /* records read / expected (chunks when records are not known),
                                * 1 when nothing is known to be lost */
    uint64_t count[SST_DAMAGE_LIMIT]; /* by kind (enum sst_damage_kind) */
    char detail[SST_DAMAGE_LIMIT][SST_DAMAGE_DETAIL]; /* the first of each kind in words, or "" */
};
void sst_reader_damage(const struct sst_reader *r, struct sst_damage *d);

/* One line naming every kind of d that has a count, in the table's order, each with its
 * detail ("truncated: after chunk 3 (offset 168436); inconsistent: 2 records with impossible
 * values dropped (the first: kernel in chunk 4 ends before it starts)"); "" when none.
 * Returns buf. */
const char *sst_damage_describe(const struct sst_damage *d, char *buf, size_t cap);

/* One line describing the file's state: "complete, 12 chunks", "truncated after chunk 3
 * (offset 81920)", ... Static storage in r. */
const char *sst_reader_state_line(struct sst_reader *r);

void sst_reader_close(struct sst_reader *r);

#endif
