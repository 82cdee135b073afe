/*
 * report_plain.c — a report format made by docs/design.md's recipe "Add a report format", for
 * the test that follows it (report.recipe): this file is the recipe's first file, copied into
 * a copy of tools/report/ as report_plain.c, and the line below is its second, added at the
 * end of REPORT_FORMATS in that copy's report.h (tests/report/recipe.cmake). Nothing else is
 * touched; the copy builds stepscope-recipe-report.
 *
 * REPORT_FORMATS row: X(PLAIN, plain, SSA_COMPACT, SSA_COMPACT, "plain (the view's sentences, one a line)", "plain (the diff's sentences, one a line)")
 *
 * The format: every sentence of the view, one a line, "label: sentence" — from the view alone
 * (report_view.h, report_diff.h): the test compares them with the text report's.
 */
#include <string.h>

#include "report.h"
#include "report_diff.h"
#include "text_esc.h"

/* "label: sentence", escaped (a sentence may quote the trace); nothing for an empty one. */
static void said(FILE *f, const char *label, const char *sentence)
{
    if (!sentence || !sentence[0]) return;
    fprintf(f, "%s: ", label);
    text_write_escaped(f, sentence, strlen(sentence), 0);
    fputc('\n', f);
}

static void plain_findings(FILE *f, const struct report_view *v)
{
    said(f, "findings", v->f.n ? NULL : v->no_findings);
    for (size_t i = 0; i < v->f.n; i++) {
        said(f, "finding", v->f.v[i].title);
        said(f, "saves", v->saves[i]);
        said(f, "alternative", v->alt_said[i]);
    }
    if (v->has_all_fixed) said(f, "together", v->all_fixed);
}

static void plain_process(struct report_sink *k, const struct report_view *v)
{
    FILE *f = k->f;
    said(f, "report", v->trace.path);
    if (v->damaged) said(f, v->damage_label, v->damage);
    said(f, "process", v->process_terse);
    said(f, "trace", v->trace_said);
    said(f, "steps", v->steps_head);
    for (size_t i = 0; i < v->n_step_notes; i++)
        said(f, "steps, why", v->step_notes[i]);
    if (v->has_rec_cost) said(f, "recording", v->rec_cost);
    said(f, "outliers", v->outliers_said);
    said(f, "GPU busy", v->gpu_busy);
    said(f, "env", v->env.counts_said);
    plain_findings(f, v);
}

static void plain_ranks(struct report_sink *k, const struct report_ranks_view *t)
{
    said(k->f, "ranks", t->head);
    said(k->f, "straggler", t->straggler);
    said(k->f, "waiting", t->waiting);
    said(k->f, "sections", t->omitted_said);
}

static void plain_unreadable(struct report_sink *k, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        said(k->f, "unreadable", paths[i]);
}

static void plain_diff(FILE *f, const struct diff_view *d)
{
    said(f, "before", d->b.path);
    said(f, "after", d->a.path);
    said(f, d->verdict, d->said);
    said(f, "note", d->b.note);
    said(f, "note", d->a.note);
    for (size_t i = 0; i < d->n_pairs; i++)
        said(f, d->pairs[i].status, d->pairs[i].x->title);
}

const struct report_writer report_writer_plain = {
    .ranks = plain_ranks,
    .process = plain_process,
    .unreadable = plain_unreadable,
    .diff = plain_diff,
};
