/*
 * ssc_buf.c — per-thread record buffers: how any thread of the training program hands records
 * to the writer thread without taking a lock and without ever waiting.
 *
 * Each recording thread owns one ssc_tbuf: a chain of fixed-size blocks that only it appends
 * to (single producer) and only the writer thread reads (single consumer). A record is
 * published by a release store of the block's `committed` length; the writer reads up to
 * that length. A full block is sealed by linking the next one; the writer frees a block once
 * it has read past its end and the next block exists.
 *
 * Blocks come from one pool whose size is the memory cap. When the pool is empty a thread
 * drops its record and counts it (the program is never blocked); the writer returns drained
 * blocks to the pool every round, so recording resumes as soon as the writer catches up.
 *
 * The list of buffers is a lock-free stack: threads push themselves once, only the writer
 * unlinks (buffers of exited threads, after draining them).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/ssc_core.h"

#define BLOCK_BYTES (64u << 10)

struct block {
    _Atomic(struct block *) next; /* set once by the producer when this block is full */
    _Atomic uint32_t committed;   /* bytes of data holding complete records */
    uint32_t cap;                 /* bytes of data */
    _Alignas(8) uint8_t data[];
};

/* The collector's own cost in one kind (COST records): added to by one thread only, read by
 * the writer. */
#define SSC_COST_KINDS SST_COST_KIND_LIMIT /* enum sst_cost_kind starts at 1 */
struct cost_ctr {
    _Atomic uint64_t events, timed, ns;
};

struct ssc_tbuf {
    /* producer side (the owning thread only) */
    struct block *wblk;
    uint32_t wpos;
    /* shared */
    _Atomic(struct block *) first; /* first block ever obtained (the producer sets it once) */
    _Atomic int dead;              /* the thread has exited: no more records */
    struct ssc_tbuf *next;         /* in the list; written before publication, then by writer */
    /* consumer side (writer thread only) */
    struct block *rblk;
    uint32_t rpos;
    struct block *snap_blk;
    uint32_t snap_pos;
    int snap_dead;
    uint32_t tid;
    struct cost_ctr cost[SSC_COST_KINDS]; /* the owning thread adds, the writer reads */
    uint64_t cost_seen[SSC_COST_KINDS];   /* writer: events at the last COST record */
};

/* Largest record a block holds (a little under SST_REC_MAX; no producer comes close). */
#define BLOCK_DATA (BLOCK_BYTES - offsetof(struct block, data))

static _Atomic(struct ssc_tbuf *) g_list;
static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct block *g_free;    /* drained blocks ready for reuse */
static _Atomic int64_t g_avail; /* free blocks + blocks the cap still allows to allocate */
static int64_t g_cap_blocks;
static pthread_key_t g_key;
static __thread struct ssc_tbuf *tls_tb;
static __thread struct sst_writer *tls_writer; /* set on the writer thread only */

static struct cost_ctr g_writer_cost[SSC_COST_KINDS]; /* the writer thread's own */
static uint64_t g_writer_cost_seen[SSC_COST_KINDS];
static uint32_t g_writer_tid;

static _Atomic uint64_t g_drops[SSC_DROP_SOURCES][SST_REC_TYPE_LIMIT];
static uint64_t g_drops_seen[SSC_DROP_SOURCES][SST_REC_TYPE_LIMIT]; /* writer thread */

/* ---- drop counters ---------------------------------------------------------------------- */

void ssc_count_dropped(uint8_t source, uint16_t rec_type, uint64_t count)
{
    if (source >= SSC_DROP_SOURCES) source = 0;
    if (rec_type >= SST_REC_TYPE_LIMIT) rec_type = 0;
    atomic_fetch_add_explicit(&g_drops[source][rec_type], count, memory_order_relaxed);
}

void ssc_drops_take(uint64_t counts[SSC_DROP_SOURCES][SST_REC_TYPE_LIMIT])
{
    for (int s = 0; s < SSC_DROP_SOURCES; s++)
        for (int t = 0; t < SST_REC_TYPE_LIMIT; t++) {
            uint64_t now = atomic_load_explicit(&g_drops[s][t], memory_order_relaxed);
            counts[s][t] = now - g_drops_seen[s][t];
            g_drops_seen[s][t] = now;
        }
}

/* ---- block pool -------------------------------------------------------------------------- */

/* Takes a block for tb and links it into tb's chain, both under g_pool_mu: a fork() then
 * never catches a block that belongs to nobody (the child frees every chain it inherits). */
static struct block *block_get_linked(struct ssc_tbuf *tb)
{
    /* The unlocked check keeps a thread that is over the cap from taking the lock per record. */
    if (atomic_load_explicit(&g_avail, memory_order_relaxed) <= 0) return NULL;
    struct block *b = NULL;
    pthread_mutex_lock(&g_pool_mu);
    if (atomic_load_explicit(&g_avail, memory_order_relaxed) > 0) {
        if (g_free) {
            b = g_free;
            g_free = atomic_load_explicit(&b->next, memory_order_relaxed);
        } else {
            b = malloc(BLOCK_BYTES);
        }
    }
    if (b) {
        atomic_fetch_sub_explicit(&g_avail, 1, memory_order_relaxed);
        atomic_store_explicit(&b->next, NULL, memory_order_relaxed);
        atomic_store_explicit(&b->committed, 0, memory_order_relaxed);
        b->cap = (uint32_t)BLOCK_DATA;
        if (tb->wblk)
            atomic_store_explicit(&tb->wblk->next, b, memory_order_release);
        else
            atomic_store_explicit(&tb->first, b, memory_order_release);
    }
    pthread_mutex_unlock(&g_pool_mu);
    return b;
}

static void block_put(struct block *b)
{
    pthread_mutex_lock(&g_pool_mu);
    atomic_store_explicit(&b->next, g_free, memory_order_relaxed);
    g_free = b;
    atomic_fetch_add_explicit(&g_avail, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_pool_mu);
}

void ssc_buf_lock_all(void)
{
    pthread_mutex_lock(&g_pool_mu);
}

void ssc_buf_unlock_all(void)
{
    pthread_mutex_unlock(&g_pool_mu);
}

/* ---- thread buffers --------------------------------------------------------------------- */

/* pthread key destructor: the thread is exiting; the writer frees the buffer once drained. */
static void tbuf_thread_exit(void *p)
{
    struct ssc_tbuf *tb = p;
    if (tls_tb == tb) tls_tb = NULL;
    atomic_store_explicit(&tb->dead, 1, memory_order_release);
}

void ssc_buf_global_init(void)
{
    g_cap_blocks = (int64_t)(ssc_setting(SST_SET_MEMORY_CAP)->num / BLOCK_BYTES);
    if (g_cap_blocks < 1) g_cap_blocks = 1;
    atomic_store(&g_avail, g_cap_blocks);
    pthread_key_create(&g_key, tbuf_thread_exit);
}

void ssc_buf_set_writer_thread(struct sst_writer *w)
{
    tls_writer = w;
    g_writer_tid = ssc_gettid();
}

/* ---- the collector's own cost ------------------------------------------------------------ */

/* One producer per counter: a load and a store, no locked instruction on the hot path. The
 * events count is stored last (release), so a reader that sees it sees the time with it. */
static void ctr_add(struct cost_ctr *c, uint64_t events, uint64_t timed, uint64_t ns)
{
    atomic_store_explicit(&c->ns, atomic_load_explicit(&c->ns, memory_order_relaxed) + ns,
                          memory_order_relaxed);
    atomic_store_explicit(&c->timed, atomic_load_explicit(&c->timed, memory_order_relaxed) + timed,
                          memory_order_relaxed);
    atomic_store_explicit(&c->events,
                          atomic_load_explicit(&c->events, memory_order_relaxed) + events,
                          memory_order_release);
}

void ssc_cost_add(uint8_t kind, uint64_t events, uint64_t timed, uint64_t ns)
{
    if (kind == 0 || kind >= SSC_COST_KINDS) return;
    if (tls_writer) {
        ctr_add(&g_writer_cost[kind], events, timed, ns);
        return;
    }
    if (atomic_load_explicit(&ssc_g_state, memory_order_acquire) != SSC_RUNNING) return;
    struct ssc_tbuf *tb = tls_tb ? tls_tb : ssc_tbuf_self();
    if (tb) ctr_add(&tb->cost[kind], events, timed, ns);
}

uint64_t ssc_buf_writer_cost_ns(uint8_t kind)
{
    return kind < SSC_COST_KINDS ? atomic_load(&g_writer_cost[kind].ns) : 0;
}

/* A COST record for one kind of one thread, when its count moved (writer thread). */
static void write_cost(uint32_t tid, uint8_t kind, struct cost_ctr *c, uint64_t *seen,
                       uint64_t now)
{
    uint64_t events = atomic_load_explicit(&c->events, memory_order_acquire);
    if (events == *seen) return;
    struct sst_rec_cost *r = ssc_writer_rec(SST_REC_COST, sizeof *r);
    if (!r) return;
    *seen = events;
    r->kind = kind;
    r->tid = tid;
    r->ts_ns = now;
    r->events = events;
    r->timed = atomic_load_explicit(&c->timed, memory_order_relaxed);
    r->ns = atomic_load_explicit(&c->ns, memory_order_relaxed);
}

static void write_costs_of(uint32_t tid, struct cost_ctr *c, uint64_t *seen)
{
    uint64_t now = sst_now_ns();
    for (uint8_t k = 1; k < SSC_COST_KINDS; k++)
        write_cost(tid, k, &c[k], &seen[k], now);
}

void ssc_buf_write_costs(void)
{
    for (struct ssc_tbuf *tb = atomic_load_explicit(&g_list, memory_order_acquire); tb;
         tb = tb->next)
        write_costs_of(tb->tid, tb->cost, tb->cost_seen);
    write_costs_of(g_writer_tid, g_writer_cost, g_writer_cost_seen);
}

/* The threads this process has named: an open-addressing set of tids, lock-free (no lock to
 * be caught mid-fork), bounded; the child of a fork starts it empty. */
#define SSC_NAMED_SLOTS 4096
#define SSC_NAMED_PROBES 64
static _Atomic uint32_t g_named[SSC_NAMED_SLOTS];

/* 1 when tid was not in the set and now is; 0 when it was, or the set has no room for it. */
static int named_insert(uint32_t tid)
{
    uint32_t at = (tid * 2654435761u) >> 20; /* 12 bits: SSC_NAMED_SLOTS */
    for (unsigned i = 0; i < SSC_NAMED_PROBES; i++) {
        _Atomic uint32_t *slot = &g_named[(at + i) % SSC_NAMED_SLOTS];
        uint32_t seen = atomic_load_explicit(slot, memory_order_acquire);
        if (seen == 0 && atomic_compare_exchange_strong_explicit(
                             slot, &seen, tid, memory_order_acq_rel, memory_order_acquire))
            return 1;
        if (seen == tid) return 0;
    }
    return 0;
}
_Static_assert(SSC_NAMED_SLOTS == 1u << 12, "named_insert's hash keeps 12 bits");

/* Reads /proc/self/task/TID/comm and writes the THREAD record naming this thread. */
static void tbuf_name_thread(uint32_t tid)
{
    uint64_t t0 = sst_now_ns();
    char path[64], name[64];
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t got = read(fd, name, sizeof name - 1);
    close(fd);
    size_t n = got > 0 ? (size_t)got : 0;
    while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
        n--;
    /* before reserve: on the writer thread (CUPTI's last flush) a record goes straight to the
     * file, and the STRING record of a name interned after it would follow it */
    uint32_t id = ssc_intern(name, n);
    struct sst_rec_thread *r = ssc_rec_reserve(SST_REC_THREAD, sizeof *r);
    if (!r) return;
    r->tid = tid;
    r->name = id;
    r->ts_ns = sst_now_ns();
    ssc_rec_commit(r);
    ssc_cost_add(SST_COST_THREAD_NAME, 1, 1, sst_now_ns() - t0);
}

struct ssc_tbuf *ssc_tbuf_self(void)
{
    if (tls_tb) return tls_tb;
    /* Allocated and published under g_pool_mu, so fork() never sees it half-made; the key's
     * value too: glibc allocates a second-level array for a key past the first 32, and an
     * allocator without a fork handler (ASan's) must not be caught in that by a fork. */
    pthread_mutex_lock(&g_pool_mu);
    struct ssc_tbuf *tb = calloc(1, sizeof *tb);
    if (tb) {
        tb->tid = ssc_gettid();
        tb->next = atomic_load_explicit(&g_list, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&g_list, &tb->next, tb, memory_order_release,
                                                      memory_order_relaxed)) {
        }
        pthread_setspecific(g_key, tb);
    }
    pthread_mutex_unlock(&g_pool_mu);
    if (!tb) return NULL;
    tls_tb = tb;
    ssc_name_thread_once(tb->tid);
    return tb;
}

void ssc_name_thread_once(uint32_t tid)
{
    if (tid && named_insert(tid)) tbuf_name_thread(tid);
}

/* Seals the current block (if any) and links a fresh one; 0 when the pool is exhausted. */
static int tbuf_new_block(struct ssc_tbuf *tb)
{
    struct block *b = block_get_linked(tb);
    if (!b) return 0;
    tb->wblk = b;
    tb->wpos = 0;
    return 1;
}

static void *drop(uint16_t type)
{
    ssc_count_dropped(SST_DROP_HOST_BUFFER, type, 1);
    return NULL;
}

void *ssc_rec_reserve(uint16_t type, size_t size)
{
    if (tls_writer) /* the writer thread owns the sst_writer: no need to buffer */
        return ssc_writer_rec(type, size);
    int st = atomic_load_explicit(&ssc_g_state, memory_order_acquire);
    if (st != SSC_RUNNING && (st == SSC_STOPPED || !ssc_top.start())) return NULL;
    if (size < sizeof(struct sst_rec_header) || size > BLOCK_DATA) return drop(type);
    uint32_t sz = (uint32_t)((size + SST_REC_ALIGN - 1) & ~(size_t)(SST_REC_ALIGN - 1));
    struct ssc_tbuf *tb = tls_tb ? tls_tb : ssc_tbuf_self();
    if (!tb) return drop(type);
    if ((!tb->wblk || tb->wpos + sz > tb->wblk->cap) && !tbuf_new_block(tb)) return drop(type);
    uint8_t *p = tb->wblk->data + tb->wpos;
    memset(p, 0, sz);
    struct sst_rec_header h = {type, (uint16_t)sz};
    memcpy(p, &h, sizeof h);
    tb->wpos += sz;
    return p;
}

void ssc_rec_commit(void *rec)
{
    struct ssc_tbuf *tb = tls_tb;
    if (!rec || tls_writer || !tb || !tb->wblk) return;
    atomic_store_explicit(&tb->wblk->committed, tb->wpos, memory_order_release);
}

/* ---- the writer's side ------------------------------------------------------------------ */

void ssc_buf_snapshot(void)
{
    for (struct ssc_tbuf *tb = atomic_load_explicit(&g_list, memory_order_acquire); tb;
         tb = tb->next) {
        /* dead first: once seen set, every commit of the thread is visible below. */
        tb->snap_dead = atomic_load_explicit(&tb->dead, memory_order_acquire);
        if (!tb->rblk) {
            tb->rblk = atomic_load_explicit(&tb->first, memory_order_acquire);
            tb->rpos = 0;
        }
        struct block *b = tb->rblk, *n;
        while (b && (n = atomic_load_explicit(&b->next, memory_order_acquire)) != NULL)
            b = n;
        tb->snap_blk = b;
        tb->snap_pos = b ? atomic_load_explicit(&b->committed, memory_order_acquire) : 0;
    }
}

/* Appends the records in [from, to) of one block. */
static uint64_t copy_records(struct sst_writer *w, const uint8_t *p, uint32_t from, uint32_t to)
{
    uint64_t n = 0;
    while (from + sizeof(struct sst_rec_header) <= to) {
        struct sst_rec_header h;
        memcpy(&h, p + from, sizeof h);
        if (h.size < sizeof h || from + h.size > to)
            break; /* cannot happen: records are written whole before commit */
        sst_writer_append(w, p + from);
        from += h.size;
        n++;
    }
    return n;
}

/* Drains one buffer up to its snapshot, freeing the blocks it has read past. */
static uint64_t drain_one(struct sst_writer *w, struct ssc_tbuf *tb)
{
    uint64_t n = 0;
    while (tb->rblk) {
        struct block *b = tb->rblk;
        if (b == tb->snap_blk) {
            n += copy_records(w, b->data, tb->rpos, tb->snap_pos);
            tb->rpos = tb->snap_pos;
            break;
        }
        /* Sealed: its committed length is final, and its successor exists. */
        n += copy_records(w, b->data, tb->rpos,
                          atomic_load_explicit(&b->committed, memory_order_acquire));
        tb->rblk = atomic_load_explicit(&b->next, memory_order_acquire);
        tb->rpos = 0;
        block_put(b);
    }
    return n;
}

static void tbuf_free(struct ssc_tbuf *tb)
{
    struct block *b = tb->rblk ? tb->rblk : atomic_load(&tb->first);
    while (b) {
        struct block *n = atomic_load(&b->next);
        block_put(b);
        b = n;
    }
    free(tb);
}

/* Unlinks a drained buffer of an exited thread. Only the writer unlinks; threads only push
 * at the head, so anything but the head can be unlinked with a plain store. */
static void tbuf_unlink(struct ssc_tbuf *prev, struct ssc_tbuf *tb)
{
    if (prev) {
        prev->next = tb->next;
        return;
    }
    struct ssc_tbuf *expect = tb;
    if (atomic_compare_exchange_strong(&g_list, &expect, tb->next)) return;
    for (struct ssc_tbuf *p = atomic_load(&g_list); p; p = p->next)
        if (p->next == tb) {
            p->next = tb->next;
            return;
        }
}

uint64_t ssc_buf_drain(struct sst_writer *w)
{
    uint64_t n = 0;
    struct ssc_tbuf *prev = NULL, *tb = atomic_load_explicit(&g_list, memory_order_acquire);
    while (tb) {
        struct ssc_tbuf *next = tb->next;
        n += drain_one(w, tb);
        if (tb->snap_dead) {
            write_costs_of(tb->tid, tb->cost, tb->cost_seen); /* its last word */
            tbuf_unlink(prev, tb);
            tbuf_free(tb);
        } else {
            prev = tb;
        }
        tb = next;
    }
    return n;
}

/* Child of fork: only the forking thread exists, every lock was held across fork() by it
 * (prepare handler), so the structures are consistent; free what belonged to the parent. */
void ssc_buf_after_fork_child(void)
{
    struct ssc_tbuf *tb = atomic_load(&g_list);
    atomic_store(&g_list, NULL);
    while (tb) {
        struct ssc_tbuf *next = tb->next;
        struct block *b = atomic_load(&tb->first);
        if (tb->rblk) b = tb->rblk;
        while (b) {
            struct block *bn = atomic_load(&b->next);
            free(b);
            b = bn;
        }
        free(tb);
        tb = next;
    }
    tls_tb = NULL;
    pthread_setspecific(g_key, NULL);
    for (size_t i = 0; i < SSC_NAMED_SLOTS; i++) /* the child's threads are its own */
        atomic_store_explicit(&g_named[i], 0, memory_order_relaxed);
    for (int k = 0; k < SSC_COST_KINDS; k++) { /* the parent's writer is not ours */
        atomic_store(&g_writer_cost[k].events, 0);
        atomic_store(&g_writer_cost[k].timed, 0);
        atomic_store(&g_writer_cost[k].ns, 0);
        g_writer_cost_seen[k] = 0;
    }
    /* Blocks now exist only on the free list, and those count as available. */
    atomic_store(&g_avail, g_cap_blocks);
    for (int s = 0; s < SSC_DROP_SOURCES; s++)
        for (int t = 0; t < SST_REC_TYPE_LIMIT; t++) {
            atomic_store(&g_drops[s][t], 0);
            g_drops_seen[s][t] = 0;
        }
}
