/*
 * ssi_window.c — the part of a trace an export writes; see ssi_window.h.
 *
 * A range is two records: its open (NVTX push or start, step begin) and its close (pop, end,
 * step end), matched as the exporters match them: pushes and step begins per thread, last in
 * first out; starts and ends by range id. The preparing pass keeps, for every open range, its
 * open's position among the range records and its time, in a table of the open ranges keyed by
 * (kind, thread or id); each entry links to the one it covered (a stack per key). A closed
 * range sets the bits of its two records when it overlaps the window. What was never closed
 * counts from its open to the end of the trace; a close without an open is an instant.
 */
#include "ssi_window.h"

#include <stdlib.h>
#include <string.h>

#include "util/ss_error.h"

/* Kinds written whatever the window: what other records name or what says how the trace was
 * recorded (their times, where they have one, are not events a window would cut). */
static const uint8_t k_always[SST_REC_TYPE_LIMIT] = {
    [SST_REC_STRING] = 1, [SST_REC_PROCESS] = 1,  [SST_REC_THREAD] = 1,
    [SST_REC_ENV] = 1,    [SST_REC_DEVICE] = 1,   [SST_REC_NOTICE] = 1,
    [SST_REC_DROPPED] = 1, [SST_REC_CAPTURE] = 1, [SST_REC_NVTX_DOMAIN] = 1,
    [SST_REC_COST] = 1,   [SST_REC_PY_FRAME] = 1, [SST_REC_PY_STACK] = 1,
};

enum rule { RULE_ALWAYS, RULE_TIMED, RULE_OPEN, RULE_CLOSE };
enum range_kind { RANGE_PUSH = 1, RANGE_START, RANGE_STEP };

struct range_key {
    uint64_t id; /* the thread, or the NVTX range id */
    uint8_t kind;
};

/* How record h is kept; for a range record its key and time. */
static enum rule rule_of(const struct sst_rec_header *h, struct range_key *k, uint64_t *ts)
{
    if (h->type >= SST_REC_TYPE_LIMIT || k_always[h->type]) return RULE_ALWAYS;
    if (h->type >= SST_REC_NVTX_PUSH && h->type <= SST_REC_NVTX_END) {
        struct sst_rec_nvtx n;
        sst_rec_load(h, &n, sizeof n);
        int by_id = h->type == SST_REC_NVTX_START || h->type == SST_REC_NVTX_END;
        *k = (struct range_key){by_id ? n.range_id : n.tid, by_id ? RANGE_START : RANGE_PUSH};
        *ts = n.ts_ns;
        return h->type == SST_REC_NVTX_PUSH || h->type == SST_REC_NVTX_START ? RULE_OPEN
                                                                            : RULE_CLOSE;
    }
    if (h->type == SST_REC_STEP) {
        struct sst_rec_step s;
        sst_rec_load(h, &s, sizeof s);
        *k = (struct range_key){s.tid, RANGE_STEP};
        *ts = s.ts_ns;
        if (s.phase == SST_STEP_BEGIN) return RULE_OPEN;
        if (s.phase == SST_STEP_END) return RULE_CLOSE;
    }
    return RULE_TIMED;
}

int ssi_window_overlaps(const struct ssi_window *w, uint64_t t0, uint64_t t1)
{
    if (!w) return 1;
    if (t0 == t1) return t0 >= w->from_ns && t0 <= w->to_ns; /* an instant: inside */
    return t0 < w->to_ns && t1 > w->from_ns; /* a span: more than its ends touching */
}

/* ---- the preparing pass: the open ranges ---- */

struct open_range {
    struct range_key key;
    uint64_t ordinal, ts;
    uint32_t below; /* index + 1 of the entry this one covered (same key), 0: none */
    uint16_t type;  /* the open's record kind */
};

struct pairing {
    struct ssi_window *w;
    struct open_range *v; /* entries; freed ones chained through .below from free_head */
    size_t n, cap;
    uint32_t free_head;
    uint32_t *slots; /* linear probing: index + 1 of the key's top entry, 0 empty */
    size_t cap_slots, used_slots;
    uint64_t bits_cap; /* bytes of w->range_keep */
};

static size_t key_slot(const struct range_key *k, size_t cap)
{
    uint64_t x = (k->id ^ (uint64_t)k->kind << 56) * 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 32) & (cap - 1);
}

static int same_key(const struct range_key *a, const struct range_key *b)
{
    return a->id == b->id && a->kind == b->kind;
}

/* The slot of key k: its top entry's, or the empty one where it would go. */
static size_t find_slot(const struct pairing *p, const struct range_key *k)
{
    size_t j = key_slot(k, p->cap_slots);
    while (p->slots[j] && !same_key(&p->v[p->slots[j] - 1].key, k))
        j = (j + 1) & (p->cap_slots - 1);
    return j;
}

static int slots_grow(struct pairing *p)
{
    size_t cap = p->cap_slots ? 2 * p->cap_slots : 256;
    uint32_t *old = p->slots;
    size_t old_cap = p->cap_slots;
    if (!(p->slots = calloc(cap, sizeof *p->slots))) return p->slots = old, SS_ENOMEM;
    p->cap_slots = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i]) p->slots[find_slot(p, &p->v[old[i] - 1].key)] = old[i];
    free(old);
    return 0;
}

/* Empties slot j, moving back the entries after it that probing would no longer reach. */
static void slot_delete(struct pairing *p, size_t j)
{
    size_t mask = p->cap_slots - 1;
    p->slots[j] = 0;
    for (size_t i = (j + 1) & mask; p->slots[i]; i = (i + 1) & mask) {
        size_t home = key_slot(&p->v[p->slots[i] - 1].key, p->cap_slots);
        if (((i - home) & mask) < ((i - j) & mask)) continue; /* still reachable from home */
        p->slots[j] = p->slots[i], p->slots[i] = 0, j = i;
    }
    p->used_slots--;
}

/* An entry for a new open range (index + 1), from the freed ones or the end. */
static uint32_t entry_new(struct pairing *p)
{
    if (p->free_head) {
        uint32_t e = p->free_head;
        p->free_head = p->v[e - 1].below;
        return e;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        void *v = cap < UINT32_MAX ? realloc(p->v, cap * sizeof *p->v) : NULL;
        if (!v) return 0;
        p->v = v, p->cap = cap;
    }
    return (uint32_t)++p->n;
}

static void set_bit(struct ssi_window *w, uint64_t ordinal)
{
    w->range_keep[ordinal >> 3] |= (uint8_t)(1u << (ordinal & 7));
}

/* Room for range record number `ordinal`'s bit. */
static int bits_reserve(struct pairing *p, uint64_t ordinal)
{
    if (ordinal >> 3 < p->bits_cap) return 0;
    size_t cap = p->bits_cap ? 2 * p->bits_cap : 4096;
    uint8_t *b = realloc(p->w->range_keep, cap);
    if (!b) return SS_ENOMEM;
    memset(b + p->bits_cap, 0, cap - p->bits_cap);
    p->w->range_keep = b, p->bits_cap = cap;
    return 0;
}

static void count_kept(struct ssi_window *w, uint16_t type, int event)
{
    if (type < SST_REC_TYPE_LIMIT) w->kept[type]++;
    w->kept_events += event;
}

static int range_open(struct pairing *p, const struct range_key *k, uint64_t ordinal,
                      uint64_t ts, uint16_t type)
{
    if ((p->used_slots + 1) * 2 > p->cap_slots && slots_grow(p)) return SS_ENOMEM;
    uint32_t e = entry_new(p);
    if (!e) return SS_ENOMEM;
    size_t j = find_slot(p, k);
    p->v[e - 1] = (struct open_range){*k, ordinal, ts, p->slots[j], type};
    p->used_slots += !p->slots[j];
    p->slots[j] = e;
    return 0;
}

/* Marks both records of a range that overlaps the window. */
static void range_keep(struct pairing *p, const struct open_range *o, uint64_t ordinal,
                       uint64_t end_ts, uint16_t type)
{
    if (!ssi_window_overlaps(p->w, o->ts, end_ts)) return;
    set_bit(p->w, o->ordinal), set_bit(p->w, ordinal);
    count_kept(p->w, o->type, 1), count_kept(p->w, type, 1);
}

static void range_close(struct pairing *p, const struct range_key *k, uint64_t ordinal,
                        uint64_t ts, uint16_t type)
{
    size_t j = p->cap_slots ? find_slot(p, k) : 0;
    uint32_t e = p->cap_slots ? p->slots[j] : 0;
    if (!e) { /* no open: an instant */
        if (ssi_window_overlaps(p->w, ts, ts)) set_bit(p->w, ordinal), count_kept(p->w, type, 1);
        return;
    }
    struct open_range *o = &p->v[e - 1];
    range_keep(p, o, ordinal, ts, type);
    if (o->below)
        p->slots[j] = o->below;
    else
        slot_delete(p, j);
    o->below = p->free_head, p->free_head = e;
}

/* The ranges still open at the end run to the trace's last time. */
static void ranges_unclosed(struct pairing *p)
{
    for (size_t j = 0; j < p->cap_slots; j++)
        for (uint32_t e = p->slots[j]; e; e = p->v[e - 1].below)
            if (ssi_window_overlaps(p->w, p->v[e - 1].ts, p->w->last_ns)) {
                set_bit(p->w, p->v[e - 1].ordinal);
                count_kept(p->w, p->v[e - 1].type, 1);
            }
}

static void note_span(struct ssi_window *w, uint64_t t0, uint64_t t1)
{
    if (!t0) return;
    w->first_ns = !w->first_ns || t0 < w->first_ns ? t0 : w->first_ns;
    w->last_ns = t1 > w->last_ns ? t1 : w->last_ns;
}

static int prepare_record(struct pairing *p, const struct sst_rec_header *h)
{
    struct range_key k;
    uint64_t ts = 0, t0, t1;
    enum rule rule = rule_of(h, &k, &ts);
    if (rule == RULE_ALWAYS) return count_kept(p->w, h->type, 0), 0;
    if (rule == RULE_TIMED) {
        int timed = sst_rec_time_range(h, &t0, &t1);
        if (timed) note_span(p->w, t0, t1);
        if (!timed || ssi_window_overlaps(p->w, t0, t1)) count_kept(p->w, h->type, timed);
        return 0;
    }
    note_span(p->w, ts, ts);
    uint64_t ordinal = p->w->n_ranges++;
    if (bits_reserve(p, ordinal)) return SS_ENOMEM;
    if (rule == RULE_OPEN) return range_open(p, &k, ordinal, ts, h->type);
    range_close(p, &k, ordinal, ts, h->type);
    return 0;
}

int ssi_window_prepare(struct sst_reader *r, uint64_t from_ns, uint64_t to_ns,
                       struct ssi_window *w)
{
    memset(w, 0, sizeof *w);
    w->from_ns = from_ns, w->to_ns = to_ns;
    struct pairing p = {.w = w};
    const struct sst_rec_header *h;
    int rc = sst_reader_rewind(r);
    while (rc == 0 && (rc = sst_reader_next(r, &h)) == 1)
        rc = prepare_record(&p, h);
    if (rc >= 0) ranges_unclosed(&p), rc = 0;
    sst_reader_damage(r, &w->damage); /* before the rewind forgets it */
    free(p.v), free(p.slots);
    int rw = sst_reader_rewind(r);
    return rc ? rc : rw;
}

void ssi_window_free(struct ssi_window *w)
{
    if (w) free(w->range_keep), w->range_keep = NULL;
}

/* ---- the export's pass ---- */

int ssi_window_rewind(struct sst_reader *r, struct ssi_window *w)
{
    if (w) w->next_range = 0;
    return sst_reader_rewind(r);
}

/* Whether the export writes h (the ranges: as the preparing pass decided). */
static int window_keeps(struct ssi_window *w, const struct sst_rec_header *h)
{
    struct range_key k;
    uint64_t ts = 0, t0, t1;
    enum rule rule = rule_of(h, &k, &ts);
    if (rule == RULE_ALWAYS) return 1;
    if (rule == RULE_TIMED)
        return !sst_rec_time_range(h, &t0, &t1) || ssi_window_overlaps(w, t0, t1);
    uint64_t i = w->next_range++;
    return i < w->n_ranges && (w->range_keep[i >> 3] >> (i & 7) & 1);
}

int ssi_window_next(struct sst_reader *r, struct ssi_window *w, const struct sst_rec_header **h)
{
    int rc;
    while ((rc = sst_reader_next(r, h)) == 1)
        if (!w || window_keeps(w, *h)) return 1;
    return rc;
}
