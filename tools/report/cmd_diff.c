/*
 * cmd_diff.c — `stepscope diff BEFORE AFTER`: what changed between two runs.
 *
 * Both traces go through the same analysis as `report`; the difference is taken of the
 * summaries: the step time (median and mean) and the speed-up, the ms/step of every
 * category, and every finding by its stable id with its estimated saving before and after:
 * resolved (only before), new (only after), changed or unchanged. The verdict is "faster",
 * "slower" or "no change" — a difference of the medians inside the noise of the two step-time
 * distributions (NOISE_Z standard errors, read off their p10-p90 spreads) or under
 * NOISE_MIN_REL is no change. A side with no analysable step is an error, not a NaN.
 * --format json writes the "stepscope.diff" object (docs/report-json.md); md and html the
 * same tables for a pull request or a page; -o puts the result in a file.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cmd.h"
#include "json_out.h"
#include "report.h"
#include "text_esc.h"
#include "util/ss_out.h"

#define VERB "diff"

static const char diff_usage[] =
    "usage: stepscope diff BEFORE AFTER [--format text|json|md|html] [-o FILE]\n"
    "\n"
    "Analyses two traces (before and after a change) and prints, per category, the\n"
    "ms/step before -> after and the change, the step-time speed-up (median, and mean),\n"
    "and per finding its estimated saving before and after: resolved, new or changed.\n"
    "\n"
    "The verdict is faster, slower, or no change when the medians differ by less than\n"
    "the noise of the two runs' step times.\n"
    "\n"
    "  -f, --format FMT   text (default), json (docs/report-json.md, \"stepscope.diff\"),\n"
    "                     md (Markdown) or html (one self-contained page)\n"
    "  -o, --output FILE  write the result to FILE (written whole, then put in place)\n"
    "      --force        replace a read-only FILE\n"
    "  -q, --quiet        no 'wrote FILE (SIZE)' line\n" REPORT_STEP_HELP
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 done, 1 a trace could not be read or has no analysable step, 2 usage\n"
    "error.\n";

/* Medians closer than this share are "no change" whatever the spread: below the run-to-run
 * drift of one machine. */
#define NOISE_MIN_REL 0.02
/* Standard errors of the difference of the medians that count as a change (~95 %). */
#define NOISE_Z 2.0

/* A finding changed when its saving moved by more than this (ms) and this share. */
#define CHANGED_MS 0.1
#define CHANGED_REL 0.10

struct side {
    const char *path;
    struct ssa_result *r;
    struct ssa_summary s;
    struct ssa_findings f;
};

static double ratio(uint64_t before, uint64_t after)
{
    return after ? (double)before / (double)after : NAN;
}

static const struct ssa_finding *find_id(const struct ssa_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].id, id) == 0) return &f->v[i];
    return NULL;
}

static const char *finding_status(const struct ssa_finding *b, const struct ssa_finding *a)
{
    if (!a) return "resolved";
    if (!b) return "new";
    double d = fabs(a->saving_ms - b->saving_ms);
    return d > CHANGED_MS && d > CHANGED_REL * b->saving_ms ? "changed" : "unchanged";
}

/* ---- the verdict ---- */

struct verdict {
    const char *word; /* "faster", "slower", "no change" */
    double noise_ms;  /* the difference of the medians that noise explains */
};

/* The standard error of a median from its p10-p90 spread (~2.56 sigma for a normal
 * distribution; the median's error is ~1.25 sigma / sqrt(n)). */
static double median_se_ms(const struct ssa_summary *s)
{
    double sigma = ms(s->p90_ns - s->p10_ns) / 2.56;
    return 1.25 * sigma / sqrt((double)(s->steps ? s->steps : 1));
}

static struct verdict judge(const struct side *b, const struct side *a)
{
    double before = ms(b->s.median_ns), after = ms(a->s.median_ns);
    double se = hypot(median_se_ms(&b->s), median_se_ms(&a->s));
    struct verdict v = {"no change", fmax(NOISE_Z * se, NOISE_MIN_REL * before)};
    if (fabs(after - before) > v.noise_ms) v.word = after < before ? "faster" : "slower";
    return v;
}

/* ---- text ---- */

static void text_side_note(FILE *f, const struct side *x, const char *which)
{
    if (x->r->step_source == SSA_STEPS_NONE)
        fprintf(f, "  note: %s has no step markers: its whole trace counts as one step\n", which);
}

static void text_headline(FILE *f, const struct side *b, const struct side *a)
{
    char shown[2][512];
    struct verdict v = judge(b, a);
    text_escape_to(shown[0], sizeof shown[0], b->path);
    text_escape_to(shown[1], sizeof shown[1], a->path);
    fprintf(f, "stepscope diff: %s -> %s\n", shown[0], shown[1]);
    text_side_note(f, b, "before");
    text_side_note(f, a, "after");
    fprintf(f, "  steps      %zu -> %zu analysed\n", b->s.steps, a->s.steps);
    fprintf(f, "  step time  median %.2f -> %.2f ms  (%.2fx, %s: noise +-%.2f ms)\n",
            ms(b->s.median_ns), ms(a->s.median_ns), ratio(b->s.median_ns, a->s.median_ns),
            v.word, v.noise_ms);
    fprintf(f, "             mean   %.2f -> %.2f ms  (%.2fx), %.2f -> %.2f steps/s\n",
            ms(b->s.mean_ns), ms(a->s.mean_ns), ratio(b->s.mean_ns, a->s.mean_ns),
            b->s.steps_per_s, a->s.steps_per_s);
    fprintf(f, "  GPU busy   %.1f -> %.1f %%\n", b->s.gpu_busy_pct, a->s.gpu_busy_pct);
}

static void text_categories(FILE *f, const struct side *b, const struct side *a)
{
    fprintf(f, "\n  %-20s %10s %10s %10s   (ms/step)\n", "category", "before", "after", "change");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->s.cat_ms[c], y = a->s.cat_ms[c];
        if (x < 0.0005 && y < 0.0005) continue; /* both print as 0.000 */
        fprintf(f, "  %-20s %10.3f %10.3f %+10.3f\n", ssa_cat_name(c), x, y, y - x);
    }
    fprintf(f, "  %-20s %10.3f %10.3f %+10.3f\n", "total", ms(b->s.mean_ns), ms(a->s.mean_ns),
            ms(a->s.mean_ns) - ms(b->s.mean_ns));
}

/* Calls each(f, finding, before's, after's) for every finding of either side, before's
 * first: the one place that pairs findings by id. */
typedef void (*finding_fn)(FILE *f, const struct ssa_finding *x, const struct ssa_finding *bf,
                           const struct ssa_finding *af);
static void each_finding(FILE *f, const struct side *b, const struct side *a, finding_fn each)
{
    for (size_t i = 0; i < b->f.n; i++)
        each(f, &b->f.v[i], &b->f.v[i], find_id(&a->f, b->f.v[i].id));
    for (size_t i = 0; i < a->f.n; i++)
        if (!find_id(&b->f, a->f.v[i].id)) each(f, &a->f.v[i], NULL, &a->f.v[i]);
}

static void saving_cells(const struct ssa_finding *bf, const struct ssa_finding *af,
                         char before[32], char after[32])
{
    snprintf(before, 32, "-");
    snprintf(after, 32, "-");
    if (bf) snprintf(before, 32, "%.2f", bf->saving_ms);
    if (af) snprintf(after, 32, "%.2f", af->saving_ms);
}

static void text_one_finding(FILE *f, const struct ssa_finding *x, const struct ssa_finding *bf,
                             const struct ssa_finding *af)
{
    char before[32], after[32];
    saving_cells(bf, af, before, after);
    fprintf(f, "  %-20s %10s %10s  %-9s %s\n", x->id, before, after, finding_status(bf, af),
            x->title);
}

static void text_findings(FILE *f, const struct side *b, const struct side *a)
{
    if (!b->f.n && !a->f.n) {
        fprintf(f, "\n  findings   none in either trace\n");
        return;
    }
    fprintf(f, "\n  %-20s %10s %10s  %-9s (estimated saving, ms/step)\n", "finding", "before",
            "after", "status");
    each_finding(f, b, a, text_one_finding);
}

static void write_text(FILE *f, const struct side *b, const struct side *a)
{
    text_headline(f, b, a);
    text_categories(f, b, a);
    text_findings(f, b, a);
}

/* ---- Markdown and HTML: the same three tables ---- */

static void md_one_finding(FILE *f, const struct ssa_finding *x, const struct ssa_finding *bf,
                           const struct ssa_finding *af)
{
    char before[32], after[32];
    saving_cells(bf, af, before, after);
    fprintf(f, "| `%s` | %s | %s | %s | ", x->id, before, after, finding_status(bf, af));
    md_escaped(f, x->title);
    fputs(" |\n", f);
}

static void write_md(FILE *f, const struct side *b, const struct side *a)
{
    struct verdict v = judge(b, a);
    fputs("## stepscope diff: ", f);
    md_escaped(f, b->path);
    fputs(" → ", f);
    md_escaped(f, a->path);
    fprintf(f, "\n\n**%s**: median step %.2f → %.2f ms (%.2fx; noise ±%.2f ms), mean %.2f → "
               "%.2f ms, GPU busy %.1f → %.1f %%, %zu → %zu steps\n\n",
            v.word, ms(b->s.median_ns), ms(a->s.median_ns), ratio(b->s.median_ns, a->s.median_ns),
            v.noise_ms, ms(b->s.mean_ns), ms(a->s.mean_ns), b->s.gpu_busy_pct, a->s.gpu_busy_pct,
            b->s.steps, a->s.steps);
    fputs("| category | before ms/step | after ms/step | change |\n|---|---:|---:|---:|\n", f);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->s.cat_ms[c], y = a->s.cat_ms[c];
        if (x >= 0.0005 || y >= 0.0005)
            fprintf(f, "| %s | %.3f | %.3f | %+.3f |\n", ssa_cat_name(c), x, y, y - x);
    }
    if (!b->f.n && !a->f.n) {
        fputs("\nNo finding in either trace.\n", f);
        return;
    }
    fputs("\n| finding | before ms/step | after ms/step | status | title |\n"
          "|---|---:|---:|---|---|\n", f);
    each_finding(f, b, a, md_one_finding);
}

static void html_one_finding(FILE *f, const struct ssa_finding *x, const struct ssa_finding *bf,
                             const struct ssa_finding *af)
{
    char before[32], after[32];
    saving_cells(bf, af, before, after);
    fprintf(f, "<tr><td><code>%s</code></td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
               "<td>%s</td><td>", x->id, before, after, finding_status(bf, af));
    html_escaped(f, x->title);
    fputs("</td></tr>\n", f);
}

static void write_html(FILE *f, const struct side *b, const struct side *a)
{
    struct verdict v = judge(b, a);
    report_html_begin(f, "diff");
    fputs("<h2><code>", f);
    html_escaped(f, b->path);
    fputs("</code> → <code>", f);
    html_escaped(f, a->path);
    fprintf(f, "</code></h2>\n<p><strong>%s</strong>: median step %.2f → %.2f ms (%.2fx; noise "
               "±%.2f ms), mean %.2f → %.2f ms, GPU busy %.1f → %.1f %%</p>\n",
            v.word, ms(b->s.median_ns), ms(a->s.median_ns), ratio(b->s.median_ns, a->s.median_ns),
            v.noise_ms, ms(b->s.mean_ns), ms(a->s.mean_ns), b->s.gpu_busy_pct, a->s.gpu_busy_pct);
    fputs("<table>\n<tr><th>category</th><th>before ms/step</th><th>after ms/step</th>"
          "<th>change</th></tr>\n", f);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->s.cat_ms[c], y = a->s.cat_ms[c];
        if (x >= 0.0005 || y >= 0.0005)
            fprintf(f, "<tr><td>%s</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
                       "<td class=\"n\">%+.3f</td></tr>\n", ssa_cat_name(c), x, y, y - x);
    }
    fputs("</table>\n<table>\n<tr><th>finding</th><th>before ms/step</th><th>after ms/step</th>"
          "<th>status</th><th>title</th></tr>\n", f);
    each_finding(f, b, a, html_one_finding);
    fputs("</table>\n", f);
    report_html_end(f);
}

/* ---- JSON ---- */

static void json_num(struct json_out *j, const char *key, double v)
{
    json_key(j, key);
    json_double(j, v);
}

static void json_side(struct json_out *j, const char *key, const struct side *x)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_string(j, "file", x->path);
    json_kv_string(j, "step_source", ssa_step_source_name(x->r->step_source));
    json_kv_u64(j, "steps", x->s.steps);
    json_num(j, "median_ms", ms(x->s.median_ns));
    json_num(j, "mean_ms", ms(x->s.mean_ns));
    json_num(j, "steps_per_s", x->s.steps_per_s);
    json_num(j, "gpu_busy_pct", x->s.gpu_busy_pct);
    json_end_object(j);
}

static struct json_out *g_json; /* the writer of each_finding's JSON callback */

static void json_finding(FILE *f, const struct ssa_finding *x, const struct ssa_finding *bf,
                         const struct ssa_finding *af)
{
    struct json_out *j = g_json;
    (void)f;
    json_begin_object(j);
    json_kv_string(j, "id", x->id);
    json_kv_string(j, "title", x->title);
    json_kv_string(j, "status", finding_status(bf, af));
    json_num(j, "before_saving_ms_per_step", bf ? bf->saving_ms : NAN);
    json_num(j, "after_saving_ms_per_step", af ? af->saving_ms : NAN);
    json_end_object(j);
}

static void write_json(FILE *f, const struct side *b, const struct side *a)
{
    struct json_out j;
    struct verdict v = judge(b, a);
    json_init(&j, f, 1);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "stepscope.diff");
    json_kv_u64(&j, "version", 1);
    json_side(&j, "before", b);
    json_side(&j, "after", a);
    json_num(&j, "speedup_median", ratio(b->s.median_ns, a->s.median_ns));
    json_num(&j, "speedup_mean", ratio(b->s.mean_ns, a->s.mean_ns));
    json_kv_string(&j, "verdict", v.word);
    json_num(&j, "noise_ms", v.noise_ms);
    json_key(&j, "categories");
    json_begin_array(&j);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        json_begin_object(&j);
        json_kv_string(&j, "name", ssa_cat_name(c));
        json_num(&j, "before_ms_per_step", b->s.cat_ms[c]);
        json_num(&j, "after_ms_per_step", a->s.cat_ms[c]);
        json_num(&j, "change_ms_per_step", a->s.cat_ms[c] - b->s.cat_ms[c]);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_key(&j, "findings");
    json_begin_array(&j);
    g_json = &j;
    each_finding(f, b, a, json_finding);
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

/* ---- the verb ---- */

typedef void (*diff_writer)(FILE *f, const struct side *b, const struct side *a);
static const struct {
    const char *name;
    diff_writer write;
} diff_formats[] = {{"text", write_text}, {"json", write_json}, {"md", write_md}, {"html", write_html}};

struct diff_args {
    diff_writer write;
    const char *out;
    unsigned out_flags;
    struct ssa_opts ssa;
};

enum { OPT_FORCE = 1000 };

static int parse_format(const char *s, struct diff_args *d)
{
    for (size_t i = 0; i < sizeof diff_formats / sizeof diff_formats[0]; i++)
        if (strcmp(s, diff_formats[i].name) == 0) {
            d->write = diff_formats[i].write;
            return 0;
        }
    return cli_usage_error(VERB, "unknown format '%s' (text, json, md or html)", s);
}

static int parse_diff_args(int argc, char **argv, struct diff_args *d)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             REPORT_STEP_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(d, 0, sizeof *d);
    d->write = write_text;
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "f:o:qh", longopts)) != -1;) {
        if (c == 'h') {
            fputs(diff_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c > 0 && c < 256 && strchr("WwmR", c) && report_step_option(VERB, c, optarg, &d->ssa) != 0)
            return CLI_EXIT_USAGE;
        if (c == 'f' && parse_format(optarg, d) != 0) return CLI_EXIT_USAGE;
        if (c == 'o') d->out = optarg;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) d->out_flags |= SS_OUT_FORCE;
    }
    if (argc - optind != 2) return cli_usage_error(VERB, "want two traces: BEFORE AFTER");
    if (d->out && !*d->out) return cli_usage_error(VERB, "empty --output file name");
    if (d->out && strcmp(d->out, "-") == 0) d->out = NULL;
    return 0;
}

static int load_side(struct side *x, const char *path, const struct ssa_opts *opts)
{
    x->path = path;
    /* summaries and findings only: the compact analysis (issue #5's memory goal) */
    if (report_load(VERB, path, opts, SSA_COMPACT, &x->r) != 0) return -1;
    ssa_summarize(x->r, &x->s);
    if (!x->s.steps || !x->s.median_ns) {
        cli_error(VERB, path, "has no step that could be analysed (%s): nothing to compare",
                  x->r->state_line);
        return -1;
    }
    report_findings(x->r, &x->s, &x->f);
    return 0;
}

struct diff_job {
    const struct diff_args *d;
    const struct side *b, *a;
};

static int write_diff_job(FILE *f, void *ctx)
{
    const struct diff_job *j = ctx;
    j->d->write(f, j->b, j->a);
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args d;
    int rc = parse_diff_args(argc, argv, &d);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    if ((rc = cli_refuse_same_file(VERB, d.out, (const char *const *)argv + optind, 2)) != 0)
        return rc;
    struct side b = {0}, a = {0};
    if (load_side(&b, argv[optind], &d.ssa) != 0 || load_side(&a, argv[optind + 1], &d.ssa) != 0) {
        rc = CLI_EXIT_FAIL;
    } else if (d.out) {
        struct diff_job j = {&d, &b, &a};
        rc = cli_write_output(VERB, d.out, "diff", d.out_flags, write_diff_job, &j);
    } else {
        d.write(stdout, &b, &a);
        rc = cli_finish_stdout(VERB);
    }
    ssa_result_free(b.r);
    ssa_result_free(a.r);
    return rc;
}
