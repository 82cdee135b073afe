/*
 * trace_util.h — helpers shared by the trace tests: files to and from memory, reading a whole
 * trace from a buffer into a summary, and a map of a well-formed file's chunks.
 */
#ifndef TRACE_UTIL_H
#define TRACE_UTIL_H

#include "ss_test.h"
#include "trace/sst_crc32c.h"
#include "trace/sst_reader.h"
#include "trace/sst_writer.h"
#include "util/ss_error.h"

/* The whole file at path; caller frees. */
static inline uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    REQUIRE(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A reader over buf[0..len) (fmemopen; an empty temporary file when len is 0, which fmemopen
 * refuses). buf must outlive the reader. */
static inline int open_mem(const uint8_t *buf, size_t len, const struct sst_reader_opts *o,
                           struct sst_reader **r)
{
    FILE *f;
    if (len == 0) {
        f = tmpfile();
    } else {
        f = fmemopen((void *)buf, len, "r");
    }
    REQUIRE(f != NULL);
    return sst_reader_open_file(f, o, r);
}

struct read_summary {
    int open_rc;
    int next_rc;
    uint64_t records;
    int problems;
    char last_problem[256];
    struct sst_read_status st;
    char state[256];
};

static inline void note_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    struct read_summary *s = ctx;
    (void)err;
    (void)offset;
    s->problems++;
    snprintf(s->last_problem, sizeof s->last_problem, "%s", msg);
}

/* Opens buf and reads every record, touching each record's bytes. */
static inline struct read_summary read_all(const uint8_t *buf, size_t len, int strict)
{
    struct read_summary s;
    memset(&s, 0, sizeof s);
    struct sst_reader_opts o = {.strict = strict, .on_problem = note_problem, .problem_ctx = &s};
    struct sst_reader *r;
    s.open_rc = open_mem(buf, len, &o, &r);
    if (s.open_rc != 0)
        return s;
    const struct sst_rec_header *h;
    volatile uint8_t sink = 0;
    while ((s.next_rc = sst_reader_next(r, &h)) == 1) {
        s.records++;
        for (unsigned i = 0; i < h->size; i++)
            sink ^= ((const uint8_t *)h)[i]; /* ASan checks every byte handed out */
    }
    (void)sink;
    s.st = *sst_reader_status(r);
    snprintf(s.state, sizeof s.state, "%s", sst_reader_state_line(r));
    sst_reader_close(r);
    return s;
}

struct chunk_info {
    size_t off, len; /* header included */
    uint16_t type;
    uint32_t seq;
    uint64_t records; /* records in a raw RECORDS chunk (0 for compressed ones) */
};

/* Chunks of a well-formed, uncompressed file; returns how many (at most max). */
static inline size_t map_chunks(const uint8_t *buf, size_t len, struct chunk_info *out,
                                size_t max)
{
    size_t n = 0;
    for (size_t off = 64; off + sizeof(struct sst_chunk_header) <= len && n < max;) {
        struct sst_chunk_header h;
        memcpy(&h, buf + off, sizeof h);
        REQUIRE(h.magic == SST_CHUNK_MAGIC);
        struct chunk_info *c = &out[n++];
        c->off = off, c->len = sizeof h + h.stored_len, c->type = h.type, c->seq = h.seq;
        c->records = 0;
        for (size_t p = 0; h.type == SST_CHUNK_RECORDS && !h.flags && p < h.stored_len;) {
            struct sst_rec_header rh;
            memcpy(&rh, buf + off + sizeof h + p, sizeof rh);
            p += rh.size;
            c->records++;
        }
        off += c->len;
    }
    return n;
}

/* Writes a chunk of the given type around payload, with a correct CRC, at dst; returns its
 * size. */
static inline size_t make_chunk(uint8_t *dst, uint16_t type, uint32_t seq, const void *payload,
                                uint32_t len)
{
    struct sst_chunk_header h = {SST_CHUNK_MAGIC, type, 0, len, len, seq, 0};
    memcpy(dst, &h, sizeof h);
    memcpy(dst + sizeof h, payload, len);
    h.crc = sst_crc32c(0, dst, sizeof h + len);
    memcpy(dst, &h, sizeof h);
    return sizeof h + len;
}

#endif
