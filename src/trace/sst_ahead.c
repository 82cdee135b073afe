/*
 * sst_ahead.c — chunks decoded on worker threads ahead of the reader (see sst_ahead.h).
 *
 * A ring of slots, each one chunk: [head, tail) are claimed in file order. A worker claims the
 * next slot by reading the chunk header at plan_off (under the lock: 24 bytes, so the plan is
 * one sequence) and moves plan_off past it by the header's length; it then reads the payload,
 * sums it and decompresses it with the lock released. Every chunk header met takes a slot, a
 * bad or unknown one too (marked bad), so the reader finds its offset in the ring. The plan
 * stops at a header that fails its checks, the END chunk or the end of the file: past those
 * only the reader's own resynchronisation knows where chunks are, and it asks again there.
 * A raw chunk is summed here in place, its payload handed out where it lies: through the
 * reader's mapping of the whole file where the reader keeps one (sst_reader_map_whole: the
 * pages this thread faults stay mapped for the reader's second pass), else through a mapping
 * of the worker's (map_raw: the reader maps the file too, so its SIGBUS guard is in place);
 * without either it is left to the reader.
 * The reader's take hands out the head slot when its offset is the one asked for and keeps it
 * until the next take (the records returned point into it). The lock and the two condition
 * variables are the only synchronisation: a slot's buffers belong to the worker while it is
 * BUSY and to the reader after.
 */
#include "sst_ahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sst_crc32c.h"
#include "sst_zstd.h"
#include "util/ss_error.h"

#define HDR sizeof(struct sst_chunk_header)

/* BAD: the reader loads the chunk itself (damaged, not RECORDS, or nothing to decode) */
enum slot_state { SLOT_BUSY, SLOT_GOOD, SLOT_BAD };

struct slot {
    uint64_t off;
    struct sst_chunk_header h;
    enum slot_state state;
    uint8_t *stored, *raw;
    size_t stored_cap, raw_cap;
    const uint8_t *payload; /* stored, raw or in map, when GOOD */
    void *zctx;
    struct sst_map map; /* a raw chunk's payload, mapped (map_raw) */
};

struct sst_ahead {
    pthread_mutex_t mu;
    pthread_cond_t work; /* workers: room in the ring and a plan */
    pthread_cond_t done; /* the reader: a slot was claimed or finished */
    const struct sst_reader *r; /* only for sst_reader_verified */
    int fd;
    uint64_t size;
    struct slot *slots;
    size_t n_slots;
    uint64_t head, tail; /* claimed slots, by sequence number (index: % n_slots) */
    uint64_t plan_off;   /* where the next claim reads a header, while planning */
    int planning, held, quit;
    int map_raw; /* the reader maps its file: raw chunks are summed here, through a mapping */
    const uint8_t *whole; /* the reader's whole-file mapping (sst_reader_map_whole) or NULL */
    unsigned n_threads;
    pthread_t th[SST_AHEAD_MAX_WORKERS];
};

static struct slot *at(struct sst_ahead *a, uint64_t seq)
{
    return &a->slots[seq % a->n_slots];
}

/* pread until len bytes, the end of the file or an error; returns the number read. */
static size_t read_full(int fd, uint64_t off, void *dst, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (uint8_t *)dst + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got;
}

/* Whether a header may be decoded here: the reader's checks of its own fields (a header that
 * fails one stops the plan; the reader words why). */
static int header_ok(const struct sst_ahead *a, uint64_t off, const struct sst_chunk_header *h)
{
    int zstd = (h->flags & SST_CHUNK_F_ZSTD) != 0;
    return h->magic == SST_CHUNK_MAGIC && h->stored_len <= SST_CHUNK_MAX_RAW &&
           h->raw_len <= SST_CHUNK_MAX_RAW && !(h->flags & ~(uint16_t)SST_CHUNK_F_ZSTD) &&
           (zstd || h->raw_len == h->stored_len) && off + HDR + h->stored_len <= a->size;
}

/* Claims the next slot at plan_off (lock held). Returns the slot to decode, or NULL when it
 * needs no work (marked bad: the reader loads it itself). */
static struct slot *claim(struct sst_ahead *a)
{
    struct slot *s = at(a, a->tail++);
    s->off = a->plan_off;
    s->state = SLOT_BAD;
    if (read_full(a->fd, s->off, &s->h, HDR) != HDR || !header_ok(a, s->off, &s->h)) {
        a->planning = 0;
        return NULL;
    }
    a->plan_off += HDR + s->h.stored_len;
    if (s->h.type == SST_CHUNK_END || a->plan_off >= a->size) a->planning = 0;
    if (s->h.type != SST_CHUNK_RECORDS) return NULL;
    /* raw: read in place, through a mapping of the worker's (map_raw), else left to the reader;
     * a worker's pread copy out of the page cache cost 5x the checksum it would take off the
     * reader (perf, 10 M records) */
    if (!(s->h.flags & SST_CHUNK_F_ZSTD) && !a->map_raw) return NULL;
    s->state = SLOT_BUSY;
    return s;
}

/* Grows *buf to len bytes (len <= SST_CHUNK_MAX_RAW). */
static int grow(uint8_t **buf, size_t *cap, size_t len)
{
    if (*cap >= len) return 0;
    uint8_t *p = realloc(*buf, len ? len : 1);
    if (!p) return -1;
    *buf = p, *cap = len;
    return 0;
}

/* Whether the payload p of the chunk at off with header h passed its checksum (now, or on
 * the first read). */
static int sum_ok(struct sst_ahead *a, uint64_t off, struct sst_chunk_header h, const uint8_t *p)
{
    if (sst_reader_verified(a->r, off, &h)) return 1;
    uint32_t want = h.crc;
    h.crc = 0;
    return sst_crc32c(sst_crc32c(0, &h, HDR), p, h.stored_len) == want;
}

/* A raw chunk, mapped and summed: its first touch (page faults) and checksum happen here,
 * off the reader's thread. The slot's mapping from before goes first (its chunk was read). */
static enum slot_state map_chunk(struct sst_ahead *a, struct slot *s)
{
    sst_map_drop(&s->map);
    if (!s->h.stored_len) return SLOT_BAD; /* nothing to map: the reader takes it */
    if (a->whole) /* the reader's own mapping: its pages stay mapped for the reader's passes */
        s->payload = a->whole + s->off + HDR;
    else
        s->payload = sst_map_range(a->fd, a->size, s->off + HDR, s->h.stored_len, &s->map);
    return s->payload && sum_ok(a, s->off, s->h, s->payload) ? SLOT_GOOD : SLOT_BAD;
}

/* Reads, sums and decompresses a claimed slot (lock not held). Returns GOOD or BAD. */
static enum slot_state decode(struct sst_ahead *a, struct slot *s)
{
    struct sst_chunk_header h = s->h;
    if (!(h.flags & SST_CHUNK_F_ZSTD)) return map_chunk(a, s);
    if (grow(&s->stored, &s->stored_cap, h.stored_len) != 0 ||
        read_full(a->fd, s->off + HDR, s->stored, h.stored_len) != h.stored_len)
        return SLOT_BAD;
    if (!sum_ok(a, s->off, h, s->stored)) return SLOT_BAD;
    if (grow(&s->raw, &s->raw_cap, h.raw_len) != 0 ||
        sst_zstd_decompress(&s->zctx, s->raw, h.raw_len, s->stored, h.stored_len) != 0)
        return SLOT_BAD;
    s->payload = s->raw;
    return SLOT_GOOD;
}

static void *worker(void *arg)
{
    struct sst_ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->quit && !(a->planning && a->tail - a->head < a->n_slots))
            pthread_cond_wait(&a->work, &a->mu);
        if (a->quit) break;
        struct slot *s = claim(a);
        pthread_cond_broadcast(&a->done);
        if (!s) continue;
        pthread_mutex_unlock(&a->mu);
        enum slot_state st = decode(a, s);
        pthread_mutex_lock(&a->mu);
        s->state = st;
        pthread_cond_broadcast(&a->done);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Frees the head slot once its worker is done with it (lock held). */
static void drop_head(struct sst_ahead *a)
{
    while (at(a, a->head)->state == SLOT_BUSY)
        pthread_cond_wait(&a->done, &a->mu);
    a->head++;
    pthread_cond_broadcast(&a->work);
}

/* Gives back the slot the reader held (its records are read by now). */
static void release_held(struct sst_ahead *a)
{
    if (!a->held) return;
    a->held = 0;
    drop_head(a);
}

/* The ring is empty: plans from off unless that is where the plan is, then waits until a
 * slot is claimed or the plan stops. Returns 0 when there is nothing to wait for. */
static int wait_claim(struct sst_ahead *a, uint64_t off)
{
    if (!a->planning || a->plan_off != off) {
        if (off >= a->size) return 0;
        a->plan_off = off, a->planning = 1;
        pthread_cond_broadcast(&a->work);
    }
    while (a->head == a->tail && a->planning && a->plan_off == off)
        pthread_cond_wait(&a->done, &a->mu);
    return a->head != a->tail;
}

/* The head slot once decoded, when it is the chunk at off; NULL otherwise (lock held). */
static struct slot *find(struct sst_ahead *a, uint64_t off)
{
    for (;;) {
        while (a->head != a->tail && at(a, a->head)->off < off)
            drop_head(a); /* chunks the reader skipped (damage) */
        if (a->head == a->tail && !wait_claim(a, off)) return NULL;
        if (a->head == a->tail) continue;
        struct slot *s = at(a, a->head);
        if (s->off != off) return NULL;
        while (s->state == SLOT_BUSY)
            pthread_cond_wait(&a->done, &a->mu);
        if (s->state == SLOT_GOOD) return s;
        drop_head(a);
        return NULL;
    }
}

static int take(void *ctx, uint64_t off, struct sst_chunk_header *h, const uint8_t **payload)
{
    struct sst_ahead *a = ctx;
    pthread_mutex_lock(&a->mu);
    release_held(a);
    struct slot *s = find(a, off);
    if (s) *h = s->h, *payload = s->payload, a->held = 1;
    pthread_mutex_unlock(&a->mu);
    return s != NULL;
}

/* Stops the plan and waits for every slot being decoded: after it no worker reads the
 * reader's state until the reader asks for a chunk again. */
static void restart(void *ctx)
{
    struct sst_ahead *a = ctx;
    pthread_mutex_lock(&a->mu);
    a->planning = 0, a->held = 0;
    while (a->head != a->tail)
        drop_head(a);
    pthread_mutex_unlock(&a->mu);
}

static void free_slots(struct sst_ahead *a)
{
    for (size_t i = 0; i < a->n_slots; i++) {
        free(a->slots[i].stored);
        free(a->slots[i].raw);
        if (a->slots[i].zctx) sst_zstd_dctx_free(a->slots[i].zctx);
        sst_map_drop(&a->slots[i].map);
    }
    free(a->slots);
}

static void pool_free(void *ctx)
{
    struct sst_ahead *a = ctx;
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_broadcast(&a->work);
    pthread_mutex_unlock(&a->mu);
    for (unsigned i = 0; i < a->n_threads; i++)
        pthread_join(a->th[i], NULL);
    free_slots(a);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->done);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static const struct sst_ahead_ops k_ops = {take, restart, pool_free};

/* A pool with its lock and slots, no thread yet; NULL when out of memory. Owned by the
 * caller (pool_free). */
static struct sst_ahead *pool_new(const struct sst_reader *r, int fd, uint64_t size, unsigned workers)
{
    struct sst_ahead *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->n_slots = 2 * (size_t)workers + 1; /* one held by the reader, two per worker */
    a->slots = calloc(a->n_slots, sizeof *a->slots);
    if (!a->slots) return free(a), NULL;
    a->r = r, a->fd = fd, a->size = size;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->done, NULL);
    return a;
}

int sst_ahead_attach(struct sst_reader *r, unsigned workers)
{
    int fd;
    uint64_t size;
    if (workers < 1 || workers > SST_AHEAD_MAX_WORKERS || sst_reader_source(r, &fd, &size) != 0)
        return SS_EINVAL;
    int map_raw = sst_reader_maps(r);
    if (!(sst_reader_header(r)->features & SST_FEAT_ZSTD) && !map_raw)
        return SS_EINVAL; /* no compressed chunk, none to sum in place: nothing to do here */
    struct sst_ahead *a = pool_new(r, fd, size, workers);
    if (!a) return SS_ENOMEM;
    a->map_raw = map_raw;
    /* a raw trace only: compressed chunks are read with pread (mapping them saved ~1 %) */
    int raw = !(sst_reader_header(r)->features & SST_FEAT_ZSTD);
    a->whole = map_raw && raw ? sst_reader_map_whole(r) : NULL;
    while (a->n_threads < workers && pthread_create(&a->th[a->n_threads], NULL, worker, a) == 0)
        a->n_threads++;
    if (!a->n_threads) {
        pool_free(a);
        return SS_EIO;
    }
    sst_reader_set_ahead(r, &k_ops, a);
    return 0;
}
