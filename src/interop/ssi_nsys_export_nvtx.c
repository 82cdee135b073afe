/*
 * ssi_nsys_export_nvtx.c — the trace's NVTX records as NVTX_EVENTS rows.
 *
 * nsys stores a range as one row (start, end); the trace has one record at each end. Push/pop
 * ranges are paired on a stack per thread and domain, start/end ranges by range id; a row is
 * written when its range closes, and ranges still open at the end of the trace are written
 * with end NULL (nsys's reports then extend them to the last timestamp). Domains get small
 * numbers (domainId) in the order they appear, each announced by a NvtxDomainCreate row.
 * STEP records that no NVTX range carries (sources other than the markers) become push/pop
 * ranges "step" in the "stepscope" domain, so that the import finds them again.
 */
#include <stdlib.h>
#include <string.h>

#include "interop/ssi_nsys.h"
#include "interop/ssi_nsys_xp.h"
#include "util/ss_error.h"

#define STEP_DOMAIN "stepscope"

/* ---- domains ---- */

/* The nsys domainId of a domain name (0: the default domain), announced by a DomainCreate row
 * the first time it is seen. x->domains holds trace string ids; name_only for the step domain,
 * which may not be among the trace's strings (domain string id 0 then means "stepscope"). */
static int64_t domain_id(struct xp *x, uint32_t dom, const char *name, uint64_t ts)
{
    if (!dom && !name) return 0;
    for (size_t i = 0; i < x->n_domains; i++)
        if (x->domains[i] == dom) return x->domain_base + (int64_t)i + 1;
    if (x->n_domains == x->cap_domains) {
        size_t cap = x->cap_domains ? x->cap_domains * 2 : 8;
        uint32_t *v = realloc(x->domains, cap * sizeof *v);
        if (!v) return x->rc = SS_ENOMEM, 0;
        x->domains = v, x->cap_domains = cap;
    }
    x->domains[x->n_domains++] = dom;
    int64_t id = x->domain_base + (int64_t)x->n_domains;
    uint32_t len = 0;
    const char *text = name ? name : xp_trace_str(x, dom, &len);
    if (name) len = (uint32_t)strlen(name);
    xp_bind_i64(x, XS_NVTX, 1, xp_ts(x, ts));
    xp_bind_i64(x, XS_NVTX, 3, SSI_NSYS_NVTX_DOMAIN_CREATE);
    xp_bind_text(x, XS_NVTX, 7, text, len);
    xp_bind_i64(x, XS_NVTX, 8, xp_gtid(x, x->pid));
    xp_bind_i64(x, XS_NVTX, 10, id);
    xp_insert(x, XS_NVTX);
    return id;
}

void xp_nvtx_domain(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_nvtx_domain d;
    sst_rec_load(h, &d, sizeof d);
    if (d.name) domain_id(x, d.name, NULL, d.ts_ns);
}

/* ---- rows ---- */

static void bind_payload(struct xp *x, const struct xp_range *r)
{
    union {
        uint64_t u;
        double d;
    } d64 = {r->payload};
    union {
        uint32_t u;
        float f;
    } f32 = {(uint32_t)r->payload};
    switch (r->payload_type) {
    case SST_PAYLOAD_U64:
        xp_bind_i64(x, XS_NVTX, 11, (int64_t)r->payload);
        break;
    case SST_PAYLOAD_I64:
        xp_bind_i64(x, XS_NVTX, 12, (int64_t)r->payload);
        break;
    case SST_PAYLOAD_F64:
        xp_bind_double(x, XS_NVTX, 13, d64.d);
        break;
    case SST_PAYLOAD_U32:
        xp_bind_i64(x, XS_NVTX, 14, (uint32_t)r->payload);
        break;
    case SST_PAYLOAD_I32:
        xp_bind_i64(x, XS_NVTX, 15, (int32_t)(uint32_t)r->payload);
        break;
    case SST_PAYLOAD_F32:
        xp_bind_double(x, XS_NVTX, 16, f32.f);
        break;
    default:
        break;
    }
}

/* One NVTX_EVENTS row. end_tid: the thread that ended a start/end range (else unused);
 * has_end 0 writes end NULL (a mark, or a range still open at the end of the trace). */
static void range_row(struct xp *x, int type, const struct xp_range *r, int has_end, uint64_t end,
                      uint32_t end_tid)
{
    enum xp_stmt s = XS_NVTX;
    /* first: a domain seen for the first time is a row of its own on the same statement,
     * which must not interleave with this row's bindings (a damaged domain id did) */
    int64_t dom =
        r->used == 3 ? domain_id(x, 0, STEP_DOMAIN, r->ts) : domain_id(x, r->domain, NULL, r->ts);
    if (has_end && end < r->ts) end = r->ts, x->clamped++;
    xp_bind_i64(x, s, 1, xp_ts(x, r->ts));
    if (has_end) xp_bind_i64(x, s, 2, xp_end(x, r->ts, end));
    xp_bind_i64(x, s, 3, type);
    if (type == SSI_NSYS_NVTX_STARTEND) xp_bind_i64(x, s, 4, xp_id(x, r->range_id));
    if (r->category) xp_bind_i64(x, s, 5, r->category);
    if (r->color) xp_bind_i64(x, s, 6, r->color);
    if (r->message || r->used == 3) {
        uint32_t len;
        const char *t = r->used == 3 ? "step" : xp_trace_str(x, r->message, &len);
        xp_bind_text(x, s, 7, t, r->used == 3 ? 4 : len);
    }
    xp_bind_i64(x, s, 8, xp_gtid(x, r->tid));
    if (type == SSI_NSYS_NVTX_STARTEND && has_end)
        xp_bind_i64(x, s, 9, xp_gtid(x, end_tid));
    xp_bind_i64(x, s, 10, dom);
    bind_payload(x, r);
    xp_insert(x, s);
}

static struct xp_range range_of(const struct sst_rec_nvtx *n)
{
    return (struct xp_range){.ts = n->ts_ns,
                             .payload = n->payload,
                             .range_id = n->range_id,
                             .tid = n->tid,
                             .domain = n->domain,
                             .message = n->message,
                             .category = n->category,
                             .color = n->color,
                             .payload_type = n->payload_type,
                             .used = 1};
}

/* ---- push/pop: a stack per thread and domain ---- */

static struct xp_lane *lane_of(struct xp *x, uint32_t tid, uint32_t domain)
{
    for (size_t i = 0; i < x->n_lanes; i++)
        if (x->lanes[i].tid == tid && x->lanes[i].domain == domain) return &x->lanes[i];
    if (x->n_lanes == x->cap_lanes) {
        size_t cap = x->cap_lanes ? x->cap_lanes * 2 : 16;
        struct xp_lane *v = realloc(x->lanes, cap * sizeof *v);
        if (!v) return x->rc = SS_ENOMEM, NULL;
        x->lanes = v, x->cap_lanes = cap;
    }
    struct xp_lane *l = &x->lanes[x->n_lanes++];
    *l = (struct xp_lane){.tid = tid, .domain = domain};
    return l;
}

static void on_push(struct xp *x, const struct sst_rec_nvtx *n)
{
    struct xp_lane *l = lane_of(x, n->tid, n->domain);
    if (!l) return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct xp_range *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            x->rc = SS_ENOMEM;
            return;
        }
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = range_of(n);
}

static void on_pop(struct xp *x, const struct sst_rec_nvtx *n)
{
    struct xp_lane *l = lane_of(x, n->tid, n->domain);
    if (!l) return;
    if (!l->n) {
        x->unmatched_pops++;
        return;
    }
    struct xp_range r = l->v[--l->n];
    range_row(x, SSI_NSYS_NVTX_PUSHPOP, &r, 1, n->ts_ns, n->tid);
}

/* ---- start/end: open ranges by range id (open addressing, tombstones marked used 2) ---- */

static int opens_grow(struct xp *x)
{
    size_t cap = x->cap_opens ? x->cap_opens * 2 : 256;
    struct xp_range *v = calloc(cap, sizeof *v);
    if (!v) return SS_ENOMEM;
    for (size_t i = 0; i < x->cap_opens; i++) {
        if (x->opens[i].used != 1) continue;
        size_t j = x->opens[i].range_id * 0x9E3779B97F4A7C15ull >> 20 & (cap - 1);
        while (v[j].used)
            j = (j + 1) & (cap - 1);
        v[j] = x->opens[i];
    }
    free(x->opens);
    x->opens = v, x->cap_opens = cap;
    return 0;
}

/* The slot of range id (live), or NULL; *free_slot gets the first slot an insert may use. */
static struct xp_range *open_find(struct xp *x, uint64_t id, struct xp_range **free_slot)
{
    *free_slot = NULL;
    if (!x->cap_opens) return NULL;
    size_t j = id * 0x9E3779B97F4A7C15ull >> 20 & (x->cap_opens - 1);
    for (; x->opens[j].used; j = (j + 1) & (x->cap_opens - 1)) {
        if (x->opens[j].used == 1 && x->opens[j].range_id == id) return &x->opens[j];
        if (x->opens[j].used == 2 && !*free_slot) *free_slot = &x->opens[j];
    }
    if (!*free_slot) *free_slot = &x->opens[j];
    return NULL;
}

static void on_start(struct xp *x, const struct sst_rec_nvtx *n)
{
    /* slots in use (live or tombstone) stay under half the table */
    if ((x->n_opens + 1) * 2 > x->cap_opens && (x->rc = opens_grow(x)) != 0) return;
    struct xp_range *slot, *live = open_find(x, n->range_id, &slot);
    if (live) { /* the id again before its end: the first one never ends */
        range_row(x, SSI_NSYS_NVTX_STARTEND, live, 0, 0, 0);
        *live = range_of(n);
        return;
    }
    if (slot->used == 0) x->n_opens++;
    *slot = range_of(n);
}

static void on_end(struct xp *x, const struct sst_rec_nvtx *n)
{
    struct xp_range *slot, *live = open_find(x, n->range_id, &slot);
    if (!live) {
        x->unmatched_pops++;
        return;
    }
    range_row(x, SSI_NSYS_NVTX_STARTEND, live, 1, n->ts_ns, n->tid);
    live->used = 2;
}

void xp_nvtx(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_nvtx n;
    sst_rec_load(h, &n, sizeof n);
    switch (h->type) {
    case SST_REC_NVTX_PUSH:
        on_push(x, &n);
        break;
    case SST_REC_NVTX_POP:
        on_pop(x, &n);
        break;
    case SST_REC_NVTX_START:
        on_start(x, &n);
        break;
    case SST_REC_NVTX_END:
        on_end(x, &n);
        break;
    default: {
        struct xp_range r = range_of(&n);
        range_row(x, SSI_NSYS_NVTX_MARK, &r, 0, 0, 0);
        break;
    }
    }
}

/* ---- STEP records that no NVTX range carries ---- */

void xp_step(struct xp *x, const struct sst_rec_header *h)
{
    struct sst_rec_step s;
    sst_rec_load(h, &s, sizeof s);
    /* markers (api, pyshim, user) are NVTX "step" ranges in the trace already */
    if (s.source == SST_STEPSRC_API || s.source == SST_STEPSRC_PYSHIM ||
        s.source == SST_STEPSRC_USER)
        return;
    struct xp_range *open = NULL;
    for (size_t i = 0; i < x->n_steps; i++)
        if (x->steps[i].tid == s.tid) open = &x->steps[i];
    if (s.phase == SST_STEP_END && open && open->used) {
        range_row(x, SSI_NSYS_NVTX_PUSHPOP, open, 1, s.ts_ns, s.tid);
        open->used = 0;
        return;
    }
    if (s.phase != SST_STEP_BEGIN) return;
    if (!open) {
        if (x->n_steps == x->cap_steps) {
            size_t cap = x->cap_steps ? x->cap_steps * 2 : 4;
            struct xp_range *v = realloc(x->steps, cap * sizeof *v);
            if (!v) return (void)(x->rc = SS_ENOMEM);
            x->steps = v, x->cap_steps = cap;
        }
        open = &x->steps[x->n_steps++];
    } else if (open->used) {
        range_row(x, SSI_NSYS_NVTX_PUSHPOP, open, 0, 0, 0); /* begin without end */
    }
    /* used 3: a step range (text "step", domain "stepscope") */
    *open = (struct xp_range){
        .ts = s.ts_ns, .payload = s.step, .tid = s.tid, .payload_type = SST_PAYLOAD_U64, .used = 3};
}

/* ---- the end of the trace ---- */

void xp_nvtx_finish(struct xp *x)
{
    for (size_t i = 0; i < x->n_lanes; i++)
        for (size_t k = 0; k < x->lanes[i].n; k++)
            range_row(x, SSI_NSYS_NVTX_PUSHPOP, &x->lanes[i].v[k], 0, 0, 0);
    for (size_t i = 0; i < x->cap_opens; i++)
        if (x->opens[i].used == 1) range_row(x, SSI_NSYS_NVTX_STARTEND, &x->opens[i], 0, 0, 0);
    for (size_t i = 0; i < x->n_steps; i++)
        if (x->steps[i].used) range_row(x, SSI_NSYS_NVTX_PUSHPOP, &x->steps[i], 0, 0, 0);
}

void xp_nvtx_free(struct xp *x)
{
    for (size_t i = 0; i < x->n_lanes; i++)
        free(x->lanes[i].v);
    free(x->lanes);
    free(x->opens);
    free(x->domains);
    free(x->steps);
}
