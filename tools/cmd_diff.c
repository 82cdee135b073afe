/*
 * cmd_diff.c — `stepscope diff BEFORE AFTER`: what changed between two runs.
 *
 * Both traces go through the same analysis as `report`; the difference is taken of the
 * summaries: the step time (median and mean) and the speed-up, the ms/step of every
 * category, and every finding by its stable id with its estimated saving before and after:
 * resolved (only before), new (only after), changed or unchanged. --format json writes
 * the "stepscope.diff" object (docs/report-json.md).
 */
#include <math.h>
#include <string.h>

#include "cmd.h"
#include "json_out.h"
#include "report.h"
#include "text_esc.h"

#define VERB "diff"

static const char diff_usage[] =
    "usage: stepscope diff BEFORE AFTER [--format text|json]\n"
    "\n"
    "Analyses two traces (before and after a change) and prints, per category, the\n"
    "ms/step before -> after and the change, the step-time speed-up (median, and mean),\n"
    "and per finding its estimated saving before and after: resolved, new or changed.\n"
    "\n"
    "  -f, --format FMT   text (default) or json (docs/report-json.md, "
    "\"stepscope.diff\")\n" REPORT_STEP_HELP "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 done, 1 a trace could not be read, 2 usage error.\n";

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

/* ---- text ---- */

static void text_side_note(const struct side *x, const char *which)
{
    if (x->r->step_source == SSA_STEPS_NONE)
        printf("  note: %s has no step markers: its whole trace counts as one step\n", which);
    if (!x->s.steps) printf("  note: %s has no analysed step\n", which);
}

static void text_headline(const struct side *b, const struct side *a)
{
    char shown[2][512];
    text_escape_to(shown[0], sizeof shown[0], b->path);
    text_escape_to(shown[1], sizeof shown[1], a->path);
    printf("stepscope diff: %s -> %s\n", shown[0], shown[1]);
    text_side_note(b, "before");
    text_side_note(a, "after");
    printf("  steps      %zu -> %zu analysed\n", b->s.steps, a->s.steps);
    printf("  step time  median %.2f -> %.2f ms  (%.2fx, %s)\n", ms(b->s.median_ns),
           ms(a->s.median_ns), ratio(b->s.median_ns, a->s.median_ns),
           a->s.median_ns <= b->s.median_ns ? "faster" : "slower");
    printf("             mean   %.2f -> %.2f ms  (%.2fx), %.2f -> %.2f steps/s\n", ms(b->s.mean_ns),
           ms(a->s.mean_ns), ratio(b->s.mean_ns, a->s.mean_ns), b->s.steps_per_s, a->s.steps_per_s);
    printf("  GPU busy   %.1f -> %.1f %%\n", b->s.gpu_busy_pct, a->s.gpu_busy_pct);
}

static void text_categories(const struct side *b, const struct side *a)
{
    printf("\n  %-20s %10s %10s %10s   (ms/step)\n", "category", "before", "after", "change");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        double x = b->s.cat_ms[c], y = a->s.cat_ms[c];
        if (x < 0.0005 && y < 0.0005) continue; /* both print as 0.000 */
        printf("  %-20s %10.3f %10.3f %+10.3f\n", ssa_cat_name(c), x, y, y - x);
    }
    printf("  %-20s %10.3f %10.3f %+10.3f\n", "total", ms(b->s.mean_ns), ms(a->s.mean_ns),
           ms(a->s.mean_ns) - ms(b->s.mean_ns));
}

static void text_one_finding(const struct ssa_finding *x, const struct ssa_finding *bf,
                             const struct ssa_finding *af)
{
    char before[32] = "-", after[32] = "-";
    if (bf) snprintf(before, sizeof before, "%.2f", bf->saving_ms);
    if (af) snprintf(after, sizeof after, "%.2f", af->saving_ms);
    printf("  %-20s %10s %10s  %-9s %s\n", x->id, before, after, finding_status(bf, af), x->title);
}

static void text_findings(const struct side *b, const struct side *a)
{
    if (!b->f.n && !a->f.n) {
        printf("\n  findings   none in either trace\n");
        return;
    }
    printf("\n  %-20s %10s %10s  %-9s (estimated saving, ms/step)\n", "finding", "before", "after",
           "status");
    for (size_t i = 0; i < b->f.n; i++)
        text_one_finding(&b->f.v[i], &b->f.v[i], find_id(&a->f, b->f.v[i].id));
    for (size_t i = 0; i < a->f.n; i++)
        if (!find_id(&b->f, a->f.v[i].id)) text_one_finding(&a->f.v[i], NULL, &a->f.v[i]);
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

static void json_finding(struct json_out *j, const struct ssa_finding *x,
                         const struct ssa_finding *bf, const struct ssa_finding *af)
{
    json_begin_object(j);
    json_kv_string(j, "id", x->id);
    json_kv_string(j, "title", x->title);
    json_kv_string(j, "status", finding_status(bf, af));
    json_num(j, "before_saving_ms_per_step", bf ? bf->saving_ms : NAN);
    json_num(j, "after_saving_ms_per_step", af ? af->saving_ms : NAN);
    json_end_object(j);
}

static void print_json(const struct side *b, const struct side *a)
{
    struct json_out j;
    json_init(&j, stdout, 1);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "stepscope.diff");
    json_kv_u64(&j, "version", 1);
    json_side(&j, "before", b);
    json_side(&j, "after", a);
    json_num(&j, "speedup_median", ratio(b->s.median_ns, a->s.median_ns));
    json_num(&j, "speedup_mean", ratio(b->s.mean_ns, a->s.mean_ns));
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
    for (size_t i = 0; i < b->f.n; i++)
        json_finding(&j, &b->f.v[i], &b->f.v[i], find_id(&a->f, b->f.v[i].id));
    for (size_t i = 0; i < a->f.n; i++)
        if (!find_id(&b->f, a->f.v[i].id)) json_finding(&j, &a->f.v[i], NULL, &a->f.v[i]);
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

/* ---- the verb ---- */

static int parse_diff_args(int argc, char **argv, int *json, struct ssa_opts *ssa)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             REPORT_STEP_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    *json = 0;
    memset(ssa, 0, sizeof *ssa);
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "f:h", longopts)) != -1;) {
        if (c == 'h') {
            fputs(diff_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c > 0 && strchr("WwmR", c) && report_step_option(VERB, c, optarg, ssa) != 0)
            return CLI_EXIT_USAGE;
        if (c == 'f' && strcmp(optarg, "json") == 0)
            *json = 1;
        else if (c == 'f' && strcmp(optarg, "text") != 0)
            return cli_usage_error(VERB, "unknown format '%s' (text or json)", optarg);
    }
    if (argc - optind != 2) return cli_usage_error(VERB, "want two traces: BEFORE AFTER");
    return 0;
}

static int load_side(struct side *x, const char *path, const struct ssa_opts *opts)
{
    x->path = path;
    /* summaries and findings only: the compact analysis (issue #5's memory goal) */
    if (report_load(VERB, path, opts, SSA_COMPACT, &x->r) != 0) return -1;
    ssa_summarize(x->r, &x->s);
    report_findings(x->r, &x->s, &x->f);
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    int json;
    struct ssa_opts ssa;
    int rc = parse_diff_args(argc, argv, &json, &ssa);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    struct side b = {0}, a = {0};
    if (load_side(&b, argv[optind], &ssa) != 0 || load_side(&a, argv[optind + 1], &ssa) != 0) {
        ssa_result_free(b.r);
        ssa_result_free(a.r);
        return CLI_EXIT_FAIL;
    }
    if (json) {
        print_json(&b, &a);
    } else {
        text_headline(&b, &a);
        text_categories(&b, &a);
        text_findings(&b, &a);
    }
    ssa_result_free(b.r);
    ssa_result_free(a.r);
    return cli_finish_stdout(VERB);
}
