/*
 * ssa_util.c — the analysis's small containers: an id map, NVTX push/pop stacks, the NVTX
 * message classification cache, candidate step lists, quantiles, and the name tables.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

/* ---- id map ---- */

static size_t idmap_slot(uint32_t key, size_t cap)
{
    return (size_t)((key * 2654435761u) & (uint32_t)(cap - 1));
}

void ssa_idmap_free(struct ssa_idmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

uint32_t *ssa_idmap_get(const struct ssa_idmap *m, uint32_t key)
{
    if (!m->cap) return NULL;
    for (size_t i = idmap_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) return NULL;
        if (m->keys[i] == key) return &m->vals[i];
    }
}

static int idmap_grow(struct ssa_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct ssa_idmap g = {malloc(cap * sizeof *g.keys), malloc(cap * sizeof *g.vals),
                          calloc(cap, 1), cap, 0};
    if (!g.keys || !g.vals || !g.used) {
        ssa_idmap_free(&g);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) *ssa_idmap_put(&g, m->keys[i], m->vals[i]) = m->vals[i];
    ssa_idmap_free(m);
    *m = g;
    return 0;
}

uint32_t *ssa_idmap_put(struct ssa_idmap *m, uint32_t key, uint32_t val)
{
    uint32_t *v = ssa_idmap_get(m, key);
    if (v) return v;
    if ((m->n + 1) * 2 > m->cap && idmap_grow(m) != 0) return NULL; /* load <= 1/2 */
    size_t i = idmap_slot(key, m->cap);
    while (m->used[i])
        i = (i + 1) & (m->cap - 1);
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return &m->vals[i];
}

/* ---- API classes ---- */

void ssa_api_lut_init(struct ssa_api_lut *t)
{
    static const uint8_t domains[2] = {SST_API_RUNTIME, SST_API_DRIVER};
    for (int d = 0; d < 2; d++)
        for (uint32_t cbid = 0; cbid < SSA_API_LUT_N; cbid++) {
            t->cls[d][cbid] = (uint8_t)ssa_api_class(domains[d], cbid);
            t->cat[d][cbid] = (uint8_t)ssa_api_cat(t->cls[d][cbid]);
            t->launch[d][cbid] = (uint8_t)ssa_api_launch_bits(domains[d], cbid);
        }
}

/* ---- NVTX messages ---- */

static int text_is(struct sst_reader *r, uint32_t id, const char *want)
{
    uint32_t len;
    const char *s = sst_reader_string(r, id, &len);
    return s && len == strlen(want) && memcmp(s, want, len) == 0;
}

/* Whether the message names the user's step marker (exact name, or its regex). */
static int is_user_marker(const struct ssa_marker *m, const char *s, uint32_t len)
{
    if (!m || !m->active) return 0;
    if (!m->is_re) return len == m->len && memcmp(s, m->name, len) == 0;
    char *z = malloc((size_t)len + 1); /* regexec wants a C string */
    if (!z) return 0;
    memcpy(z, s, len);
    z[len] = '\0';
    int hit = strlen(z) == len && regexec(&m->re, z, 0, NULL, 0) == 0;
    free(z);
    return hit;
}

static enum ssa_msg classify_base(const char *s, uint32_t len)
{
    if (len == 4 && memcmp(s, "step", 4) == 0) return SSA_MSG_STEP;
    if (len == 4 && memcmp(s, "data", 4) == 0) return SSA_MSG_DATA;
    if (len > 13 && memcmp(s, "ProfilerStep#", 13) == 0) return SSA_MSG_PROFILER;
    if (len > 9 && memcmp(s, "compile: ", 9) == 0) return SSA_MSG_COMPILE;
    if (len > 11 && memcmp(s, "recompile: ", 11) == 0) return SSA_MSG_RECOMPILE;
    if (len > 13 && memcmp(s, "graph break: ", 13) == 0) return SSA_MSG_GRAPH_BREAK;
    if (len > 7 && memcmp(s, "batch: ", 7) == 0) return SSA_MSG_BATCH;
    if (len > 12 && memcmp(s, "dataloader: ", 12) == 0) return SSA_MSG_LOADER;
    return SSA_MSG_OTHER;
}

static unsigned classify_message(struct sst_reader *r, uint32_t message,
                                 const struct ssa_marker *marker)
{
    uint32_t len;
    const char *s = sst_reader_string(r, message, &len);
    if (!s) return SSA_MSG_OTHER;
    unsigned user = is_user_marker(marker, s, len) ? SSA_MSG_USER_BIT : 0;
    return user | classify_base(s, len);
}

/* The message's classification (classify_message), cached. */
static unsigned message_kind(struct ssa_msgcache *c, struct sst_reader *r, uint32_t message)
{
    if (message < SSA_MSG_DENSE && !c->dense) c->dense = calloc(SSA_MSG_DENSE, 1);
    if (message < SSA_MSG_DENSE && c->dense) {
        if (!c->dense[message])
            c->dense[message] = (uint8_t)(classify_message(r, message, c->marker) + 1);
        return c->dense[message] - 1u;
    }
    uint32_t *m = ssa_idmap_get(&c->messages, message);
    unsigned full = m ? *m : classify_message(r, message, c->marker);
    if (!m) ssa_idmap_put(&c->messages, message, full); /* out of memory: just not cached */
    return full;
}

enum ssa_msg ssa_msg_kind(struct ssa_msgcache *c, struct sst_reader *r, uint32_t domain,
                          uint32_t message)
{
    unsigned full = message_kind(c, r, message);
    unsigned user = full & SSA_MSG_USER_BIT;
    enum ssa_msg kind = ssa_msg_base(full);
    if (kind == SSA_MSG_PROFILER || kind == SSA_MSG_OTHER) return (enum ssa_msg)(kind | user);
    /* "step", "data" and the compile marks count only in stepscope's own domain
     * (docs/markers.md) */
    if (!c->last_set || c->last_domain != domain) {
        uint32_t *d = ssa_idmap_get(&c->domains, domain);
        int ours = d ? (int)*d : text_is(r, domain, "stepscope");
        if (!d) ssa_idmap_put(&c->domains, domain, (uint32_t)ours);
        c->last_domain = domain, c->last_ours = (uint8_t)(ours != 0), c->last_set = 1;
    }
    return (enum ssa_msg)((c->last_ours ? kind : SSA_MSG_OTHER) | user);
}

int ssa_marker_init(struct ssa_marker *m, const char *spec)
{
    memset(m, 0, sizeof *m);
    if (!spec) return 0;
    if (!*spec || !strcmp(spec, "re:")) return SS_EINVAL; /* would match every range */
    if (strncmp(spec, "re:", 3) == 0) {
        if (regcomp(&m->re, spec + 3, REG_EXTENDED | REG_NOSUB) != 0) return SS_EINVAL;
        m->is_re = 1;
    } else {
        m->name = spec;
        m->len = strlen(spec);
    }
    m->active = 1;
    return 0;
}

void ssa_marker_free(struct ssa_marker *m)
{
    if (m->active && m->is_re) regfree(&m->re);
    memset(m, 0, sizeof *m);
}

void ssa_msgcache_free(struct ssa_msgcache *c)
{
    ssa_idmap_free(&c->domains);
    ssa_idmap_free(&c->messages);
    free(c->dense);
    c->dense = NULL;
}

uint64_t ssa_profiler_step_number(struct sst_reader *r, uint32_t message, uint64_t fallback)
{
    uint32_t len;
    const char *s = sst_reader_string(r, message, &len);
    if (!s || len <= 13) return fallback;
    uint64_t n = 0;
    for (uint32_t i = 13; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || n > UINT64_MAX / 10 - 9) return fallback;
        n = n * 10 + (uint64_t)(s[i] - '0');
    }
    return n;
}

/* ---- stacks ---- */

struct ssa_stack *ssa_stack_of(struct ssa_stacks *st, uint32_t tid)
{
    if (st->last_ix && st->last_tid == tid) return &st->s[st->last_ix - 1];
    uint32_t *ix = ssa_idmap_get(&st->by_tid, tid);
    if (ix) {
        st->last_tid = tid, st->last_ix = *ix + 1;
        return &st->s[*ix];
    }
    if (st->n >= SSA_NVTX_THREADS) return NULL;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 8;
        struct ssa_stack *s = realloc(st->s, cap * sizeof *s);
        if (!s) return NULL;
        st->s = s;
        st->cap = cap;
    }
    if (!ssa_idmap_put(&st->by_tid, tid, (uint32_t)st->n)) return NULL;
    struct ssa_stack *s = &st->s[st->n++];
    st->last_tid = tid, st->last_ix = (uint32_t)st->n;
    s->tid = tid;
    s->depth = 0;
    s->user_open = 0;
    return s;
}

void ssa_stacks_free(struct ssa_stacks *st)
{
    ssa_idmap_free(&st->by_tid);
    free(st->s);
    memset(st, 0, sizeof *st);
}

/* ---- candidate steps ---- */

int ssa_cand_add(struct ssa_candlist *l, const struct ssa_cand *c)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct ssa_cand *v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *c;
    return 0;
}

/* ---- quantiles ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* LSD radix sort, one byte per pass, skipping bytes all values share (step durations:
 * ~4 passes); qsort for short arrays or when the scratch array cannot be had. */
static void sort_u64(uint64_t *v, size_t n)
{
    uint64_t *tmp = n >= 256 ? malloc(n * sizeof *tmp) : NULL;
    if (!tmp) {
        qsort(v, n, sizeof *v, cmp_u64);
        return;
    }
    uint64_t all_or = 0, all_and = ~(uint64_t)0, *src = v, *dst = tmp;
    for (size_t i = 0; i < n; i++)
        all_or |= v[i], all_and &= v[i];
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (!(((all_or ^ all_and) >> shift) & 0xff)) continue;
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((src[i] >> shift) & 0xff) + 1]++;
        for (size_t d = 1; d < 257; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
    free(tmp);
}

uint64_t ssa_quantile_u64(uint64_t *v, size_t n, double q)
{
    if (n == 0) return 0;
    size_t sorted = 1;
    while (sorted < n && v[sorted - 1] <= v[sorted])
        sorted++;
    if (sorted < n) sort_u64(v, n);   /* callers ask several quantiles of one array */
    double pos = q * (double)(n - 1); /* linear interpolation between closest ranks */
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return v[n - 1];
    double frac = pos - (double)lo;
    return v[lo] + (uint64_t)(frac * (double)(v[lo + 1] - v[lo]) + 0.5);
}

/* ---- names ---- */

const char *ssa_cat_name(int cat)
{
    static const char *const names[] = {
#define SSA_X_NAME(id, name, glyph, ansi, fill, argb, text) name,
        SSA_CATS(SSA_X_NAME)
#undef SSA_X_NAME
    };
    return cat >= 0 && cat < SSA_CAT_COUNT ? names[cat] : NULL;
}

const char *ssa_cat_description(int cat)
{
    static const char *const texts[] = {
#define SSA_X_TEXT(id, name, glyph, ansi, fill, argb, text) text,
        SSA_CATS(SSA_X_TEXT)
#undef SSA_X_TEXT
    };
    return cat >= 0 && cat < SSA_CAT_COUNT ? texts[cat] : NULL;
}

const char *ssa_step_source_name(int src)
{
    static const char *const names[] = {"none",     "step_records", "nvtx",          "profiler",
                                        "detected", "marker",       "graph_launches"};
    return src >= 0 && src <= SSA_STEPS_GRAPHS ? names[src] : NULL;
}

uint64_t ssa_gpu_records(const struct ssa_result *r)
{
    return r->kernels + r->memcpys + r->memsets + r->graphs;
}

int ssa_pass_begin(struct sst_reader *r, struct ssa_pass *ps)
{
    ps->r = r;
    sst_reader_set_problem(r, NULL, NULL, &ps->fn, &ps->ctx);
    return sst_reader_rewind(r);
}

void ssa_pass_end(struct ssa_pass *ps)
{
    sst_reader_set_problem(ps->r, ps->fn, ps->ctx, NULL, NULL);
}
