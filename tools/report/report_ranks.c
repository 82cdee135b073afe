/*
 * report_ranks.c — the ranks section of `stepscope report` over the traces of a multi-GPU job
 * (src/analysis/ssa_ranks.c compares them): one row per rank — step time, GPU busy, NCCL
 * kernel time, exposed comm, the share of NCCL overlapped, the largest non-comm category —
 * then the straggler with why and its price, and what the other ranks' exposed comm is.
 * Over REPORT_RANKS_ALL ranks the table shows the slowest and fastest RANKS_EDGE, the median
 * rank, and quantiles. In text, md and html it comes before the per-process sections; in
 * json it is the top-level "ranks" object (docs/report-json.md).
 *
 * The sentences hold only numbers, rank numbers and category names (no string from a trace),
 * so every format writes them as they are; file names go through each format's escaper.
 */
#include <inttypes.h>
#include <string.h>

#include "json_out.h"
#include "report.h"
#include "text_esc.h"

#define RANKS_EDGE 5

/* ---- what every format says ---- */

struct ranks_say {
    char head[120];
    char notes[240];     /* ranks missing, repeated, of another job, not compared; or "" */
    char straggler[480]; /* the straggler, why, its price; or why there is none */
    char waiting[320];   /* what the median rank's exposed comm is; or "" */
};

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

static void ranks_say(const struct ssa_job *j, struct ranks_say *t)
{
    snprintf(t->head, sizeof t->head, "%zu of %d ranks of one job (world size %d)", j->n,
             (int)j->world_size, (int)j->world_size);
    say_notes(j, t->notes, sizeof t->notes);
    say_straggler(j, t->straggler, sizeof t->straggler);
    say_waiting(j, t->waiting, sizeof t->waiting);
}

/* ---- which rows: every rank by number, or the edges of the non-comm order ---- */

/* Fills rows (indices into job->ranks, SIZE_MAX for an "omitted" row); returns how many. */
static size_t table_rows(const struct ssa_job *j, size_t *rows)
{
    size_t n = 0;
    if (j->n <= REPORT_RANKS_ALL) {
        for (size_t i = 0; i < j->n; i++)
            rows[n++] = i;
        return n;
    }
    size_t u = j->n_usable, mid = 1 + (u - 2) / 2; /* the reference's place in job->order */
    for (size_t k = 0; k < u; k++) {
        int edge = k < RANKS_EDGE || k + RANKS_EDGE >= u || k == mid;
        if (edge)
            rows[n++] = j->order[k];
        else if (n && rows[n - 1] != SIZE_MAX)
            rows[n++] = SIZE_MAX;
    }
    return n;
}

#define TABLE_ROWS_MAX (REPORT_RANKS_ALL + 2 * RANKS_EDGE + 3)

static char rank_mark(const struct ssa_job *j, size_t i)
{
    if (j->n_usable < 2) return ' ';
    return i == j->straggler && j->has_straggler ? 'S' : i == j->reference ? 'm' : ' ';
}

/* ---- text ---- */

static void text_row(FILE *f, const struct ssa_job *j, size_t i)
{
    const struct ssa_rank *k = rank_at(j, i);
    if (!k->usable) {
        fprintf(f, "     %4d  no steady steps from step markers: not compared\n", (int)k->rank);
        return;
    }
    fprintf(f, "  %c  %4d %8.2f %6.1f %8.2f %8.2f %6.0f%%  %s %.2f\n", rank_mark(j, i),
            (int)k->rank, k->step_ms, k->busy_pct, k->nccl_ms, k->comm_ms, k->overlap_pct,
            ssa_cat_name(k->top_cat), k->top_ms);
}

static void text_quantiles(FILE *f, const struct ssa_job *j)
{
    char head[40];
    snprintf(head, sizeof head, "over %zu ranks", j->n_usable);
    fprintf(f, "\n  %-19s %8s %8s %8s\n", head, "p10", "median", "p90");
    const struct ssa_spread *v[] = {&j->step_ms, &j->noncomm_ms, &j->comm_ms, &j->wait_ms};
    const char *name[] = {"step ms", "non-comm ms", "exposed comm ms", "  of it waiting"};
    for (int i = 0; i < 4; i++)
        fprintf(f, "  %-19s %8.2f %8.2f %8.2f\n", name[i], v[i]->p10, v[i]->p50, v[i]->p90);
}

void report_ranks_text(FILE *f, const struct ssa_job *j, const struct ssa_result *const *rs,
                       size_t omitted)
{
    (void)rs;
    struct ranks_say t;
    size_t rows[TABLE_ROWS_MAX];
    ranks_say(j, &t);
    fprintf(f, "stepscope ranks: %s\n", t.head);
    if (t.notes[0]) report_text_wrapped(f, "  note       ", t.notes);
    fprintf(f, "\n     %4s %8s %6s %8s %8s %7s  %s\n", "rank", "step ms", "busy %", "nccl ms",
            "exp.comm", "overlap", "largest non-comm, ms");
    size_t n = table_rows(j, rows);
    for (size_t i = 0; i < n; i++)
        if (rows[i] == SIZE_MAX)
            fprintf(f, "     ...  (ranks between, by non-comm time: --format json lists all)\n");
        else
            text_row(f, j, rows[i]);
    fprintf(f, "  ms per step. S: straggler, m: median rank. exp.comm: NCCL not under compute\n");
    if (j->n > REPORT_RANKS_ALL) text_quantiles(f, j);
    fputc('\n', f);
    report_text_wrapped(f, "  straggler  ", t.straggler);
    if (t.waiting[0]) report_text_wrapped(f, "  waiting    ", t.waiting);
    if (omitted) {
        char note[120];
        snprintf(note, sizeof note,
                 "%zu rank sections omitted (-v shows them); the straggler's and the median "
                 "rank's follow",
                 omitted);
        report_text_wrapped(f, "  sections   ", note);
    }
    fputc('\n', f);
}

/* ---- Markdown ---- */

void report_ranks_md(FILE *f, const struct ssa_job *j, const struct ssa_result *const *rs,
                     size_t omitted)
{
    struct ranks_say t;
    size_t rows[TABLE_ROWS_MAX];
    ranks_say(j, &t);
    fprintf(f, "## Ranks: %s\n\n", t.head);
    if (t.notes[0]) md_escaped(f, t.notes), fputs("\n\n", f);
    fputs("| | rank | step ms | GPU busy % | NCCL ms | exposed comm ms | overlapped | largest "
          "non-comm, ms | trace |\n|---|---:|---:|---:|---:|---:|---:|---|---|\n",
          f);
    size_t n = table_rows(j, rows);
    for (size_t i = 0; i < n; i++) {
        const struct ssa_rank *k = rows[i] == SIZE_MAX ? NULL : rank_at(j, rows[i]);
        if (!k) {
            fputs("| | ... | | | | | | ranks between, by non-comm time | |\n", f);
            continue;
        }
        if (!k->usable)
            fprintf(f, "| | %d | | | | | | not compared (no steady steps) | ", (int)k->rank);
        else
            fprintf(f, "| %c | %d | %.2f | %.1f | %.2f | %.2f | %.0f %% | %s %.2f | ",
                    rank_mark(j, rows[i]), (int)k->rank, k->step_ms, k->busy_pct, k->nccl_ms,
                    k->comm_ms, k->overlap_pct, ssa_cat_name(k->top_cat), k->top_ms);
        md_escaped(f, rs[k->input]->path);
        fputs(" |\n", f);
    }
    fputs("\nms per step; S: straggler, m: median rank. **Straggler**: ", f);
    md_escaped(f, t.straggler);
    if (t.waiting[0]) fputs(". **Waiting**: ", f), md_escaped(f, t.waiting);
    fputc('.', f);
    if (omitted) fprintf(f, " %zu rank sections omitted (-v shows them).", omitted);
    fputs("\n\n", f);
}

/* ---- HTML ---- */

static void html_rank_row(FILE *f, const struct ssa_job *j, size_t i,
                          const struct ssa_result *const *rs)
{
    const struct ssa_rank *k = rank_at(j, i);
    if (!k->usable) {
        fprintf(f,
                "<tr><td></td><td class=\"n\">%d</td><td colspan=\"6\">not compared (no "
                "steady steps from step markers)</td><td><code>",
                (int)k->rank);
    } else {
        fprintf(f,
                "<tr><td>%c</td><td class=\"n\">%d</td><td class=\"n\">%.2f</td>"
                "<td class=\"n\">%.1f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td>"
                "<td class=\"n\">%.0f %%</td><td>%s %.2f</td><td><code>",
                rank_mark(j, i), (int)k->rank, k->step_ms, k->busy_pct, k->nccl_ms, k->comm_ms,
                k->overlap_pct, ssa_cat_name(k->top_cat), k->top_ms);
    }
    html_escaped(f, rs[k->input]->path);
    fputs("</code></td></tr>\n", f);
}

static void html_para(FILE *f, const char *open, const char *text)
{
    fputs(open, f);
    html_escaped(f, text);
    fputs("</p>\n", f);
}

void report_ranks_html(FILE *f, const struct ssa_job *j, const struct ssa_result *const *rs,
                       size_t omitted)
{
    struct ranks_say t;
    size_t rows[TABLE_ROWS_MAX];
    ranks_say(j, &t);
    fprintf(f, "<section>\n<h2>Ranks: %s</h2>\n", t.head);
    if (t.notes[0]) html_para(f, "<p class=\"note\">", t.notes);
    size_t n = table_rows(j, rows), elided = 0;
    for (size_t i = 0; i < n; i++)
        elided += rows[i] == SIZE_MAX;
    /* sortable when every rank has its row (no "ranks between" line) */
    fprintf(f, "<table%s>\n<thead><tr><th></th><th class=\"n\">rank</th><th class=\"n\">step ms"
               "</th><th class=\"n\">GPU busy %%</th><th class=\"n\">NCCL ms</th><th class=\"n\">"
               "exposed comm ms</th><th class=\"n\">overlapped</th><th>largest non-comm, ms</th>"
               "<th>trace</th></tr></thead>\n<tbody>\n", elided ? "" : " class=\"sortable\"");
    for (size_t i = 0; i < n; i++)
        if (rows[i] == SIZE_MAX)
            fputs("<tr><td></td><td colspan=\"8\">&hellip; ranks between, by non-comm time "
                  "(--format json lists all)</td></tr>\n",
                  f);
        else
            html_rank_row(f, j, rows[i], rs);
    fputs("</tbody>\n</table>\n<p class=\"note\">ms per step; S: straggler, m: median rank.</p>\n",
          f);
    html_para(f, "<p><b>straggler:</b> ", t.straggler);
    if (t.waiting[0]) html_para(f, "<p><b>waiting:</b> ", t.waiting);
    if (omitted)
        fprintf(f, "<p class=\"note\">%zu rank sections omitted (-v shows them).</p>\n", omitted);
    fputs("</section>\n", f);
}

/* ---- JSON ---- */

static void json_spread(struct json_out *j, const char *key, const struct ssa_spread *s)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_double(j, "p10", s->p10);
    json_kv_double(j, "median", s->p50);
    json_kv_double(j, "p90", s->p90);
    json_end_object(j);
}

static void json_rank(struct json_out *j, const struct ssa_rank *k, const struct ssa_result *r)
{
    json_begin_object(j);
    json_kv_i64(j, "rank", k->rank);
    json_kv_string(j, "file", r->path);
    json_kv_u64(j, "pid", r->pid);
    json_kv_bool(j, "compared", k->usable);
    json_kv_double(j, "step_mean_ms", k->step_ms);
    json_kv_double(j, "step_median_ms", k->median_ms);
    json_kv_double(j, "gpu_busy_pct", k->busy_pct);
    json_kv_double(j, "nccl_kernel_ms_per_step", k->nccl_ms);
    json_kv_double(j, "exposed_comm_ms_per_step", k->comm_ms);
    json_kv_double(j, "overlapped_pct", k->overlap_pct);
    json_kv_double(j, "noncomm_ms_per_step", k->noncomm_ms);
    json_kv_string(j, "largest_noncomm_category", ssa_cat_name(k->top_cat));
    json_kv_double(j, "largest_noncomm_ms_per_step", k->top_ms);
    json_kv_double(j, "waiting_ms_per_step", k->wait_ms);
    json_end_object(j);
}

static void json_straggler(struct json_out *j, const struct ssa_job *job,
                           const struct ssa_result *const *rs)
{
    json_key(j, "straggler");
    if (!job->has_straggler) {
        json_null(j);
        return;
    }
    const struct ssa_rank *s = rank_at(job, job->straggler);
    json_begin_object(j);
    json_kv_i64(j, "rank", s->rank);
    json_kv_string(j, "file", rs[s->input]->path);
    json_kv_string(j, "why_category", ssa_cat_name(job->why_cat));
    json_kv_double(j, "why_excess_ms_per_step", job->why_ms);
    json_kv_double(j, "price_ms_per_step", job->price_ms);
    json_kv_double(j, "price_pct", s->step_ms > 0 ? 100 * job->price_ms / s->step_ms : 0);
    json_end_object(j);
}

void report_ranks_json(struct json_out *j, const struct ssa_job *job,
                       const struct ssa_result *const *rs)
{
    json_begin_object(j);
    json_kv_i64(j, "world_size", job->world_size);
    json_kv_u64(j, "ranks", job->n);
    json_kv_u64(j, "compared", job->n_usable);
    json_kv_u64(j, "missing", job->missing);
    json_kv_u64(j, "duplicates", job->duplicates);
    json_kv_u64(j, "other_jobs", job->other_jobs);
    int two = job->n_usable >= 2;
    json_key(j, "slowest_rank");
    two ? json_i64(j, rank_at(job, job->straggler)->rank) : json_null(j);
    json_key(j, "median_rank");
    two ? json_i64(j, rank_at(job, job->reference)->rank) : json_null(j);
    json_straggler(j, job, rs);
    json_key(j, "quantiles");
    json_begin_object(j);
    json_spread(j, "step_ms", &job->step_ms);
    json_spread(j, "noncomm_ms_per_step", &job->noncomm_ms);
    json_spread(j, "exposed_comm_ms_per_step", &job->comm_ms);
    json_spread(j, "waiting_ms_per_step", &job->wait_ms);
    json_end_object(j);
    json_key(j, "list");
    json_begin_array(j);
    for (size_t i = 0; i < job->n; i++)
        json_rank(j, rank_at(job, i), rs[rank_at(job, i)->input]);
    json_end_array(j);
    json_end_object(j);
}
