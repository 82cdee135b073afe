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
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"
#include "report_diff.h"
#include "util/ss_out.h"

#define VERB "diff"

static const char diff_about[] =
    "\n"
    "Analyses two traces (before and after a change) and prints, per category, the\n"
    "ms/step before -> after and the change, the step-time speed-up (median, and mean),\n"
    "and per finding its estimated saving before and after: resolved, new or changed.\n"
    "\n"
    "The verdict is faster, slower, or no change when the medians differ by less than\n"
    "the noise of the two runs' step times.\n"
    "\n";

static const char diff_options[] =
    "  -o, --output FILE  write the result to FILE (written whole, then put in place)\n"
    "      --force        replace a read-only FILE\n"
    "      --accept-damage  compare although a trace is incomplete (records lost, dropped,\n"
    "                     repeated or impossible, or no end: killed, cut); said on\n"
    "                     stderr either way\n"
    "  -q, --quiet        no 'wrote FILE (SIZE)' line\n" REPORT_STEP_HELP
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 done, 1 a trace could not be read, is incomplete (without\n"
    "--accept-damage) or has no analysable step, 2 usage error.\n";

/* The usage text; the formats come from the format table (report.h). */
static const struct report_usage usage = {"diff BEFORE AFTER", "[-o FILE]", diff_about,
                                          diff_options, 1};

/* Medians closer than this share are "no change" whatever the spread: below the run-to-run
 * drift of one machine. */
#define NOISE_MIN_REL 0.02
/* Standard errors of the difference of the medians that count as a change (~95 %). */
#define NOISE_Z 2.0

/* A finding changed when its saving moved by more than this (ms) and this share. */
#define CHANGED_MS 0.1
#define CHANGED_REL 0.10

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

/* ---- the view: the verdict and the findings paired by id ---- */

/* The standard error of a median from its p10-p90 spread (~2.56 sigma for a normal
 * distribution; the median's error is ~1.25 sigma / sqrt(n)). */
static double median_se_ms(const struct ssa_summary *s)
{
    double sigma = ms(s->p90_ns - s->p10_ns) / 2.56;
    return 1.25 * sigma / sqrt((double)(s->steps ? s->steps : 1));
}

static void judge(struct diff_view *d)
{
    double before = ms(d->b.v.s.median_ns), after = ms(d->a.v.s.median_ns);
    double se = hypot(median_se_ms(&d->b.v.s), median_se_ms(&d->a.v.s));
    d->noise_ms = fmax(NOISE_Z * se, NOISE_MIN_REL * before);
    d->verdict = "no change";
    if (fabs(after - before) > d->noise_ms) d->verdict = after < before ? "faster" : "slower";
}

static void add_pair(struct diff_view *d, const struct ssa_finding *x, const struct ssa_finding *bf,
                     const struct ssa_finding *af)
{
    struct diff_pair *p = &d->pairs[d->n_pairs++];
    *p = (struct diff_pair){x, bf, af, finding_status(bf, af), "-", "-"};
    if (bf) snprintf(p->before, sizeof p->before, "%.2f", bf->saving_ms);
    if (af) snprintf(p->after, sizeof p->after, "%.2f", af->saving_ms);
}

/* Every finding of either side by its stable id, before's ranking first. */
static void pair_findings(struct diff_view *d)
{
    const struct ssa_findings *bf = &d->b.v.f, *af = &d->a.v.f;
    for (size_t i = 0; i < bf->n; i++)
        add_pair(d, &bf->v[i], &bf->v[i], find_id(af, bf->v[i].id));
    for (size_t i = 0; i < af->n; i++)
        if (!find_id(bf, af->v[i].id)) add_pair(d, &af->v[i], NULL, &af->v[i]);
}

/* The change in words (md and html say it after the verdict). */
static void diff_said(struct diff_view *d)
{
    const struct ssa_summary *b = &d->b.v.s, *a = &d->a.v.s;
    snprintf(d->said, sizeof d->said, "median step %.2f → %.2f ms (%.2fx; noise ±%.2f ms), mean "
             "%.2f → %.2f ms, GPU busy %.1f → %.1f %%", ms(b->median_ns), ms(a->median_ns),
             d->speedup_median, d->noise_ms, ms(b->mean_ns), ms(a->mean_ns), b->gpu_busy_pct,
             a->gpu_busy_pct);
}

static void diff_view_build(struct diff_view *d)
{
    judge(d);
    d->speedup_median = ratio(d->b.v.s.median_ns, d->a.v.s.median_ns);
    d->speedup_mean = ratio(d->b.v.s.mean_ns, d->a.v.s.mean_ns);
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        d->cat_shown[c] = !(d->b.v.s.cat_ms[c] < 0.0005 && d->a.v.s.cat_ms[c] < 0.0005);
    pair_findings(d);
    diff_said(d);
}

/* ---- the verb ---- */

struct diff_args {
    const struct report_writer *w; /* its diff() */
    const char *out;
    unsigned out_flags;
    int accept_damage;
    struct ssa_opts ssa;
};

enum { OPT_FORCE = 1000, OPT_ACCEPT_DAMAGE };

static int parse_format(const char *s, struct diff_args *d)
{
    const struct report_format *fmt = report_format_find(s);
    char names[64];
    if (fmt) {
        d->w = fmt->writer;
        return 0;
    }
    report_format_names(names, sizeof names, ", ", " or ");
    return cli_usage_error(VERB, "unknown format '%s' (%s)", s, names);
}

static int parse_diff_args(int argc, char **argv, struct diff_args *d)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"accept-damage", no_argument, NULL, OPT_ACCEPT_DAMAGE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             REPORT_STEP_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(d, 0, sizeof *d);
    d->w = report_formats[0].writer; /* the first row: the default */
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "f:o:qh", longopts)) != -1;) {
        if (c == 'h') {
            report_usage_print(stdout, &usage);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c > 0 && c < 256 && strchr("WwmR", c) && report_step_option(VERB, c, optarg, &d->ssa) != 0)
            return CLI_EXIT_USAGE;
        if (c == 'f' && parse_format(optarg, d) != 0) return CLI_EXIT_USAGE;
        if (c == 'o') d->out = optarg;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) d->out_flags |= SS_OUT_FORCE;
        if (c == OPT_ACCEPT_DAMAGE) d->accept_damage = 1;
    }
    if (argc - optind != 2) return cli_usage_error(VERB, "want two traces: BEFORE AFTER");
    if (d->out && !*d->out) return cli_usage_error(VERB, "empty --output file name");
    if (d->out && strcmp(d->out, "-") == 0) d->out = NULL;
    return 0;
}

/* One side: its report's view (the summary and the findings its report says); an incomplete
 * trace is refused (one line) unless accepted, and said either way. */
static int load_side(struct diff_side *x, struct ssa_result **r, const char *path,
                     const char *which, const struct diff_args *d)
{
    x->path = path;
    /* summaries and findings only: the compact analysis (issue #5's memory goal) */
    if (report_load(VERB, path, &d->ssa, SSA_COMPACT, r) != 0) return -1;
    if (report_incomplete(*r) &&
        report_say_incomplete(VERB, path, *r, d->accept_damage) != CLI_EXIT_OK)
        return -1;
    report_view_build(&x->v, *r, NULL);
    if (!x->v.s.steps || !x->v.s.median_ns) {
        cli_error(VERB, path, "has no step that could be analysed (%s): nothing to compare",
                  x->v.trace.state);
        return -1;
    }
    if (!x->v.per_step)
        snprintf(x->note, sizeof x->note,
                 "%s has no step markers: its whole trace counts as one step", which);
    return 0;
}

struct diff_job {
    const struct diff_args *args;
    const struct diff_view *d;
};

static int write_diff_job(FILE *f, void *ctx)
{
    const struct diff_job *j = ctx;
    j->args->w->diff(f, j->d);
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
    struct diff_view *v = calloc(1, sizeof *v); /* two sides' views: large */
    struct ssa_result *r[2] = {NULL, NULL};      /* what the views borrow from */
    if (!v) return cli_error(VERB, NULL, "out of memory"), CLI_EXIT_FAIL;
    if (load_side(&v->b, &r[0], argv[optind], "before", &d) != 0 ||
        load_side(&v->a, &r[1], argv[optind + 1], "after", &d) != 0) {
        rc = CLI_EXIT_FAIL;
    } else if (diff_view_build(v), d.out) {
        struct diff_job j = {&d, v};
        rc = cli_write_output(VERB, d.out, "diff", d.out_flags, write_diff_job, &j);
    } else {
        d.w->diff(stdout, v);
        rc = cli_finish_stdout(VERB);
    }
    ssa_result_free(r[0]);
    ssa_result_free(r[1]);
    free(v);
    return rc;
}
