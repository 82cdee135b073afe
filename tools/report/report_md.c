/*
 * report_md.c — the Markdown format, every section of it (for a pull request or a wiki): per
 * process the headline, the environment checks, the breakdown table, where the host time is in
 * the code and the ranked findings; before them the ranks of a multi-GPU job; diff's tables.
 * Strings from the trace go through md_escaped(): Markdown renders inline HTML, so they are
 * HTML-escaped too.
 */
#include <ctype.h>
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

/* "- **label**: sentence" for each sentence of the view that is there. */
static void md_item(FILE *f, const char *label, const char *sentence)
{
    if (sentence[0]) fprintf(f, "- **%s**: %s\n", label, sentence);
}

static void md_headline(FILE *f, const struct report_view *v)
{
    const struct report_trace *t = &v->trace;
    fputs("## stepscope report: ", f);
    md_escaped(f, t->path);
    if (v->damaged) fprintf(f, "\n\n> **%s trace**: %s", v->damage_label, v->damage);
    fprintf(f, "\n\n- **process**: %s, first ", v->process);
    md_escaped(f, t->device);
    fputs("\n- **command**: ", f);
    md_escaped(f, t->cmdline);
    fputs("\n- **trace**: ", f);
    md_escaped(f, v->trace_said);
    fputc('\n', f);
    if (v->has_problems) md_problems(f, v);
    md_item(f, "steps", v->steps_said);
    md_item(f, "step time", v->step_time);
    if (v->has_program) md_item(f, "program", v->program);
    for (size_t i = 0; i < v->n_step_notes; i++)
        md_item(f, "steps, why", v->step_notes[i]);
    if (v->has_rec_cost) md_item(f, "recording", v->rec_cost);
    if (v->has_lost) md_item(f, "lost while recording", v->lost);
    if (v->has_throughput) md_item(f, "throughput", v->throughput);
    if (v->has_throughput) md_item(f, "peak", v->peak);
    if (v->has_graphs) md_item(f, "CUDA graphs", v->graphs);
    md_item(f, "caution", v->caution);
    fputs("- **GPU busy**: ", f);
    md_escaped(f, v->gpu_busy);
    fputc('\n', f);
}

static void md_breakdown(FILE *f, const struct ssa_summary *s, int per_step)
{
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
    if (!fs->n) /* a sentence of its own in a paragraph: capitalised */
        fprintf(f, "%c%s.\n", toupper((unsigned char)v->no_findings[0]), v->no_findings + 1);
    for (size_t i = 0; i < fs->n; i++) {
        const struct ssa_finding *x = &fs->v[i];
        fprintf(f, "%zu. **[%s] ", i + 1, ssa_level_name(x->severity));
        md_escaped(f, x->title);
        fprintf(f, "**: %s: %s  \n   Evidence: ", v->saves[i], v->held_out[i]);
        if (v->alt_of[i]) fprintf(f, "(%s) ", v->alt_said[i]);
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

/* "- sentence", escaped (the whole run's lines hold the trace's file and function names) */
static void md_bullet(FILE *f, const char *sentence)
{
    fputs("- ", f);
    md_escaped(f, sentence);
    fputc('\n', f);
}

/* The whole run: head, the sparkline in a code block, the stalls, drift and windows. */
static void md_run(FILE *f, const struct report_run *w)
{
    if (w->why_none[0]) fprintf(f, "\n### Whole run\n\n%s\n", w->why_none);
    if (!w->shown) return;
    fputs("\n### Whole run\n\n", f);
    md_escaped(f, w->head);
    fprintf(f, "\n\n```\n%s\n%s\n```\n\n", w->spark, w->marks);
    md_escaped(f, w->scale);
    fputs("\n\n", f);
    for (size_t i = 0; i < w->n_lines; i++) md_bullet(f, w->lines[i]);
    for (size_t i = 0; i < w->n_compares; i++) md_bullet(f, w->compares[i]);
    if (w->none[0]) md_bullet(f, w->none);
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
    md_breakdown(f, &v->s, v->per_step);
    md_host(f, v, k->o->verbose);
    md_findings(f, v, k->o->verbose);
    md_run(f, &v->run);
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
    md_escaped(f, t->inputs[k->input].path);
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
    if (t->clocks[0]) fputs(". **Clocks**: ", f), md_escaped(f, t->clocks);
    if (t->arrivals[0]) fputs(". **Arrivals**: ", f), md_escaped(f, t->arrivals);
    fputc('.', f);
    if (t->omitted) fprintf(f, " %s.", t->omitted_said);
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
    fprintf(f, "\n\n**%s**: %s, %zu → %zu steps\n\n", d->verdict, d->said, b->v.s.steps,
            a->v.s.steps);
    fputs("| category | before ms/step | after ms/step | change |\n|---|---:|---:|---:|\n", f);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->v.s.cat_ms[c], y = a->v.s.cat_ms[c];
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
