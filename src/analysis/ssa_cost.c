/*
 * ssa_cost.c — the collector's own time, from its COST records (docs/trace-format.md): what it
 * spent on the program's threads, measured in every run. The rest of the recording's cost is
 * CUPTI's work inside the CUDA calls, which no record of ours can time (ssa_steps.c estimates
 * or measures the whole).
 */
#include "ssa_internal.h"

void ssa_cost_note(struct ssa_costs *t, const struct sst_rec_cost *c)
{
    size_t i = 0;
    while (i < t->n && !(t->v[i].tid == c->tid && t->v[i].kind == c->kind))
        i++;
    if (i == t->n) {
        if (t->n == SSA_COST_SLOTS) return;
        t->n++;
        t->v[i] = (struct ssa_cost_slot){.tid = c->tid, .kind = c->kind};
    }
    if (c->events < t->v[i].events) return; /* running totals: an older reading */
    t->v[i].events = c->events, t->v[i].timed = c->timed, t->v[i].ns = c->ns;
}

/* A slot's time over all its events (the hot counters time one event in 16). */
static double slot_ns(const struct ssa_cost_slot *s)
{
    return s->timed ? (double)s->ns * (double)s->events / (double)s->timed : 0;
}

/* Kinds that always run on the thread that made the call: the program's. */
static int runs_inline(uint8_t kind)
{
    return kind == SST_COST_API_CALLBACK || kind == SST_COST_NVTX_CALLBACK ||
           kind == SST_COST_CUPTI_CONTROL;
}

/* Whether tid is one of the program's threads: one our callbacks ran on (the collector's own
 * threads, its writer and stack reader, never make CUDA or NVTX calls). */
static int program_thread(const struct ssa_costs *t, uint32_t tid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].tid == tid && runs_inline(t->v[i].kind)) return 1;
    return 0;
}

uint64_t ssa_cost_inline_ns(const struct ssa_costs *t)
{
    double ns = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct ssa_cost_slot *s = &t->v[i];
        /* stack reads run on the program's thread at a blocking call, on ours for samples */
        if (runs_inline(s->kind) || (s->kind == SST_COST_PY_STACK && program_thread(t, s->tid)))
            ns += slot_ns(s);
    }
    return (uint64_t)ns;
}
