/* report_view.c — the one place the report computes what it shows; see report_view.h. */
#include "report_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/ss_cxxname.h"

static double ms_of(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* Every check of the table judged on r's facts, in table order. */
static void judge_env(const struct ssa_result *r, struct report_env *b)
{
    struct ssa_env_facts f;
    ssa_env_facts_of(r, &f);
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < ssa_env_n_checks && i < SSA_ENV_N_CHECKS; i++) {
        ssa_env_checks[i].judge(&f, &b->v[i]);
        b->counts[b->v[i].status]++;
        b->notable |= report_env_notable(&b->v[i]);
        b->n++;
    }
    b->recorded = (size_t)b->counts[SSA_ENV_SKIP] < b->n;
    snprintf(b->counts_said, sizeof b->counts_said, "%d pass, %d warn, %d fail, %d skip",
             b->counts[SSA_ENV_PASS], b->counts[SSA_ENV_WARN], b->counts[SSA_ENV_FAIL],
             b->counts[SSA_ENV_SKIP]);
}

/* The other tool's injection library that `record` left in place, or "another CUPTI
 * client"; NULL when the collector had CUPTI. */
static const char *gpu_left_to(const struct ssa_result *r)
{
    struct ssa_env_facts f;
    ssa_env_facts_of(r, &f);
    const char *lib = ssa_env_get(&f, "collector.foreign_cuda_injection");
    if (lib && *lib) return lib;
    const char *conflict = ssa_env_get(&f, "cupti.conflict");
    return conflict && strcmp(conflict, "0") != 0 ? "another CUPTI client" : NULL;
}

/* The steps the analysis kept for the timeline (SSA_TIMELINE) that stayed steady. */
static void timeline_steps(struct report_view *v, const struct ssa_result *r)
{
    for (size_t k = 0; k < r->n_tl && v->per_step; k++) {
        const struct ssa_timeline *t = &r->tl[k];
        int warmup = r->briefs[t->step - 1].warmup;
        if (!t->step || (warmup && t->which != SSA_TL_STEP)) continue;
        v->tls[v->n_tls++] = (struct report_tl){t->which, warmup, &t->whole, t};
    }
}

/* The chart's bins: step times from the briefs, category times from the analysis's bins. */
static void run_bins(struct report_view *v, const struct ssa_result *r)
{
    const struct ssa_step_bins *sb = &r->bins;
    if (!v->per_step || !sb->cat_ns || sb->n > SSA_STEP_BINS_MAX) return;
    v->n_bins = sb->n, v->bin_width = sb->width;
    v->outlier_ms = SSA_OUTLIER_FACTOR * ms_of(v->s.median_ns);
    for (size_t i = 0; i < r->n_steps; i++) {
        const struct ssa_step_brief *br = &r->briefs[i];
        struct report_bin *b = &v->bins[i / sb->width];
        double d = ms_of(br->end_ns - br->begin_ns);
        if (!b->steps) b->number = br->number;
        b->steps++;
        b->mean_ms += d;
        b->max_ms = d > b->max_ms ? d : b->max_ms;
        b->warmup |= br->warmup;
        b->outliers += !br->warmup && v->s.steps >= 3 && d > v->outlier_ms;
    }
    for (size_t k = 0; k < v->n_bins; k++) {
        struct report_bin *b = &v->bins[k];
        b->mean_ms /= (double)(b->steps ? b->steps : 1);
        for (int c = 0; c < SSA_CAT_COUNT; c++)
            b->cat_ms[c] = ms_of(sb->cat_ns[k][c]) / (double)(b->steps ? b->steps : 1);
    }
}

/* What the run measured of its own recording: launch calls (launch sampling: the steps with
 * them against the steps beside them) and the collector's callbacks on the program's threads. */
static void rec_measured_parts(const struct ssa_summary *s, char *buf, size_t size)
{
    size_t n = 0;
    if (s->rec_launch_pairs)
        n = (size_t)snprintf(buf, size,
                             "; recording launch calls: %+.2f ms (%+.2f to %+.2f) a sampled "
                             "step against its neighbours (measured, %zu steps)",
                             s->rec_launch_ms, s->rec_launch_lo_ms, s->rec_launch_hi_ms,
                             s->rec_launch_pairs);
    if (s->rec_inline_ms >= 0.005 && n < size)
        snprintf(buf + n, size - n,
                 "; its callbacks took %.2f ms/step on the program's threads (measured)",
                 s->rec_inline_ms);
}

/* Why the steps without recording measured nothing: appended to an estimate. */
static void rec_baseline_why(const struct ssa_summary *s, char *buf, size_t size)
{
    if (!ssa_baseline_unusable(s->rec_baseline_verdict)) return;
    if (s->rec_baseline_verdict == SSA_BASELINE_IMPRECISE) {
        snprintf(buf, size,
                 "; the %zu steps without recording (median %.2f ms against %.2f recorded) "
                 "put it at %.2f +- %.2f ms/step, too uncertain to use: too few steps or too "
                 "noisy",
                 s->rec_unrecorded_steps, s->rec_unrecorded_ms, s->rec_recorded_ms,
                 s->rec_measured_ms, s->rec_measured_half_ms);
        return;
    }
    snprintf(buf, size,
             "; not measured: the %zu steps without recording ran at a median %.2f ms against "
             "%.2f recorded (%s)",
             s->rec_unrecorded_steps, s->rec_unrecorded_ms, s->rec_recorded_ms,
             s->rec_baseline_verdict == SSA_BASELINE_UNSTEADY
                 ? "still warming up or stalled: no baseline"
                 : "the host's speed drifted: no baseline");
}

/* A program whose steps are CUDA graph replays: the estimate per graph launch, whose kernels
 * CUPTI records one by one (a graph launch is one call, not one launch of the estimate's). */
static void rec_graph_terms(const struct ssa_summary *s, char *buf, size_t size)
{
    if (s->graph_launches_per_step < 0.5) return;
    double per = s->graph_kernels_per_step / s->graph_launches_per_step;
    snprintf(buf, size, "; %.1f us per CUDA graph launch (%.0f kernels each, recorded one by one)",
             s->rec_cost_ms * 1e3 / s->graph_launches_per_step, per);
}

static int rec_cost_text(const struct ssa_summary *s, char *buf, size_t size)
{
    if (s->rec_basis == SSA_REC_MEASURED) {
        snprintf(buf, size,
                 "~%.2f ms/step (%.2f to %.2f) is stepscope's own cost, measured in this "
                 "trace: the recorded steps against %zu steps without it (median %.2f ms)",
                 s->rec_cost_ms, s->rec_cost_lo_ms, s->rec_cost_hi_ms, s->rec_baseline_steps,
                 s->rec_baseline_ms);
        return 1;
    }
    if (s->rec_basis == SSA_REC_NONE || s->rec_cost_ms < 0.005) return 0;
    /* the parts the run measured of itself, when there is one worth a figure */
    char measured[384] = "";
    rec_measured_parts(s, measured, sizeof measured);
    size_t used = strlen(measured);
    rec_graph_terms(s, measured + used, sizeof measured - used);
    used = strlen(measured);
    rec_baseline_why(s, measured + used, sizeof measured - used);
    /* full's calibration, with the range other programs measured (one line of text) */
    char scaled[96] = ""; /* lean full mode: scaled to this host's launch calls */
    if (s->rec_launch_call_us > 0)
        snprintf(scaled, sizeof scaled, ", %.2f x this run's median launch call of %.1f us",
                 s->rec_us_per_launch / s->rec_launch_call_us, s->rec_launch_call_us);
    if (ssa_rec_has_range(s->rec_basis)) {
        snprintf(buf, size,
                 "~%.2f ms/step (%.2f-%.2f), estimated: %.1f us/launch (%s%s)%s",
                 s->rec_cost_ms, s->rec_cost_lo_ms, s->rec_cost_hi_ms, s->rec_us_per_launch,
                 ssa_rec_basis_name(s->rec_basis), scaled, measured);
        return 1;
    }
    snprintf(buf, size, "~%.2f ms/step is %s own cost (%.1f us/launch, %s)%s", s->rec_cost_ms,
             ssa_rec_recorder(s->rec_basis),
             s->rec_us_per_launch, ssa_rec_basis_name(s->rec_basis), measured);
    return 1;
}

/* What the input lost, in the words of the one damage model (sst_damage_describe), and what
 * that does to the report. */
static int damage_text(const struct ssa_result *r, char *buf, size_t size)
{
    const struct sst_damage *d = &r->damage;
    char what[1024];
    if (!report_incomplete(r)) return 0;
    sst_damage_describe(d, what, sizeof what);
    snprintf(buf, size, "%s: the numbers are of what could be read%s", what[0] ? what : r->state_line,
             r->step_source == SSA_STEPS_DETECTED && d->count[SST_DAMAGE_TRUNCATED]
                 ? "; its steps were found by period in what is left, and the last may be a "
                   "fragment"
                 : "");
    return 1;
}

/* The reader's problems (damaged chunks, impossible records...), the first named. */
static int problems_text(const struct ssa_result *r, char *buf, size_t size)
{
    if (!r->problems) return 0;
    snprintf(buf, size, "%" PRIu64 " problems, first: %s", r->problems, r->first_problem);
    return 1;
}

/* Why the steps are the launches of a CUDA graph (of any graph, in a light recording, which
 * does not tell them apart: SSA_GRAPH_UNTOLD). */
static void graph_note(char *n, size_t size, const struct ssa_result *r)
{
    int untold = r->step_graph_id == SSA_GRAPH_UNTOLD;
    const char *tail = untold ? " (a light recording does not tell graphs apart)" : "";
    char what[64];
    if (untold)
        snprintf(what, sizeof what, "%" PRIu64 " CUDA graph launches", r->step_graph_launches);
    else
        snprintf(what, sizeof what, "%" PRIu64 " launches of CUDA graph %" PRIu32,
                 r->step_graph_launches, r->step_graph_id);
    int len = r->markers_set_aside
                  ? snprintf(n, size, "the %zu marked steps held fewer than half of the %s: "
                             "steps are %s launches%s", r->markers_set_aside, what,
                             untold ? "the" : "its", tail)
                  : snprintf(n, size, "no step markers: steps are the %s%s", what, tail);
    if (len < 0) *n = '\0'; /* longer than size is cut: a note, not a number */
}

/* What the held-out programs say of the finding's rule (struct ssa_held_out), in words. */
static void held_out_text(const struct ssa_held_out *h, char *buf, size_t size)
{
    if (h->judged)
        snprintf(buf, size, "priced within +-%d %% on %d held-out program%s%s", h->worst_pct,
                 h->judged, h->judged == 1 ? "" : "s",
                 h->nothing ? "; saved nothing or slowed the step on" : "");
    else
        snprintf(buf, size, h->nothing ? "its fix saved nothing or slowed the step on"
                                        : "no held-out evidence");
    if (h->nothing) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, " %d held-out program%s", h->nothing,
                 h->nothing == 1 ? "" : "s");
    }
}

/* What a finding saves, said once for every writer; a note has no price. */
static void saves_text(const struct ssa_finding *x, char *buf, size_t size)
{
    if (x->note)
        snprintf(buf, size, "not priced: a note, confidence %s", ssa_level_name(x->confidence));
    else
        snprintf(buf, size, "saves ~%.2f ms/step (%.0f %%, %.2fx), confidence %s", x->saving_ms,
                 x->saving_pct, x->speedup, ssa_level_name(x->confidence));
}

/* All the findings fixed at once, when their savings overlap (their sum would take the step
 * below what stays busy on the GPU). */
static int all_fixed_text(const struct ssa_findings *f, const struct ssa_summary *s, char *buf,
                          size_t size)
{
    if (!f->overlap) return 0;
    double step = (double)s->mean_ns / 1e6, left = step - f->all_ms;
    snprintf(buf, size, "all of them fixed: ~%.2f ms/step (%.2fx), not their sum %.2f: their "
             "savings overlap, and the step cannot fall below %.2f ms (what stays busy on the "
             "GPU once its own findings are fixed)", f->all_ms, left > 0 ? step / left : 1, f->sum_ms,
             f->floor_ms);
    return 1;
}

/* Steps that cannot be what the analysis takes them for: marked steps with no GPU work inside
 * while the trace has some (the markers wrap something else), or steps of wildly different
 * lengths (SSA_STEPS_DISPARATE: the breakdown is the mean of unlike things). */
#define SSA_STEPS_DISPARATE 10.0
static void bad_step_note(char *n, size_t size, const struct report_view *v,
                          const struct ssa_result *r)
{
    const struct ssa_summary *s = &v->s;
    if (!s->steps) return;
    if (v->has_gpu && s->gpu_ops_per_step == 0 && s->launches_per_step == 0) {
        snprintf(n, size, "the marked steps hold no GPU work while %" PRIu64 " GPU operations "
                 "ran outside them: the step markers do not wrap the training step, so this is "
                 "not its breakdown", ssa_gpu_records(r));
        return;
    }
    if (s->steps >= 5 && s->p10_ns > 0 && (double)s->p90_ns > SSA_STEPS_DISPARATE * (double)s->p10_ns)
        snprintf(n, size, "step times vary %.0fx (p10 %.2f ms, p90 %.2f ms): the steps are not "
                 "alike (a marker in the wrong place, phases of different work, a host that ran "
                 "ahead of the GPU), and the "
                 "breakdown is their mean", (double)s->p90_ns / (double)s->p10_ns,
                 (double)s->p10_ns / 1e6, (double)s->p90_ns / 1e6);
}

/* Why the steps are the launches of a CUDA graph, whether they were measured on the GPU's
 * timeline (the host ran ahead), and GPU records whose end was the capture's close. */
static void step_notes(struct report_view *v, const struct ssa_result *r)
{
    char *n = v->step_notes[v->n_step_notes];
    bad_step_note(n, sizeof v->step_notes[0], v, r);
    if (*n) n = v->step_notes[++v->n_step_notes];
    if (r->n_price_outliers)
        snprintf(n, sizeof v->step_notes[0], "%zu step%s over %.0fx the median left out of the "
                 "breakdown and the prices (outliers, below)", r->n_price_outliers,
                 r->n_price_outliers == 1 ? "" : "s", SSA_PRICE_OUTLIER_FACTOR);
    if (*n) n = v->step_notes[++v->n_step_notes];
    if (r->step_source == SSA_STEPS_GRAPHS) graph_note(n, sizeof v->step_notes[0], r);
    if (*n) n = v->step_notes[++v->n_step_notes];
    if (r->gpu_paced)
        snprintf(n, sizeof v->step_notes[0],
                 "measured on the GPU timeline, from each step's first GPU operation to the "
                 "next's: the host ran ahead (its own pace %.2f ms/step)",
                 (double)r->host_pace_ns / 1e6);
    if (*n) n = v->step_notes[++v->n_step_notes];
    if (r->window_opened != SSA_WINDOW_AT_STEP)
        snprintf(n, sizeof v->step_notes[0], "--capture auto opened its GPU window %s",
                 ssa_window_opener_words(r->window_opened));
    if (*n) n = v->step_notes[++v->n_step_notes];
    if (r->gpu_ends_at_close)
        snprintf(n, sizeof v->step_notes[0],
                 "%" PRIu64 " GPU record%s ended, by CUPTI's clock, when the capture closed (the "
                 "time it was flushed, not run): counted without duration",
                 r->gpu_ends_at_close, r->gpu_ends_at_close == 1 ? "" : "s");
    if (*n) v->n_step_notes++;
}

/* Launches of CUDA graphs per step, their kernels, and the GPU time inside them. */
static int graphs_text(const struct ssa_summary *s, char *buf, size_t size)
{
    if (s->graph_launches_per_step < 0.5 && s->graph_gpu_ms <= 0) return 0;
    double per = s->graph_launches_per_step > 0 ? s->graph_kernels_per_step /
                                                      s->graph_launches_per_step : 0;
    double outside = s->kernel_ms_per_step - s->graph_gpu_ms;
    int n = snprintf(buf, size, "%.1f CUDA graph launches/step", s->graph_launches_per_step);
    if (per > 0) n += snprintf(buf + n, size - (size_t)n, ", %.0f kernels each", per);
    snprintf(buf + n, size - (size_t)n,
             "; GPU %.2f ms/step inside graphs, %.2f outside; no per-kernel launch cost "
             "inside a graph",
             s->graph_gpu_ms, outside > 0 ? outside : 0);
    return 1;
}

/* The program's kind in words, and torch.compile's work; 0 for plain Python (the default
 * every fix already speaks). */
static int program_text(const struct ssa_program *p, char *buf, size_t size)
{
    static const char *const words[SSA_PROG_COUNT] = {
        "unknown kind", "Python", "C++ over libtorch's C++ API", "C over libtorch's C ABI",
        "C or C++ over libtorch", "CUDA program (no libtorch)"};
    if (p->kind == SSA_PROG_PYTHON && !p->compiled) return 0;
    if (p->kind == SSA_PROG_UNKNOWN && !p->compiled) return 0;
    int n = snprintf(buf, size, "%s%s", words[p->kind], p->kind_recorded ? "" : " (inferred)");
    if (p->compiled && p->compiles)
        snprintf(buf + n, size - (size_t)n,
                 "; torch.compile: %" PRIu64 " compiles, %" PRIu64 " recompiles, %.1f s compiling",
                 p->compiles, p->recompiles, (double)p->compile_ns / 1e9);
    else if (p->compiled)
        snprintf(buf + n, size - (size_t)n, "; torch.compile (Triton kernels, %.0f %% of kernel time)",
                 p->triton_pct);
    return 1;
}

/* "sync", "alloc" or "sync, alloc": the categories whose lines come from call sites. */
static const char *site_cats(const struct ssa_host *h)
{
    int sync = 0, alloc = 0;
    if (!h->n_sites) return NULL;
    for (size_t i = 0; i < h->n_sites; i++)
        sync |= h->sites[i].cat == SSA_CAT_SYNC, alloc |= h->sites[i].cat == SSA_CAT_ALLOC;
    return sync && alloc ? "sync, alloc" : alloc ? "alloc" : "sync";
}

/* The GPU-idle categories that samples fell in, the most time first, with their lines. */
static void host_categories(struct report_view *v, const struct ssa_result *r)
{
    v->host = &r->host;
    v->has_samples = r->host.counted > 0 && v->s.steps > 0;
    if (!v->has_samples) return;
    for (size_t i = 0; i < r->host.n_cells; i++) {
        if (r->host.cells[i].cat < SSA_CAT_FIRST_IDLE) continue;
        v->sampled_idle_ms += (double)r->host.cells[i].ns / 1e6 / (double)v->s.steps;
        v->sampled_idle_samples += r->host.cells[i].samples;
    }
    for (int c = SSA_CAT_FIRST_IDLE; c < SSA_CAT_COUNT; c++) {
        struct report_hostcat *h = &v->hostcats[v->n_hostcats];
        struct ssa_hotspot hot[REPORT_HOTSPOTS];
        h->cat = c, h->ms = v->s.cat_ms[c];
        h->n = ssa_host_hotspots(r, &v->s, SSA_CAT_BIT(c), hot, REPORT_HOTSPOTS);
        if (!h->n) continue;
        for (size_t i = 0; i < h->n; i++) {
            h->v[i].h = hot[i];
            ssa_hotspot_label(&hot[i], h->v[i].where, sizeof h->v[i].where);
        }
        /* insertion by the category's time: h's slot takes the ones it passes, so its time is
         * kept aside */
        size_t at = v->n_hostcats++;
        for (double ms = h->ms; at > 0 && v->hostcats[at - 1].ms < ms; at--) {
            struct report_hostcat t = v->hostcats[at - 1];
            v->hostcats[at - 1] = v->hostcats[at], v->hostcats[at] = t;
        }
    }
}

/* "22.17 steps/s, 5676 samples/s, 1453000 tokens/s": the rates the batch marks give, into
 * buf; returns the length written (at most cap - 1). */
static size_t rates_text(const struct report_view *v, char *buf, size_t cap)
{
    const struct ssa_throughput *t = &v->tp;
    const struct ssa_batch *b = &v->batch;
    int n = snprintf(buf, cap, "%.2f steps/s", t->steps_per_s);
    if (b->samples > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %.0f samples/s", t->samples_per_s);
    if (b->tokens > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %.0f tokens/s", t->tokens_per_s);
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The rates, then "; model 412.0 TFLOP/s, 42 % of the bf16 peak; GEMM/conv kernels 610.0
 * TFLOP/s, 62 %" — or what is missing to say more. */
static void throughput_text(const struct report_view *v, char *buf, size_t cap)
{
    const struct ssa_throughput *t = &v->tp;
    const struct ssa_batch *b = &v->batch;
    size_t n = rates_text(v, buf, cap);
    if (b->flops > 0 && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "; model %.1f TFLOP/s", t->flops_per_s / 1e12);
    if (b->flops > 0 && t->peak_basis && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, ", %.0f %% of the %s peak", t->mfu_pct,
                              t->peak_basis);
    if (t->gemm_flops_per_s > 0 && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "; GEMM/conv kernels %.1f TFLOP/s%s",
                              t->gemm_flops_per_s / 1e12, t->peak_basis ? "" : " (no peak known)");
    if (t->gemm_flops_per_s > 0 && t->peak_basis && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, ", %.0f %%", t->gemm_peak_pct);
    if (b->from_loader && b->flops > 0 && n < cap)
        snprintf(buf + n, cap - n,
                 "; the batch as the DataLoader gave it, FLOPs estimated as 6 x %.1f M "
                 "parameters x tokens (attention's own not counted; a mark \"batch: flops=N\" "
                 "is exact, docs/markers.md)",
                 b->params / 1e6);
    else if (b->from_loader && n < cap)
        snprintf(buf + n, cap - n,
                 "; the batch as the DataLoader gave it (FLOP/s unknown: a mark \"batch: "
                 "flops=N\", docs/markers.md)");
    else if (!b->marks && n < cap)
        snprintf(buf + n, cap - n,
                 "; samples/s and FLOP/s unknown: the program marks no batch (a mark \"batch: "
                 "samples=N tokens=N flops=N\", docs/markers.md)");
}

/* The text report's line when the batch is marked: the rates, then ", 585 TFLOP/s = 59 % of
 * the bf16 peak (H200 SXM)" (and how FLOPs were estimated when no mark gave them), or
 * "; H200 SXM peak: bf16 990 TFLOP/s" without FLOPs. */
static void throughput_line(const struct report_view *v, char *buf, size_t cap)
{
    const struct ssa_throughput *t = &v->tp;
    size_t n = rates_text(v, buf, cap);
    int mfu = v->batch.flops > 0 && t->peak_basis;
    if (mfu)
        n += (size_t)snprintf(buf + n, cap - n, ", %.0f TFLOP/s = %.0f %% of the %s peak (%s)",
                              t->flops_per_s / 1e12, t->mfu_pct, t->peak_basis, t->peak->name);
    if (mfu && v->batch.params > 0 && n < cap)
        snprintf(buf + n, cap - n, " as 6 x %.1f M parameters x tokens (an estimate)",
                 v->batch.params / 1e6);
    else if (!mfu && t->peak)
        snprintf(buf + n, cap - n, "; %s peak: bf16 %.0f TFLOP/s", t->peak->name,
                 t->peak->bf16_tflops);
}

static void peak_text(const struct ssa_device_peak *p, char *buf, size_t cap)
{
    buf[0] = 0;
    if (p)
        snprintf(buf, cap,
                 "%s: bf16 %.0f, tf32 %.0f, fp32 %.1f TFLOP/s dense, HBM %.1f TB/s (vendor "
                 "datasheet)",
                 p->name, p->bf16_tflops, p->tf32_tflops, p->fp32_tflops, p->hbm_gbps / 1e3);
}

/* What the recording lost while the program ran, with the count (issue #27: never silently):
 * records dropped on a full buffer (CUPTI's or the host's), a CUPTI detach that failed (the
 * recording's cost then went on past the window). 0 when nothing was lost. */
static int lost_text(const struct ssa_result *r, char *buf, size_t size)
{
    const char *det = ssa_env_value(&r->env, "cupti.detached");
    int detach_failed = det && strcmp(det, "failed") == 0;
    int n = 0;
    buf[0] = '\0';
    if (r->dropped)
        n = snprintf(buf, size, "%" PRIu64 " record%s dropped while recording (a buffer was "
                     "full): the figures are short of what %s held", r->dropped,
                     r->dropped == 1 ? "" : "s", r->dropped == 1 ? "it" : "they");
    if (detach_failed && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "%sCUPTI could not be detached at the capture "
                 "window's end: it went on recording, and costing, until the program ended",
                 n ? "; " : "");
    return r->dropped || detach_failed;
}

/* ---- the trace, the steps and their sentences ---- */

static void trace_facts(struct report_trace *t, const struct ssa_result *r)
{
    *t = (struct report_trace){r->path,       r->cmdline,   r->device_name, r->state_line,
                               r->pid,        r->n_devices, r->rank,        r->world_size,
                               r->closed,     r->truncated, r->bad_chunks,  r->problems,
                               r->records,    r->kernels,   r->memcpys,     r->memsets,
                               r->graphs,     r->api_calls, r->dropped,     &r->damage};
}

static void step_facts(struct report_steps *t, const struct ssa_result *r)
{
    *t = (struct report_steps){
        .source = r->step_source, .train_tid = r->train_tid, .total = r->n_steps,
        .warmup = r->n_warmup, .price_outliers = r->n_price_outliers,
        .warmup_asked = r->warmup_asked, .warmup_fill = r->warmup_fill,
        .warmup_autotune = r->warmup_autotune, .marker_unmatched = r->marker_unmatched,
        .gpu_paced = r->gpu_paced, .capture_never_opened = r->capture_never_opened,
        .window_opened = r->window_opened, .host_pace_ns = r->host_pace_ns,
        .graph_id = r->step_graph_id, .graph_launches = r->step_graph_launches,
        .markers_set_aside = r->markers_set_aside, .unended = r->dropped_step_ranges,
        .outside_capture = r->outside_capture, .queued_at_open = r->queued_at_open, .launch_unsampled = r->launch_unsampled,
        .launch_sample = r->launch_sample, .gpu_ends_at_close = r->gpu_ends_at_close};
}

/* The kernels' table (borrowed) and which of the top ones torch.compile generated. */
static void kernel_facts(struct report_view *v, const struct ssa_result *r)
{
    v->n_knames = r->n_knames, v->knames = r->knames, v->kname_text = r->kname_text;
    v->tl_names = r->tl_names, v->n_tl_names = r->n_tl_names;
    v->step_list = r->steps;
    for (size_t i = 0; i < r->n_knames && i < TOP_KERNELS; i++)
        v->triton[i] = r->kname_text[i] && strncmp(r->kname_text[i], "triton_", 7) == 0;
}

/* "pid 1478, rank 0/2, 1 device(s)" and the text report's "pid 1478 rank 0/2, 1 device"; the
 * trace's state and counts. */
static void identity_text(struct report_view *v)
{
    const struct report_trace *t = &v->trace;
    char rank[48] = "";
    if (t->rank >= 0 && t->world_size > 0)
        snprintf(rank, sizeof rank, "rank %" PRId32 "/%" PRId32, t->rank, t->world_size);
    snprintf(v->process, sizeof v->process, "pid %" PRIu32 "%s%s, %" PRIu32 " device(s)", t->pid,
             rank[0] ? ", " : "", rank, t->n_devices);
    snprintf(v->process_terse, sizeof v->process_terse, "pid %" PRIu32 "%s%s, %" PRIu32 " device%s",
             t->pid, rank[0] ? " " : "", rank, t->n_devices, t->n_devices == 1 ? "" : "s");
    int n = snprintf(v->trace_said, sizeof v->trace_said,
                     "%s; %" PRIu64 " records, %" PRIu64 " kernels, ", t->state, t->records,
                     t->kernels);
    if (t->graphs) /* graph-level tracing: one record per launch, none of its kernels */
        n += snprintf(v->trace_said + n, sizeof v->trace_said - (size_t)n,
                      "%" PRIu64 " graph launches, ", t->graphs);
    snprintf(v->trace_said + n, sizeof v->trace_said - (size_t)n, "%" PRIu64 " copies",
             t->memcpys);
}

/* The steps in a headline's words: how many, from where, what was left out. */
static void steps_text(struct report_view *v)
{
    const struct report_steps *t = &v->steps;
    if (!v->per_step) {
        snprintf(v->steps_said, sizeof v->steps_said,
                 "no step markers: whole trace as one interval (%.1f ms)", ms_of(v->s.total_ns));
        snprintf(v->steps_head, sizeof v->steps_head, "%s", v->steps_said);
        return;
    }
    snprintf(v->steps_said, sizeof v->steps_said, "%zu of %zu (%s), %zu warm-up excluded%s%s%s",
             v->s.steps, t->total, ssa_step_source_name(t->source), t->warmup,
             t->marker_unmatched ? "; no complete NVTX range matched --step-marker" : "",
             t->outside_capture ? "; steps outside the GPU capture window not counted" : "",
             t->launch_unsampled ? "; steps without kernel launch calls (--launch-sample) "
                                   "not counted" : "");
    int n = snprintf(v->steps_head, sizeof v->steps_head, "%zu of %zu (%s, thread %" PRIu32 ")",
                     v->s.steps, t->total, ssa_step_source_name(t->source), t->train_tid);
    if (t->warmup)
        snprintf(v->steps_head + n, sizeof v->steps_head - (size_t)n, ", %zu warm-up excluded",
                 t->warmup);
}

/* A line of its own under the text report's steps (steps_before, steps_after). */
static char *step_line(char (*lines)[REPORT_NOTE], size_t *n)
{
    return *n < REPORT_STEP_LINES ? lines[(*n)++] : lines[REPORT_STEP_LINES - 1];
}
#define STEP_LINE(v, which, ...)                                                                   \
    snprintf(step_line(v->which, &v->n_##which), REPORT_NOTE, __VA_ARGS__)

/* What the capture window left out: steps outside it, steps without launch calls. */
static void capture_lines(struct report_view *v, const struct ssa_result *r)
{
    if (r->outside_capture)
        STEP_LINE(v, steps_before, "%zu outside the GPU capture window%s: not counted",
                  r->outside_capture,
                  r->queued_at_open ? " or before its GPU finished work queued before it" : "");
    if (r->launch_unsampled)
        STEP_LINE(v, steps_before, "%zu without launch calls (1 step in %u has them, "
                  "--launch-sample): not counted", r->launch_unsampled, (unsigned)r->launch_sample);
    if (r->capture_window && r->n_steps == 0)
        STEP_LINE(v, steps_before, "no step inside the capture window: no GPU activity to "
                  "analyse");
    if (r->capture_never_opened)
        STEP_LINE(v, steps_before, "the run ended before the window opened: record it again "
                  "with --capture all");
}

/* The lines under the steps of the text report: before the step notes, and after them. */
static void step_lines(struct report_view *v, const struct ssa_result *r)
{
    if (!v->per_step) return;
    if (r->warmup_asked > r->n_warmup)
        STEP_LINE(v, steps_before, "--warmup %zu: only %zu step%s, so %zu excluded (one is kept "
                  "to analyse)", r->warmup_asked, r->n_steps, r->n_steps == 1 ? "" : "s",
                  r->n_warmup);
    capture_lines(v, r);
    if (r->marker_unmatched)
        STEP_LINE(v, steps_before, "no complete NVTX range matched --step-marker");
    if (r->step_source == SSA_STEPS_DETECTED)
        STEP_LINE(v, steps_before, "no step markers: steps detected from kernel periodicity");
    if (r->warmup_autotune)
        STEP_LINE(v, steps_after, "step 0 ran kernels never seen again (autotuning, compilation)");
    if (r->warmup_fill)
        STEP_LINE(v, steps_after, "%zu of them ran faster than the steady pace (the host ran "
                  "ahead of the GPU until its queue filled, or prefetched data ran out)",
                  r->warmup_fill);
    if (r->dropped_step_ranges)
        STEP_LINE(v, steps_after, "%" PRIu64 " step range(s) never ended: not counted",
                  r->dropped_step_ranges);
}

/* The step time in a headline's words, and the caution when the GPU ran behind the host. */
static void step_time_text(struct report_view *v)
{
    const struct ssa_summary *s = &v->s;
    if (s->steps && v->per_step)
        snprintf(v->step_time, sizeof v->step_time,
                 "median %.2f ms, p10 %.2f, p90 %.2f, mean %.2f; %.2f steps/s", ms_of(s->median_ns),
                 ms_of(s->p10_ns), ms_of(s->p90_ns), ms_of(s->mean_ns), s->steps_per_s);
    if (!s->host_ahead) return;
    snprintf(v->caution, sizeof v->caution,
             "the GPU ran behind the host (%.1f launches, %.1f GPU operations per step): these "
             "step times understate the training step", s->launches_per_step, s->gpu_ops_per_step);
    snprintf(v->caution_long, sizeof v->caution_long,
             "the GPU ran behind the host: of %.1f launches per step, %.1f GPU operations ran "
             "inside the steps (%.0f %%); the rest ran after them, so these step times show the "
             "host's enqueue pace and understate the training step: record more steps, or a "
             "window that ends with a sync", s->launches_per_step, s->gpu_ops_per_step,
             100.0 * s->gpu_ops_per_step / s->launches_per_step);
}

/* The slowest steps over SSA_OUTLIER_FACTOR x the median (at most `show` of them), and the
 * category that grew. */
static void outliers_text(const struct report_view *v, size_t show, char *buf, size_t size)
{
    const struct ssa_outlier *o = v->outliers;
    size_t n = v->n_outliers;
    if (!n) return;
    size_t used = (size_t)snprintf(buf, size, "%zu step%s over %.1fx the median:", n,
                                   n == 1 ? "" : "s", SSA_OUTLIER_FACTOR);
    for (size_t i = 0; i < n && i < show && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used,
                                 "%s step %" PRIu64 " %.1f ms (+%.1f %s %s)", i ? "," : "",
                                 o[i].number, ms_of(o[i].dur_ns), ms_of(o[i].over_median_ns),
                                 o[i].excess ? "mostly" : "largest:", ssa_cat_name(o[i].cat));
}

/* Whose GPU time the breakdown is, for a headline (gpu_busy) and before the text bar. */
static void gpu_text(struct report_view *v)
{
    if (v->gpu_left_to) {
        snprintf(v->gpu_busy, sizeof v->gpu_busy,
                 "not recorded: GPU activity was left to another tool (%.200s)", v->gpu_left_to);
        snprintf(v->gpu_note, sizeof v->gpu_note, "GPU activity was left to another tool "
                 "(%.200s): not recorded here, so the breakdown is host time, not GPU idle",
                 v->gpu_left_to);
        return;
    }
    snprintf(v->gpu_busy, sizeof v->gpu_busy, "%.1f %%%s", v->s.gpu_busy_pct,
             v->has_gpu ? "" : " (no GPU activity recorded: every instant is GPU idle)");
    if (!v->has_gpu)
        snprintf(v->gpu_note, sizeof v->gpu_note,
                 "no GPU activity recorded: every instant counts as GPU idle");
}

/* ---- the findings' sentences ---- */

static void findings_text(struct report_view *v)
{
    for (size_t i = 0; i < v->f.n; i++) {
        for (size_t k = 0; k < v->f.n && v->f.v[i].alternative_to; k++)
            if (strcmp(v->f.v[k].id, v->f.v[i].alternative_to) == 0) v->alt_of[i] = k + 1;
        if (v->alt_of[i])
            snprintf(v->alt_said[i], sizeof v->alt_said[i],
                     "alternative to %zu.: the same time, not additive", v->alt_of[i]);
        held_out_text(&v->f.v[i].held_out, v->held_out[i], sizeof v->held_out[i]);
        saves_text(&v->f.v[i], v->saves[i], sizeof v->saves[i]);
    }
    v->has_all_fixed = all_fixed_text(&v->f, &v->s, v->all_fixed, sizeof v->all_fixed);
    snprintf(v->no_findings, sizeof v->no_findings, "none above %.0f %% of the step",
             SSA_FINDING_MIN_PCT);
    if (v->light)
        snprintf(v->light_note, sizeof v->light_note, "a light recording keeps no kernel "
                 "records: the findings that price GPU idle time need --mode full");
}

/* ---- the view ---- */

/* What the analysis found: the numbers, the findings, the checks, the charts' steps. */
static void view_numbers(struct report_view *v, const struct ssa_result *r,
                         const struct ssa_peer *peer)
{
    v->s = *r->summary;
    v->per_step = r->step_source != SSA_STEPS_NONE;
    v->peer = peer ? *peer : (struct ssa_peer){0, -1, 0};
    if (v->per_step) ssa_find(r, &v->s, &v->peer, &v->f); /* no steps, no per-step saving */
    judge_env(r, &v->env);
    v->n_outliers = ssa_outliers(r, &v->s, v->outliers, REPORT_OUTLIERS);
    timeline_steps(v, r);
    run_bins(v, r);
    v->gpu_left_to = gpu_left_to(r);
    v->has_gpu = ssa_gpu_records(r) > 0;
    v->light = ssa_env_light(&r->env);
    v->prog = &r->program, v->batch = r->batch;
    ssa_throughput(r, &v->s, &v->tp);
    v->has_throughput = v->per_step && v->s.steps > 0;
    host_categories(v, r);
    v->site_cats = site_cats(&r->host);
}

/* Every sentence a writer prints of the trace, once. */
static void view_sentences(struct report_view *v, const struct ssa_result *r)
{
    identity_text(v);
    steps_text(v);
    step_lines(v, r);
    step_notes(v, r);
    step_time_text(v);
    outliers_text(v, 3, v->outliers_said, sizeof v->outliers_said);
    outliers_text(v, 1, v->outlier_said, sizeof v->outlier_said);
    gpu_text(v);
    v->has_rec_cost = rec_cost_text(&v->s, v->rec_cost, sizeof v->rec_cost);
    v->damaged = damage_text(r, v->damage, sizeof v->damage);
    v->damage_label = r->damage.damaged ? "DAMAGED" : "INCOMPLETE";
    v->has_problems = problems_text(r, v->problems, sizeof v->problems);
    v->has_lost = lost_text(r, v->lost, sizeof v->lost);
    findings_text(v);
    v->has_graphs = v->per_step && graphs_text(&v->s, v->graphs, sizeof v->graphs);
    v->has_program = program_text(&r->program, v->program, sizeof v->program);
    if (v->has_throughput) throughput_text(v, v->throughput, sizeof v->throughput);
    if (v->has_throughput) throughput_line(v, v->throughput_line, sizeof v->throughput_line);
    peak_text(v->tp.peak, v->peak, sizeof v->peak);
}

void report_view_build(struct report_view *v, const struct ssa_result *r,
                       const struct ssa_peer *peer)
{
    memset(v, 0, sizeof *v);
    trace_facts(&v->trace, r);
    step_facts(&v->steps, r);
    kernel_facts(v, r);
    view_numbers(v, r, peer);
    view_sentences(v, r);
    report_run_build(&v->run, r);
}

/* ---- the ranks of a multi-GPU job: what every format says, which rows ---- */

static const struct ssa_rank *rank_at(const struct ssa_job *j, size_t i)
{
    return &j->ranks[i];
}

static void say_notes(const struct ssa_job *j, char *buf, size_t cap)
{
    int n = 0;
    buf[0] = 0;
    if (j->missing)
        n += snprintf(buf + n, cap - (size_t)n, "%zu rank%s without a trace here. ", j->missing,
                      j->missing == 1 ? "" : "s");
    if (j->duplicates && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n,
                      "%zu trace%s repeat a rank number (another run?): the first is compared. ",
                      j->duplicates, j->duplicates == 1 ? "" : "s");
    if (j->other_jobs && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n,
                      "%zu rank trace%s of another world size: reported per process only. ",
                      j->other_jobs, j->other_jobs == 1 ? "" : "s");
    if (j->n_usable < j->n && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n,
                 "%zu rank%s without steady steps from step markers: not compared.",
                 j->n - j->n_usable, j->n - j->n_usable == 1 ? "" : "s");
}

static void say_straggler(const struct ssa_job *j, char *buf, size_t cap)
{
    if (j->n_usable < 2) {
        snprintf(buf, cap, "fewer than 2 ranks with steady steps: nothing to compare");
        return;
    }
    const struct ssa_rank *s = rank_at(j, j->straggler), *m = rank_at(j, j->reference);
    if (!j->has_straggler) {
        snprintf(buf, cap,
                 "none: rank %d, the slowest, does %.2f ms/step more work outside "
                 "communication than rank %d, the median, under %.0f %% of the step",
                 (int)s->rank, j->price_ms > 0 ? j->price_ms : 0, (int)m->rank,
                 SSA_STRAGGLER_MIN_PCT);
        return;
    }
    snprintf(buf, cap,
             "rank %d does %.2f ms/step more work outside communication than the median rank, "
             "rank %d, most of it %s (+%.2f ms/step: %s); the other ranks wait about %.2f ms/step "
             "(%.0f %% of the step) for it in the collectives",
             (int)s->rank, j->price_ms, (int)m->rank, ssa_cat_name(j->why_cat), j->why_ms,
             ssa_cat_description(j->why_cat), j->price_ms,
             s->step_ms > 0 ? 100 * j->price_ms / s->step_ms : 0);
}

static void say_waiting(const struct ssa_job *j, char *buf, size_t cap)
{
    buf[0] = 0;
    if (j->n_usable < 2) return;
    const struct ssa_rank *s = rank_at(j, j->straggler), *m = rank_at(j, j->reference);
    if (m->comm_ms <= 0) return;
    if (!j->has_straggler) {
        snprintf(buf, cap,
                 "rank %d (median) exposes %.2f ms/step of comm, not waiting for a straggler: "
                 "communication not hidden under compute (finding comm_not_overlapped)",
                 (int)m->rank, m->comm_ms);
        return;
    }
    int mostly = m->wait_ms >= 0.5 * m->comm_ms;
    snprintf(buf, cap,
             "rank %d (median) exposes %.2f ms/step of comm, %.2f of it waiting for rank %d%s%d%s",
             (int)m->rank, m->comm_ms, m->wait_ms, (int)s->rank,
             mostly ? ": speed up rank " : "; the rest is communication not hidden (rank ",
             (int)s->rank,
             mostly ? " (its findings), not the network" : " excepted: comm_not_overlapped)");
}

/* Every rank by number, or the edges of the non-comm order with REPORT_RANK_BETWEEN rows. */
static void table_rows(const struct ssa_job *j, struct report_ranks_view *v)
{
    size_t n = 0, *rows = v->rows;
    if (j->n <= REPORT_RANKS_ALL) {
        for (size_t i = 0; i < j->n; i++)
            rows[n++] = i;
        v->n_rows = n;
        return;
    }
    size_t u = j->n_usable, mid = 1 + (u - 2) / 2; /* the reference's place in job->order */
    for (size_t k = 0; k < u; k++) {
        int edge = k < REPORT_RANKS_EDGE || k + REPORT_RANKS_EDGE >= u || k == mid;
        if (edge)
            rows[n++] = j->order[k];
        else if (n && rows[n - 1] != REPORT_RANK_BETWEEN)
            rows[n++] = REPORT_RANK_BETWEEN, v->elided++;
    }
    v->n_rows = n;
}

static char rank_mark(const struct ssa_job *j, size_t i)
{
    if (j->n_usable < 2 || i == REPORT_RANK_BETWEEN) return ' ';
    return i == j->straggler && j->has_straggler ? 'S' : i == j->reference ? 'm' : ' ';
}

void report_ranks_view_build(struct report_ranks_view *v, const struct ssa_job *job,
                             const struct report_input *inputs, size_t omitted)
{
    memset(v, 0, sizeof *v);
    v->job = job, v->inputs = inputs, v->omitted = omitted;
    if (omitted)
        snprintf(v->omitted_said, sizeof v->omitted_said,
                 "%zu rank sections omitted (-v shows them)", omitted);
    snprintf(v->head, sizeof v->head, "%zu of %d ranks of one job (world size %d)", job->n,
             (int)job->world_size, (int)job->world_size);
    say_notes(job, v->notes, sizeof v->notes);
    say_straggler(job, v->straggler, sizeof v->straggler);
    say_waiting(job, v->waiting, sizeof v->waiting);
    report_align_view(job->align, v->clocks, sizeof v->clocks, v->arrivals, sizeof v->arrivals);
    table_rows(job, v);
    for (size_t i = 0; i < v->n_rows; i++)
        v->mark[i] = rank_mark(job, v->rows[i]);
}

const char *report_cat_fill(int cat)
{
    static const char *const fill[SSA_CAT_COUNT] = {
#define VIEW_X_FILL(id, name, glyph, ansi, fill, argb, text) [SSA_CAT_##id] = fill,
        SSA_CATS(VIEW_X_FILL)
#undef VIEW_X_FILL
    };
    return cat >= 0 && cat < SSA_CAT_COUNT ? fill[cat] : "#9e9e9e";
}

char *report_kernel_name(const char *raw, size_t max_chars)
{
    char *dem = ss_demangle(raw, strlen(raw));
    const char *name = dem ? dem : raw;
    size_t cap = strlen(name) + 1;
    char *form = malloc(cap);
    for (int level = 0; form && level < SS_NAME_LEVELS; level++)
        if (ss_name_shorten(name, level, form, cap) <= max_chars) break;
    free(dem);
    return form;
}
