/*
 * sst_writer.c — the one writer of the trace format (see sst_writer.h, docs/trace-format.md).
 *
 * Layout in memory: one buffer holds the chunk header followed by the payload being filled,
 * so a flush is one CRC pass and one write(2). Records are reserved in place: reserving is a
 * bounds check, a memset and a header store, never an allocation. The buffer has room for
 * chunk_bytes plus one largest record, so a reserve that crosses chunk_bytes flushes first
 * and then always fits.
 */
#include "sst_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sst_crc32c.h"
#include "util/ss_error.h"

#define DEFAULT_CHUNK_BYTES (1u << 20)
#define DEFAULT_MAX_STRINGS 1000000u
#define CHUNK_HDR sizeof(struct sst_chunk_header)
/* Interned text kept for de-duplication; past it strings are written but not remembered,
 * so a program with unbounded distinct names cannot grow the collector without bound. */
#define MAX_STRING_ARENA (64u << 20)

struct intern_slot {
    uint64_t hash; /* 0: empty slot */
    char *text;    /* owned by the arena blocks */
    uint32_t len;
    uint32_t id;
};

struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
};

struct sst_writer {
    int fd;
    int err;             /* sticky ss_error, 0 while healthy */
    uint8_t *buf;        /* chunk header + payload */
    size_t used;         /* payload bytes in buf */
    size_t chunk_bytes;  /* flush when a record would cross this */
    uint64_t chunk_records;
    uint8_t *zbuf;       /* chunk header + compressed payload, NULL without compressor */
    size_t zcap;         /* payload capacity of zbuf */
    struct sst_compressor comp;
    uint32_t seq;
    uint32_t next_string_id;
    uint32_t max_strings;
    uint8_t clock; /* enum sst_clock of the file, for the timestamps the writer adds */
    struct intern_slot *slots;
    size_t nslots, nstrings, arena_bytes;
    struct arena_block *arena;
    struct sst_writer_stats st;
};

uint64_t sst_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t unix_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- output --------------------------------------------------------------------------- */

/* Writes all of buf, retrying on EINTR and short writes. Returns 0 or an ss_error. */
static int write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return ss_from_errno(errno);
        if (n == 0)
            return SS_EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Fills the chunk header in front of a payload, checksums header+payload, writes both. */
static int emit_chunk(struct sst_writer *w, uint8_t *chunk, uint16_t type, uint16_t flags,
                      size_t stored, size_t raw)
{
    struct sst_chunk_header h = {SST_CHUNK_MAGIC, type,          flags, (uint32_t)stored,
                                 (uint32_t)raw,   w->seq,        0};
    memcpy(chunk, &h, CHUNK_HDR);
    h.crc = sst_crc32c(0, chunk, CHUNK_HDR + stored);
    memcpy(chunk, &h, CHUNK_HDR);
    int rc = write_all(w->fd, chunk, CHUNK_HDR + stored);
    if (rc == 0) {
        w->seq++;
        w->st.file_bytes += CHUNK_HDR + stored;
    }
    return rc;
}

/* Compresses the current payload into zbuf; returns its size, or 0 to store it raw. */
static size_t compress_payload(struct sst_writer *w)
{
    if (!w->zbuf)
        return 0;
    size_t n = w->comp.compress(w->comp.ctx, w->zbuf + CHUNK_HDR, w->zcap, w->buf + CHUNK_HDR,
                                w->used);
    return (n > 0 && n < w->used) ? n : 0;
}

static void fail(struct sst_writer *w, int err)
{
    if (!w->err)
        w->err = err;
}

int sst_writer_flush(struct sst_writer *w)
{
    if (w->err || w->used == 0)
        return w->err;
    size_t zlen = compress_payload(w);
    int rc = zlen ? emit_chunk(w, w->zbuf, SST_CHUNK_RECORDS, SST_CHUNK_F_ZSTD, zlen, w->used)
                  : emit_chunk(w, w->buf, SST_CHUNK_RECORDS, 0, w->used, w->used);
    if (rc == 0) {
        w->st.chunks++;
        w->st.raw_bytes += w->used;
    } else {
        /* The chunk's records never reached the file: they are lost, not written. */
        fail(w, rc);
        w->st.records -= w->chunk_records;
        w->st.dropped += w->chunk_records;
    }
    w->used = 0;
    w->chunk_records = 0;
    return w->err;
}

/* ---- records -------------------------------------------------------------------------- */

/* Room for sz (already rounded) bytes, not zeroed; NULL (counted dropped) on error. */
static inline uint8_t *reserve_raw(struct sst_writer *w, uint16_t type, size_t size)
{
    size_t sz = (size + SST_REC_ALIGN - 1) & ~(size_t)(SST_REC_ALIGN - 1);
    if (__builtin_expect(w->err != 0 || sz > SST_REC_MAX || size < sst_rec_min_size(type) ||
                             size < 8,
                         0)) {
        w->st.dropped++;
        return NULL;
    }
    if (__builtin_expect(w->used + sz > w->chunk_bytes, 0) && w->used > 0) {
        if (sst_writer_flush(w) != 0) {
            w->st.dropped++;
            return NULL;
        }
    }
    uint8_t *p = w->buf + CHUNK_HDR + w->used;
    w->used += sz;
    w->chunk_records++;
    w->st.records++;
    struct sst_rec_header h = {type, (uint16_t)sz};
    memcpy(p, &h, sizeof h);
    return p;
}

void *sst_writer_reserve(struct sst_writer *w, uint16_t type, size_t size)
{
    uint8_t *p = reserve_raw(w, type, size);
    if (p) {
        size_t sz = ((struct sst_rec_header *)(void *)p)->size;
        memset(p + sizeof(struct sst_rec_header), 0, sz - sizeof(struct sst_rec_header));
    }
    return p;
}

int sst_writer_append(struct sst_writer *w, const void *rec)
{
    struct sst_rec_header h;
    memcpy(&h, rec, sizeof h);
    uint8_t *p = reserve_raw(w, h.type, h.size);
    if (!p)
        return w->err ? w->err : SS_EINVAL;
    memcpy(p + sizeof h, (const uint8_t *)rec + sizeof h, h.size - sizeof h);
    /* A size that was not a multiple of 8 was rounded up: zero the padding. */
    size_t sz = ((struct sst_rec_header *)(void *)p)->size;
    memset(p + h.size, 0, sz - h.size);
    return 0;
}

void sst_writer_count_dropped(struct sst_writer *w, uint64_t n)
{
    w->st.dropped += n;
}

int sst_writer_damage(struct sst_writer *w, uint8_t kind, uint64_t count, uint64_t offset,
                      const char *detail)
{
    uint32_t text = detail ? sst_writer_intern_cstr(w, detail) : SST_NO_STRING;
    struct sst_rec_damage *d = sst_writer_reserve(w, SST_REC_DAMAGE, sizeof *d);
    if (!d) return w->err ? w->err : SS_EINVAL;
    d->kind = kind, d->count = count, d->offset = offset, d->detail = text;
    return 0;
}

int sst_writer_error(const struct sst_writer *w)
{
    return w->err;
}

void sst_writer_get_stats(const struct sst_writer *w, struct sst_writer_stats *out)
{
    *out = w->st;
}

/* ---- string interning ----------------------------------------------------------------- */

/* A fast 64-bit hash of the string's bytes, 8 at a time; never 0 (0 marks empty slots). */
static uint64_t hash_bytes(const char *s, size_t len)
{
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h = 0x2545F4914F6CDD1Dull ^ (len * k);
    for (; len >= 8; len -= 8, s += 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = (h ^ v) * k;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    memcpy(&tail, s, len);
    h = (h ^ tail) * k;
    h ^= h >> 32;
    return h ? h : 1;
}

/* Copies len bytes (plus a NUL) into the arena; the copy lives until the writer is freed. */
static char *arena_copy(struct sst_writer *w, const char *s, size_t len)
{
    struct arena_block *b = w->arena;
    if (!b || b->cap - b->used < len + 1) {
        size_t cap = len + 1 > (256u << 10) ? len + 1 : (256u << 10);
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = w->arena;
        b->used = 0;
        b->cap = cap;
        w->arena = b;
    }
    char *dst = b->data + b->used;
    memcpy(dst, s, len);
    dst[len] = 0;
    b->used += len + 1;
    w->arena_bytes += len + 1;
    return dst;
}

/* Doubles the table (load factor stays under 1/2). Returns 0 or SS_ENOMEM. */
static int intern_grow(struct sst_writer *w)
{
    size_t n = w->nslots ? w->nslots * 2 : 1024;
    struct intern_slot *t = calloc(n, sizeof *t);
    if (!t)
        return SS_ENOMEM;
    for (size_t i = 0; i < w->nslots; i++) {
        struct intern_slot *o = &w->slots[i];
        if (!o->hash)
            continue;
        size_t j = o->hash & (n - 1);
        while (t[j].hash)
            j = (j + 1) & (n - 1);
        t[j] = *o;
    }
    free(w->slots);
    w->slots = t;
    w->nslots = n;
    return 0;
}

/* Cuts a string to SST_STRING_MAX without splitting a UTF-8 sequence. */
static size_t cut_len(const char *s, size_t len)
{
    if (len <= SST_STRING_MAX)
        return len;
    len = SST_STRING_MAX;
    while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
        len--; /* s[len] continues a sequence: cut before the sequence starts */
    return len;
}

/* Writes the STRING record defining id; returns 0 or the error that dropped it. */
static int write_string_record(struct sst_writer *w, uint32_t id, const char *s, size_t len)
{
    struct sst_rec_string *r = sst_writer_reserve(w, SST_REC_STRING, sizeof *r + len);
    if (!r)
        return w->err ? w->err : SS_EINVAL;
    r->id = id;
    r->len = (uint32_t)len;
    memcpy(r + 1, s, len);
    return 0;
}

static uint32_t new_string_id(struct sst_writer *w)
{
    uint32_t id = w->next_string_id++;
    if (w->next_string_id == 0) /* 2^32 strings (only without de-duplication): wrap past 0 */
        w->next_string_id = 1;
    return id;
}

/* Remembers a newly written string; failure to remember only costs de-duplication. */
static void intern_remember(struct sst_writer *w, struct intern_slot *slot, uint64_t h,
                            const char *s, size_t len, uint32_t id)
{
    char *text = arena_copy(w, s, len);
    if (!text)
        return;
    slot->hash = h;
    slot->text = text;
    slot->len = (uint32_t)len;
    slot->id = id;
    w->nstrings++;
}

/* A text was cut: say so in the file (docs/trace-format.md, "Strings"). */
static void note_cut(struct sst_writer *w)
{
    struct sst_rec_dropped *d = sst_writer_reserve(w, SST_REC_DROPPED, sizeof *d);
    if (!d)
        return;
    d->source = SST_DROP_STRING;
    d->rec_type = SST_REC_STRING;
    d->ts_ns = w->clock == SST_CLOCK_SYNTHETIC ? 0 : sst_now_ns();
    d->count = 1;
}

uint32_t sst_writer_intern(struct sst_writer *w, const char *s, size_t len)
{
    if (w->err || (!s && len))
        return SST_NO_STRING;
    size_t full_len = len;
    len = cut_len(s, len);
    uint64_t h = hash_bytes(s, len);
    struct intern_slot *slot = NULL;
    if (w->nslots) {
        size_t j = h & (w->nslots - 1);
        for (; w->slots[j].hash; j = (j + 1) & (w->nslots - 1)) {
            struct intern_slot *e = &w->slots[j];
            if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0)
                return e->id;
        }
        slot = &w->slots[j];
    }
    if (full_len > len)
        note_cut(w); /* once per distinct text, not per use */
    uint32_t id = new_string_id(w);
    if (write_string_record(w, id, s, len) != 0)
        return SST_NO_STRING;
    w->st.strings++;
    int room = w->nstrings < w->max_strings && w->arena_bytes + len < MAX_STRING_ARENA;
    if (room && (w->nstrings + 1) * 2 > w->nslots) {
        if (intern_grow(w) != 0)
            return id;
        size_t j = h & (w->nslots - 1);
        while (w->slots[j].hash)
            j = (j + 1) & (w->nslots - 1);
        slot = &w->slots[j];
    }
    if (room && slot)
        intern_remember(w, slot, h, s, len, id);
    return id;
}

uint32_t sst_writer_intern_cstr(struct sst_writer *w, const char *s)
{
    return s ? sst_writer_intern(w, s, strlen(s)) : SST_NO_STRING;
}

/* ---- open / close --------------------------------------------------------------------- */

static void writer_free(struct sst_writer *w)
{
    while (w->arena) {
        struct arena_block *next = w->arena->next;
        free(w->arena);
        w->arena = next;
    }
    free(w->slots);
    free(w->buf);
    free(w->zbuf);
    free(w);
}

/* Allocates the writer and its buffers for opts (chunk size clamped to what readers take). */
static struct sst_writer *writer_alloc(const struct sst_writer_opts *o)
{
    struct sst_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    size_t chunk = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK_BYTES;
    if (chunk > SST_CHUNK_MAX_RAW - SST_REC_MAX)
        chunk = SST_CHUNK_MAX_RAW - SST_REC_MAX;
    w->chunk_bytes = chunk;
    size_t cap = chunk + SST_REC_MAX; /* slack: one largest record past the flush point */
    w->buf = malloc(CHUNK_HDR + cap);
    w->comp = o->compressor;
    if (w->comp.compress) {
        w->zcap = w->comp.bound ? w->comp.bound(cap) : cap;
        w->zbuf = malloc(CHUNK_HDR + w->zcap);
    }
    if (!w->buf || (w->comp.compress && !w->zbuf)) {
        writer_free(w);
        return NULL;
    }
    w->max_strings = o->max_strings ? o->max_strings : DEFAULT_MAX_STRINGS;
    w->clock = o->clock ? o->clock : SST_CLOCK_MONOTONIC;
    w->next_string_id = 1;
    return w;
}

static void fill_header(struct sst_file_header *h, const struct sst_writer_opts *o)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, SST_MAGIC, SST_MAGIC_LEN);
    h->format_version = SST_FORMAT_VERSION;
    h->min_reader_version = 1;
    h->header_size = sizeof *h;
    h->byte_order = SST_BYTE_ORDER_LE;
    h->clock = o->clock ? o->clock : SST_CLOCK_MONOTONIC;
    h->features = o->features | (o->compressor.compress ? SST_FEAT_ZSTD : 0);
    h->pid = o->pid ? o->pid : (uint32_t)getpid();
    h->start_mono_ns = o->start_mono_ns ? o->start_mono_ns : sst_now_ns();
    h->start_unix_ns = o->start_unix_ns ? o->start_unix_ns : unix_now_ns();
    h->header_crc = sst_crc32c(0, h, offsetof(struct sst_file_header, header_crc));
}

int sst_writer_open_fd(int fd, const struct sst_writer_opts *opts, struct sst_writer **out)
{
    static const struct sst_writer_opts defaults;
    const struct sst_writer_opts *o = opts ? opts : &defaults;
    *out = NULL;
    struct sst_writer *w = writer_alloc(o);
    if (!w) {
        close(fd);
        return SS_ENOMEM;
    }
    w->fd = fd;
    struct sst_file_header h;
    fill_header(&h, o);
    int rc = write_all(fd, &h, sizeof h);
    if (rc != 0) {
        close(fd);
        writer_free(w);
        return rc;
    }
    w->st.file_bytes = sizeof h;
    *out = w;
    return 0;
}

int sst_writer_open(const char *path, const struct sst_writer_opts *opts,
                    struct sst_writer **out)
{
    *out = NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return ss_from_errno(errno);
    return sst_writer_open_fd(fd, opts, out);
}

/* The END chunk: its presence tells a reader the file was closed, not cut. */
static int write_end(struct sst_writer *w, uint64_t end_ns)
{
    uint8_t chunk[CHUNK_HDR + sizeof(struct sst_end)];
    struct sst_end e = {end_ns ? end_ns : sst_now_ns(), w->st.records, w->st.dropped,
                        (uint32_t)w->st.chunks, 0};
    memcpy(chunk + CHUNK_HDR, &e, sizeof e);
    return emit_chunk(w, chunk, SST_CHUNK_END, 0, sizeof e, sizeof e);
}

int sst_writer_close(struct sst_writer *w, uint64_t end_ns)
{
    if (!w)
        return SS_EINVAL;
    sst_writer_flush(w);
    if (!w->err) {
        int rc = write_end(w, end_ns);
        if (rc)
            fail(w, rc);
    }
    /* No fsync: a killed process loses nothing the kernel already has, and syncing a
     * multi-gigabyte trace at exit would stall the training program's shutdown. */
    if (close(w->fd) != 0 && errno != EINTR)
        fail(w, ss_from_errno(errno));
    int err = w->err;
    writer_free(w);
    return err;
}

void sst_writer_abandon(struct sst_writer *w, int keep_fd)
{
    if (!w)
        return;
    if (!keep_fd)
        close(w->fd);
    writer_free(w);
}
