/*
 * report_md.c — the Markdown format, every section of it (for a pull request or a wiki): per
 * process the headline, the environment checks, the breakdown table, where the host time is in
 * the code and the ranked findings; before them the ranks of a multi-GPU job; diff's tables.
 * Strings from the trace go through md_escaped(): Markdown renders inline HTML, so they are
 * HTML-escaped too.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"
#include "report_diff.h"
#include "text_esc.h"

/* The reader's problems, as the text report's "damage" line says them. */
static void md_problems(FILE *f, const struct report_view *v)
{
    fputs("- **damage**: ", f);
    md_escaped(f, v->problems);
    fputs("\n", f);
}

static void md_headline(FILE *f, const struct report_view *v)
{
    const struct ssa_result *r = v->r;
    const struct ssa_summary *s = &v->s;
    fputs("## stepscope report: ", f);
    md_escaped(f, r->path);
    if (v->damaged) fprintf(f, "\n\n> **%s trace**: %s", v->damage_label, v->damage);
    fprintf(f, "\n\n- **process**: pid %" PRIu32, r->pid);
    if (r->rank >= 0 && r->world_size > 0)
        fprintf(f, ", rank %" PRId32 "/%" PRId32, r->rank, r->world_size);
    fprintf(f, ", %" PRIu32 " device(s), first ", r->n_devices);
    md_escaped(f, r->device_name);
    fputs("\n- **command**: ", f);
    md_escaped(f, r->cmdline);
    fputs("\n- **trace**: ", f);
    md_escaped(f, r->state_line);
    fprintf(f, "; %" PRIu64 " records, %" PRIu64 " kernels, %" PRIu64 " copies\n", r->records,
            r->kernels, r->memcpys);
    if (v->has_problems) md_problems(f, v);
    if (r->step_source == SSA_STEPS_NONE)
        fprintf(f, "- **steps**: no step markers: whole trace as one interval (%.1f ms)\n",
                ms(s->total_ns));
    else
        fprintf(f, "- **steps**: %zu of %zu (%s), %zu warm-up excluded%s%s%s\n", s->steps, r->n_steps,
                ssa_step_source_name(r->step_source), r->n_warmup,
                r->marker_unmatched ? "; no complete NVTX range matched --step-marker" : "",
                 r->outside_capture ? "; steps outside the GPU capture window not counted" : "",
                 r->launch_unsampled ? "; steps without kernel launch calls (--launch-sample) "
                                       "not counted" : "");
    if (s->steps && r->step_source != SSA_STEPS_NONE)
        fprintf(f,
                "- **step time**: median %.2f ms, p10 %.2f, p90 %.2f, mean %.2f; "
                "%.2f steps/s\n",
                ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), ms(s->mean_ns), s->steps_per_s);
    if (v->has_program) fprintf(f, "- **program**: %s\n", v->program);
    for (size_t i = 0; i < v->n_step_notes; i++)
        fprintf(f, "- **steps, why**: %s\n", v->step_notes[i]);
    if (v->has_rec_cost) fprintf(f, "- **recording**: %s\n", v->rec_cost);
    if (v->has_lost) fprintf(f, "- **lost while recording**: %s\n", v->lost);
    if (v->has_throughput) fprintf(f, "- **throughput**: %s\n", v->throughput);
    if (v->has_throughput && v->peak[0]) fprintf(f, "- **peak**: %s\n", v->peak);
    if (v->has_graphs) fprintf(f, "- **CUDA graphs**: %s\n", v->graphs);
    if (s->host_ahead)
        fprintf(f,
                "- **caution**: the GPU ran behind the host (%.1f launches, %.1f GPU operations "
                "per step): these step times understate the training step\n",
                s->launches_per_step, s->gpu_ops_per_step);
    if (v->gpu_left_to) {
        fputs("- **GPU busy**: not recorded: GPU activity was left to another tool (", f);
        md_escaped(f, v->gpu_left_to);
        fputs(")\n", f);
        return;
    }
    fprintf(f, "- **GPU busy**: %.1f %%%s\n", s->gpu_busy_pct,
            v->has_gpu ? "" : " (no GPU activity recorded: every instant is GPU idle)");
}

static void md_breakdown(FILE *f, const struct ssa_result *r, const struct ssa_summary *s)
{
    int per_step = r->step_source != SSA_STEPS_NONE;
    fprintf(f,
            "\n### Where the step time goes\n\n| category | %s | %% | meaning |\n"
            "|---|---:|---:|---|\n",
            per_step ? "ms/step" : "ms");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (s->cat_pct[c] <= 0) continue;
        double v = per_step ? s->cat_ms[c] : s->cat_ms[c] * (double)s->steps;
        fprintf(f, "| %s | %.3f | %.1f | %s |\n", ssa_cat_name(c), v, s->cat_pct[c],
                ssa_cat_description(c));
    }
    fprintf(f, "| **total** | %.3f | 100.0 | |\n", per_step ? ms(s->mean_ns) : ms(s->total_ns));
}

/* The warn and fail checks (every check with verbose), in a table; values quote the trace. */
static void md_env(FILE *f, const struct report_env *b, int verbose)
{
    fputs("\n### Environment\n\n", f);
    if (!b->recorded) {
        fputs("Not recorded in the trace.\n", f);
        return;
    }
    fputs(b->counts_said, f);
    fputs(" (the checks of `stepscope doctor`, from the trace's environment record)\n", f);
    if (!verbose && !b->notable) return;
    fputs("\n| status | check | value | fix |\n|---|---|---|---|\n", f);
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        if (!verbose && !report_env_notable(v)) continue;
        fprintf(f, "| %s | `%s` | ", ssa_env_status_name(v->status), ssa_env_checks[i].id);
        md_escaped(f, v->value);
        fputs(" | ", f);
        md_escaped(f, v->fix[0] ? v->fix : NULL);
        fputs(" |\n", f);
    }
}

/* Where the GPU-idle host time is in the code: per category the user's lines the Python stack
 * samples fell on (issue #20). Nothing without samples. */
static void md_host(FILE *f, const struct report_view *v, int verbose)
{
    if (!v->n_hostcats) return;
    fputs("\n### Where the GPU-idle host time is in the code\n\n"
          "From Python stack samples of the training thread; ms/step without stepscope's own "
          "cost per launch.\n\n| category | ms/step | samples | where | library frame |\n"
          "|---|---:|---:|---|---|\n",
          f);
    for (size_t c = 0; c < v->n_hostcats; c++) {
        const struct report_hostcat *h = &v->hostcats[c];
        size_t shown = verbose || h->n < REPORT_HOST_SHORT ? h->n : REPORT_HOST_SHORT;
        for (size_t i = 0; i < shown; i++) {
            fprintf(f, "| %s | %.2f | %" PRIu64 " | ", i ? "" : ssa_cat_name(h->cat),
                    h->v[i].h.ms_per_step, h->v[i].h.samples);
            md_escaped(f, h->v[i].where);
            fputs(" | ", f);
            if (h->v[i].h.lib) md_escaped(f, h->v[i].h.lib->function);
            fputs(" |\n", f);
        }
    }
    if (v->site_cats)
        fprintf(f, "\n`%s`: the lines of the CUDA calls caught while they blocked (the "
                   "samples column counts the calls).\n",
                v->site_cats);
}

static void md_findings(FILE *f, const struct report_view *v, int verbose)
{
    const struct ssa_findings *fs = &v->f;
    fputs("\n### Findings, ranked by estimated saving\n\n", f);
    if (!fs->n) fprintf(f, "None above %.0f %% of the step.\n", SSA_FINDING_MIN_PCT);
    for (size_t i = 0; i < fs->n; i++) {
        const struct ssa_finding *x = &fs->v[i];
        fprintf(f, "%zu. **[%s] ", i + 1, ssa_level_name(x->severity));
        md_escaped(f, x->title);
        fprintf(f, "**: %s  \n   Evidence: ", v->saves[i]);
        if (v->alt_of[i]) fprintf(f, "(alternative to %zu.: the same time, not additive) ", v->alt_of[i]);
        md_escaped(f, x->evidence);
        if (verbose) {
            fputs("  \n   Estimate: ", f);
            md_escaped(f, x->estimate);
        }
        fputs("  \n   Fix: ", f);
        md_escaped(f, x->fix);
        fputc('\n', f);
    }
    if (v->has_all_fixed) {
        fputs("\n", f);
        md_escaped(f, v->all_fixed);
        fputc('\n', f);
    }
}

static void md_process(struct report_sink *k, const struct report_view *v)
{
    FILE *f = k->f;
    md_headline(f, v);
    md_env(f, &v->env, k->o->verbose);
    if (!v->s.steps) {
        fputs("\nNothing to attribute: the trace has no timed records inside a step.\n\n", f);
        return;
    }
    md_breakdown(f, v->r, &v->s);
    md_host(f, v, k->o->verbose);
    md_findings(f, v, k->o->verbose);
    fputc('\n', f);
}

/* ---- the ranks of a multi-GPU job (report_view.c says what; here how) ---- */

static void md_rank_row(FILE *f, const struct report_ranks_view *t, size_t row)
{
    const struct ssa_rank *k = &t->job->ranks[t->rows[row]];
    if (!k->usable)
        fprintf(f, "| | %d | | | | | | not compared (no steady steps) | ", (int)k->rank);
    else
        fprintf(f, "| %c | %d | %.2f | %.1f | %.2f | %.2f | %.0f %% | %s %.2f | ", t->mark[row],
                (int)k->rank, k->step_ms, k->busy_pct, k->nccl_ms, k->comm_ms, k->overlap_pct,
                ssa_cat_name(k->top_cat), k->top_ms);
    md_escaped(f, t->rs[k->input]->path);
    fputs(" |\n", f);
}

static void md_ranks(struct report_sink *k, const struct report_ranks_view *t)
{
    FILE *f = k->f;
    fprintf(f, "## Ranks: %s\n\n", t->head);
    if (t->notes[0]) md_escaped(f, t->notes), fputs("\n\n", f);
    fputs("| | rank | step ms | GPU busy % | NCCL ms | exposed comm ms | overlapped | largest "
          "non-comm, ms | trace |\n|---|---:|---:|---:|---:|---:|---:|---|---|\n",
          f);
    for (size_t i = 0; i < t->n_rows; i++)
        if (t->rows[i] == REPORT_RANK_BETWEEN)
            fputs("| | ... | | | | | | ranks between, by non-comm time | |\n", f);
        else
            md_rank_row(f, t, i);
    fputs("\nms per step; S: straggler, m: median rank. **Straggler**: ", f);
    md_escaped(f, t->straggler);
    if (t->waiting[0]) fputs(". **Waiting**: ", f), md_escaped(f, t->waiting);
    fputc('.', f);
    if (t->omitted) fprintf(f, " %zu rank sections omitted (-v shows them).", t->omitted);
    fputs("\n\n", f);
}

/* ---- stepscope diff ---- */

static void md_diff_finding(FILE *f, const struct diff_pair *p)
{
    fprintf(f, "| `%s` | %s | %s | %s | ", p->x->id, p->before, p->after, p->status);
    md_escaped(f, p->x->title);
    fputs(" |\n", f);
}

static void md_diff(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    fputs("## stepscope diff: ", f);
    md_escaped(f, b->path);
    fputs(" → ", f);
    md_escaped(f, a->path);
    fprintf(f, "\n\n**%s**: median step %.2f → %.2f ms (%.2fx; noise ±%.2f ms), mean %.2f → "
               "%.2f ms, GPU busy %.1f → %.1f %%, %zu → %zu steps\n\n",
            d->verdict, ms(b->s.median_ns), ms(a->s.median_ns), d->speedup_median,
            d->noise_ms, ms(b->s.mean_ns), ms(a->s.mean_ns), b->s.gpu_busy_pct, a->s.gpu_busy_pct,
            b->s.steps, a->s.steps);
    fputs("| category | before ms/step | after ms/step | change |\n|---|---:|---:|---:|\n", f);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->s.cat_ms[c], y = a->s.cat_ms[c];
        if (d->cat_shown[c])
            fprintf(f, "| %s | %.3f | %.3f | %+.3f |\n", ssa_cat_name(c), x, y, y - x);
    }
    if (!d->n_pairs) {
        fputs("\nNo finding in either trace.\n", f);
        return;
    }
    fputs("\n| finding | before ms/step | after ms/step | status | title |\n"
          "|---|---:|---:|---|---|\n", f);
    for (size_t i = 0; i < d->n_pairs; i++) md_diff_finding(f, &d->pairs[i]);
}


static void md_begin(struct report_sink *k)
{
    size_t n = k->d->n_sections + k->d->hidden;
    if (n > 1) fprintf(k->f, "# stepscope report: %zu processes\n\n", n);
}

static void md_unreadable(struct report_sink *k, const char *const *paths, size_t n)
{
    fprintf(k->f, "## Traces that could not be read\n\n%zu of %zu (why: on stderr):\n\n", n,
            k->d->n_inputs);
    for (size_t i = 0; i < n; i++) {
        fputs("- ", k->f);
        md_escaped(k->f, paths[i]);
        fputc('\n', k->f);
    }
}


const struct report_writer report_writer_md = {
    .begin = md_begin,
    .ranks = md_ranks,
    .process = md_process,
    .unreadable = md_unreadable,
    .diff = md_diff,
};
