/*
 * ssc_intern.c — the process-wide string table.
 *
 * Many threads name things (NVTX messages, domains, kernel names from CUPTI) and only the
 * writer thread may touch the sst_writer, so the collector assigns string ids itself: one
 * table under a mutex, taken only when a thread meets a string it has not seen recently; a
 * small per-thread cache answers repeats without a lock.
 *
 * Ordering: a new string's entry is put on the STRING queue before its id is returned. The
 * writer snapshots the thread buffers, then drains this queue, then the buffers up to the
 * snapshot, so a STRING record always precedes the records that use its id.
 *
 * Fork: ids stay valid in the child (entries are never freed), but the child writes a new
 * file that has not defined them. Each file has an epoch; an entry remembers the epoch in
 * which its STRING record was queued and is queued again when that is not the current one.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collect/ssc_core.h"

#define MAX_STRINGS 1000000u
#define MAX_STRING_BYTES (64u << 20)
#define CACHE_SLOTS 256u

struct ssc_str {
    uint64_t hash;
    uint32_t id;
    uint32_t len;
    _Atomic uint32_t epoch; /* file epoch whose STRING queue got this entry */
    struct ssc_str *queued; /* next in the STRING queue (under g_mu) */
    char text[];            /* len bytes, NUL-terminated */
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ssc_str **g_slots;
static size_t g_nslots, g_count, g_bytes;
static uint32_t g_next_id = 1;
static _Atomic uint32_t g_epoch = 1;
static struct ssc_str *g_qhead, *g_qtail; /* STRING records to write, oldest first */
static __thread struct ssc_str *tls_cache[CACHE_SLOTS];

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a: fast for short names */
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)s[i];
        h *= 1099511628211ull;
    }
    return h ? h : 1;
}

/* Cuts to the longest string a STRING record holds without splitting a UTF-8 sequence. */
static size_t clamp_len(const char *s, size_t len)
{
    if (len <= SST_STRING_MAX) return len;
    len = SST_STRING_MAX;
    while (len > 0 && ((uint8_t)s[len] & 0xc0) == 0x80)
        len--;
    return len;
}

static int table_grow(void)
{
    size_t n = g_nslots ? g_nslots * 2 : 1024;
    struct ssc_str **t = calloc(n, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < g_nslots; i++) {
        struct ssc_str *e = g_slots[i];
        if (!e) continue;
        size_t j = e->hash & (n - 1);
        while (t[j])
            j = (j + 1) & (n - 1);
        t[j] = e;
    }
    free(g_slots);
    g_slots = t;
    g_nslots = n;
    return 0;
}

/* Finds or inserts under g_mu; NULL when the table is full or memory ran out. */
static struct ssc_str *table_get_locked(const char *s, size_t len, uint64_t h)
{
    if ((g_count + 1) * 2 > g_nslots && table_grow() != 0) return NULL;
    size_t j = h & (g_nslots - 1);
    for (; g_slots[j]; j = (j + 1) & (g_nslots - 1)) {
        struct ssc_str *e = g_slots[j];
        if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0) return e;
    }
    if (g_count >= MAX_STRINGS || g_bytes + len > MAX_STRING_BYTES) return NULL;
    struct ssc_str *e = malloc(sizeof *e + len + 1);
    if (!e) return NULL;
    e->hash = h;
    e->id = g_next_id++;
    e->len = (uint32_t)len;
    atomic_init(&e->epoch, 0);
    e->queued = NULL;
    memcpy(e->text, s, len);
    e->text[len] = '\0';
    g_slots[j] = e;
    g_count++;
    g_bytes += len;
    return e;
}

/* Queues e's STRING record for the current file unless done already (under g_mu). */
static void queue_locked(struct ssc_str *e)
{
    uint32_t epoch = atomic_load_explicit(&g_epoch, memory_order_relaxed);
    if (atomic_load_explicit(&e->epoch, memory_order_relaxed) == epoch) return;
    e->queued = NULL;
    if (g_qtail)
        g_qtail->queued = e;
    else
        g_qhead = e;
    g_qtail = e;
    /* release: a thread that sees the epoch lock-free also sees the queued entry. */
    atomic_store_explicit(&e->epoch, epoch, memory_order_release);
}

static int entry_current(struct ssc_str *e)
{
    return atomic_load_explicit(&e->epoch, memory_order_acquire) ==
           atomic_load_explicit(&g_epoch, memory_order_relaxed);
}

struct ssc_str *ssc_str_get(const char *s, size_t len)
{
    if (!s) return NULL;
    len = clamp_len(s, len);
    uint64_t h = hash_bytes(s, len);
    struct ssc_str **slot = &tls_cache[h & (CACHE_SLOTS - 1)];
    struct ssc_str *e = *slot;
    if (e && e->hash == h && e->len == len && memcmp(e->text, s, len) == 0) return e;
    pthread_mutex_lock(&g_mu);
    e = table_get_locked(s, len, h);
    pthread_mutex_unlock(&g_mu);
    if (e)
        *slot = e;
    else
        ssc_count_dropped(SST_DROP_STRING, SST_REC_STRING, 1);
    return e;
}

uint32_t ssc_str_id(struct ssc_str *e)
{
    if (!e) return SST_NO_STRING;
    if (!entry_current(e)) {
        pthread_mutex_lock(&g_mu);
        queue_locked(e);
        pthread_mutex_unlock(&g_mu);
    }
    return e->id;
}

const char *ssc_str_text(const struct ssc_str *e, uint32_t *len)
{
    if (len) *len = e ? e->len : 0;
    return e ? e->text : NULL;
}

uint32_t ssc_intern(const char *s, size_t len)
{
    return ssc_str_id(ssc_str_get(s, len));
}

void ssc_str_drain(struct sst_writer *w)
{
    pthread_mutex_lock(&g_mu);
    struct ssc_str *e = g_qhead;
    g_qhead = g_qtail = NULL;
    pthread_mutex_unlock(&g_mu);
    /* Entries are immutable except `queued`, which is only rewritten after a later epoch
     * change (fork child), so walking the taken list unlocked is safe. */
    while (e) {
        struct ssc_str *next = e->queued;
        struct sst_rec_string *r = sst_writer_reserve(w, SST_REC_STRING, sizeof *r + e->len);
        if (r) {
            r->id = e->id;
            r->len = e->len;
            memcpy(r + 1, e->text, e->len);
        }
        e = next;
    }
}

void ssc_str_lock(void)
{
    pthread_mutex_lock(&g_mu);
}

void ssc_str_unlock(void)
{
    pthread_mutex_unlock(&g_mu);
}

void ssc_str_after_fork_child(void)
{
    g_qhead = g_qtail = NULL;
    atomic_fetch_add(&g_epoch, 1);
}
