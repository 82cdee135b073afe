/*
 * sst_writer.h — appends records to a trace file in whole, checksummed chunks.
 *
 * Threading: a writer belongs to one thread at a time (the collector's writer thread, or a
 * CLI tool). It takes no locks; callers on other threads hand records to that thread
 * (the collector does so through per-thread buffers, see docs/design.md).
 * Allocation: the chunk buffers are allocated once at open; appending a record never
 * allocates. Interning a string allocates only when the string is new.
 * Errors are sticky: after the first write error, records are counted as dropped and
 * sst_writer_error() returns the code; the caller is never blocked and never crashes.
 */
#ifndef SST_WRITER_H
#define SST_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "sst_format.h"

/* Compresses src into dst; returns the compressed size, or 0 when it failed or would not
 * be smaller (the chunk is then stored raw). Must be callable from the writer's thread. */
typedef size_t (*sst_compress_fn)(void *ctx, void *dst, size_t dst_cap, const void *src,
                                  size_t src_len);

struct sst_compressor {
    sst_compress_fn compress; /* NULL: store raw */
    void *ctx;
    size_t (*bound)(size_t src_len); /* worst-case compressed size */
};

struct sst_writer_opts {
    uint32_t chunk_bytes;           /* raw payload size that triggers a flush; 0: 1 MiB */
    uint32_t features;              /* enum sst_feature bits for the file header */
    uint8_t clock;                  /* enum sst_clock; 0: SST_CLOCK_MONOTONIC */
    uint32_t pid;                   /* 0: getpid() */
    uint64_t start_mono_ns;         /* 0: read the clock now */
    uint64_t start_unix_ns;         /* 0: read CLOCK_REALTIME now */
    struct sst_compressor compressor; /* zeroed: no compression */
    uint32_t max_strings;           /* distinct strings interned; 0: 1,000,000 */
};

struct sst_writer_stats {
    uint64_t records;       /* records accepted into chunks */
    uint64_t dropped;       /* records lost after an error */
    uint64_t chunks;        /* RECORDS chunks written */
    uint64_t raw_bytes;     /* payload bytes before compression */
    uint64_t file_bytes;    /* bytes written to the file */
    uint64_t strings;       /* distinct strings interned */
};

struct sst_writer;

/* Creates path (mode 0600, truncating nothing: fails if it exists) and writes the header.
 * On success *out owns the writer; free it with sst_writer_close or sst_writer_abandon. */
int sst_writer_open(const char *path, const struct sst_writer_opts *opts,
                    struct sst_writer **out);

/* As sst_writer_open, on an already open file descriptor; the writer takes ownership of fd. */
int sst_writer_open_fd(int fd, const struct sst_writer_opts *opts, struct sst_writer **out);

/* Room for one record of `size` bytes (rounded up to 8) in the current chunk, zeroed, its
 * header filled in. Valid until the next call on this writer. NULL after a sticky error or
 * when size is out of range; the record is then counted as dropped. */
void *sst_writer_reserve(struct sst_writer *w, uint16_t type, size_t size);

/* Copies a complete record (its header's size says how long). Returns 0 or an error. */
int sst_writer_append(struct sst_writer *w, const void *rec);

/* The id of a string, interning it (and writing its STRING record) the first time it is
 * seen. Strings longer than SST_STRING_MAX are cut. Returns SST_NO_STRING on error. */
uint32_t sst_writer_intern(struct sst_writer *w, const char *s, size_t len);
uint32_t sst_writer_intern_cstr(struct sst_writer *w, const char *s);

/* Writes the current chunk now (no-op when empty). */
int sst_writer_flush(struct sst_writer *w);

/* Flushes, writes the END chunk, closes the file and frees the writer. end_ns 0: now.
 * Returns the sticky error, if any. */
int sst_writer_close(struct sst_writer *w, uint64_t end_ns);

/* Frees the writer without writing anything more (a fork()ed child that must not touch
 * its parent's file). Does not close the descriptor when keep_fd is set. */
void sst_writer_abandon(struct sst_writer *w, int keep_fd);

int sst_writer_error(const struct sst_writer *w);
void sst_writer_get_stats(const struct sst_writer *w, struct sst_writer_stats *out);

/* Adds n to the writer's dropped counter (records lost before reaching the writer). */
void sst_writer_count_dropped(struct sst_writer *w, uint64_t n);

/* Writes a DAMAGE record: what the producer's own input lost (an importer's capture cut
 * short, failing its integrity check, rows left out as duplicates or impossible), so that
 * every reader of the trace counts it as the trace's damage (docs/trace-format.md, "Damage").
 * kind: enum sst_damage_kind; offset: where in the input (UINT64_MAX: not known); detail: one
 * line, or NULL. 0, or the writer's error. */
int sst_writer_damage(struct sst_writer *w, uint8_t kind, uint64_t count, uint64_t offset,
                      const char *detail);

/* The clock every producer uses (enum sst_clock SST_CLOCK_MONOTONIC), in ns. */
uint64_t sst_now_ns(void);

#endif
