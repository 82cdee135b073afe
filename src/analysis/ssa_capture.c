/*
 * ssa_capture.c — which steps the trace recorded GPU activity for.
 *
 * `stepscope record --capture steps:A-B | seconds:A-B` records GPU activity inside the window
 * only; NVTX, step markers and host samples cover the whole run. A step outside the window has
 * no kernel record, so counting it would call the GPU idle there. Likewise while torch.profiler
 * held CUPTI (CAPTURE off/on, reason taken_over). Pass 1 keeps the CAPTURE records that switch
 * GPU recording (at most SSA_MAX_CAPTURES); ssa_capture_filter then keeps only the steps that
 * lie within a recorded stretch. Traces without such records (imports, synthetic traces, a
 * collector that never started CUPTI) keep every step.
 */
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

int ssa_capture_note(struct ssa_scan *sc, const struct sst_rec_capture *c)
{
    if (!(c->what & SST_CAPTURE_GPU)) return 0;
    if (sc->n_cap == SSA_MAX_CAPTURES) {
        sc->cap_overflow = 1;
        return 0;
    }
    if (sc->n_cap == sc->cap_cap) {
        size_t ncap = sc->cap_cap ? sc->cap_cap * 2 : 16;
        struct ssa_cap_event *v = realloc(sc->cap, ncap * sizeof *v);
        if (!v) return SS_ENOMEM;
        sc->cap = v, sc->cap_cap = ncap;
    }
    sc->cap[sc->n_cap++] = (struct ssa_cap_event){c->ts_ns, c->on, c->reason};
    return 0;
}

/* 1 when the collector's window opened after the start (ENV collector.capture "steps:A-B" or
 * "seconds:A-B" with A > 0): its START record then says CUPTI started, not that it recorded. */
static int window_opens_late(const struct ssa_result *r)
{
    const char *v = ssa_env_value(&r->env, "collector.capture");
    const char *colon = v ? strchr(v, ':') : NULL;
    if (!colon || (strncmp(v, "steps:", 6) != 0 && strncmp(v, "seconds:", 8) != 0)) return 0;
    return strtod(colon + 1, NULL) > 0;
}

static int cmp_event(const void *x, const void *y)
{
    const struct ssa_cap_event *a = x, *b = y;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Appends [from, to) to the recorded stretches (sc->rec, at most n_cap + 1 of them). */
static void add_stretch(struct ssa_scan *sc, uint64_t from, uint64_t to)
{
    if (to > from) sc->rec[sc->n_rec++] = (struct ssa_stretch){from, to};
}

/* Recording = CUPTI ours (START, TAKEN_OVER, CONFLICT, ERROR and EXIT switch it) and the
 * window open (WINDOW switches it; open from the start unless it opens late). */
static int build_stretches(struct ssa_scan *sc, int late)
{
    sc->rec = malloc((sc->n_cap + 1) * sizeof *sc->rec);
    if (!sc->rec) return SS_ENOMEM;
    qsort(sc->cap, sc->n_cap, sizeof *sc->cap, cmp_event);
    /* collectors before 2026-11-29 wrote no START for the GPU: an "off" first means it was on */
    int ours = !sc->cap[0].on, open = !late;
    uint64_t since = 0;
    for (size_t i = 0; i < sc->n_cap; i++) {
        const struct ssa_cap_event *e = &sc->cap[i];
        int was = ours && open;
        if (e->reason == SST_CAP_WINDOW)
            open = e->on;
        else
            ours = e->on;
        int now = ours && open;
        if (now && !was) since = e->t;
        if (was && !now) add_stretch(sc, since, e->t);
    }
    if (ours && open) add_stretch(sc, since, UINT64_MAX);
    return 0;
}

/* A step counts when at least 99 % of it lies in one recorded stretch: the window opens a few
 * microseconds after the step marker that opens it. */
static int step_recorded(const struct ssa_scan *sc, const struct ssa_step_brief *b)
{
    uint64_t d = b->end_ns - b->begin_ns;
    for (size_t i = 0; i < sc->n_rec; i++) {
        if (d == 0 && b->begin_ns >= sc->rec[i].from && b->begin_ns < sc->rec[i].to) return 1;
        uint64_t s = b->begin_ns > sc->rec[i].from ? b->begin_ns : sc->rec[i].from;
        uint64_t e = b->end_ns < sc->rec[i].to ? b->end_ns : sc->rec[i].to;
        if (e > s && (e - s) >= d - d / 100) return 1;
    }
    return 0;
}

/* Whether the GPU's CAPTURE records say anything about steps: not when another tool held
 * CUPTI from the start (the report says so instead), nor when nothing was ever recorded
 * without a window to blame (CUPTI unavailable). */
static int capture_applies(const struct ssa_scan *sc, int late)
{
    int window = late;
    for (size_t i = 0; i < sc->n_cap; i++) {
        if (sc->cap[i].reason == SST_CAP_CONFLICT) return 0;
        window |= sc->cap[i].reason == SST_CAP_WINDOW;
    }
    return sc->n_rec > 0 || window;
}

int ssa_capture_filter(struct ssa_scan *sc, struct ssa_result *res)
{
    /* none (imports, synthetic traces) or too many CAPTURE records: every step counts */
    if (sc->n_cap == 0 || sc->cap_overflow || !res->briefs) return 0;
    int late = window_opens_late(res);
    int rc = build_stretches(sc, late);
    if (rc || !capture_applies(sc, late)) return rc;
    res->capture_window = 1;
    res->capture_late = late;
    size_t kept = 0;
    for (size_t i = 0; i < res->n_steps; i++) {
        if (step_recorded(sc, &res->briefs[i]))
            res->briefs[kept++] = res->briefs[i];
        else
            res->outside_capture++;
    }
    res->n_steps = kept;
    return 0;
}
