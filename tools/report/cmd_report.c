/*
 * cmd_report.c — `stepscope report`: where the time of a training step goes.
 *
 * The analysis (src/analysis/) does the work in two streaming passes; this file prints
 * its result: a headline (steps, warm-up excluded, step time, steps/s, GPU busy), a
 * stacked bar of the categories, the category table in ms/step, and the kernel classes —
 * one screen. -v adds the top kernels and the per-step table. --format json writes the
 * schema of docs/report-json.md, md Markdown, html one self-contained page. After the
 * breakdown come the ranked findings (src/analysis/ssa_findings.c). The writers are in
 * report_*.c; this file parses the options, expands folders into their traces, orders
 * the processes (GPU activity first) and writes -o FILE through FILE.tmp and a rename, so
 * a report that failed half-way is never left under the name asked for.
 *
 * Several traces are analysed at once, on up to one thread per online CPU (at most 64; -j):
 * each result lands in its argument's slot, so the output does not depend on which finished
 * first. Over the traces of a multi-GPU job (ranks of one world size: torchrun), the ranks
 * are compared first (src/analysis/ssa_ranks.c, printed by report_ranks.c): the straggler,
 * why and its price; each rank's result is annotated so that its comm finding does not count
 * waiting for the straggler as communication.
 *
 * Memory (issue #5): the analysis runs in compact mode (SSA_COMPACT: ~40 bytes per step)
 * unless the report prints per-step detail (report_ssa_flags). JSON means may then differ
 * from the full mode's in the last digits (summed, then divided); text is the same.
 */
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "analysis/ssa.h"
#include "analysis/ssa_env.h"
#include "cmd.h"
#include "json_out.h"
#include "report.h"
#include "text_esc.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

static const char report_usage[] =
    "usage: stepscope report TRACE|DIR... [--format text|json|md|html] [-o FILE] [-v]\n"
    "\n"
    "Splits every training step of each TRACE into where its time went: GPU busy by\n"
    "kernel class, exposed copies and communication, and GPU idle blamed on what the\n"
    "training thread was doing (data loading, sync, launch, alloc, other host work).\n"
    "Steps come from the step markers (public API, Python shim, ProfilerStep#N); warm-up\n"
    "steps are excluded and counted. A DIR stands for the .sstrace files in it (one per\n"
    "process); with several processes, those with GPU activity come first. The ranks of\n"
    "a multi-GPU job (torchrun: one trace per rank) are compared first: per rank its step\n"
    "time, GPU busy, NCCL and exposed communication; the straggler, why, and what the\n"
    "other ranks wait for it (over 8 ranks only its and the median rank's sections: -v).\n"
    "\n"
    "  -f, --format FMT   text (default), json (docs/report-json.md), md (Markdown) or\n"
    "                     html (one self-contained file: chart, the median step's\n"
    "                     host/GPU timeline, findings)\n"
    "  -o, --output FILE  write the report to FILE (written whole, then put in place;\n"
    "                     - for stdout); a read-only FILE is kept unless --force\n"
    "      --force        replace a read-only FILE\n"
    "      --accept-damage  exit 0 even when less than 90 % of a trace's records could be\n"
    "                     read (the report says how much was lost either way)\n"
    "  -q, --quiet        no 'wrote FILE (SIZE)' line\n"
    "  -v, --verbose      also the top kernels and a table of every step, and the section\n"
    "                     of every rank\n"
    "  -j, --jobs N       analyse up to N traces at once (default: one per online CPU,\n"
    "                     at most 64)\n" REPORT_STEP_HELP "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 every trace was analysed (a truncated one too: the report says so),\n"
    "1 a trace could not be read or less than 90 % of its records could (damage), 2 usage\n"
    "error (also when FILE is one of the traces).\n";

#define VERB "report"

/* ---- shared with diff and record ---- */

int report_load(const char *verb, const char *path, const struct ssa_opts *opts, unsigned flags,
                struct ssa_result **out)
{
    struct cli_trace t; /* opened first for the CLI's one-line errors (directories...) */
    if (cli_trace_open(&t, verb, path, NULL, NULL) != 0) return -1;
    /* a foreign capture is analysed in its import, kept until the analysis is done */
    /* the report names what the user gave, not a temporary import or copy */
    int rc = ssa_analyze_reader(t.r, path, opts, flags, out);
    cli_trace_close(&t);
    if (rc) {
        cli_error(verb, path, "%s", ss_strerror(rc));
        return -1;
    }
    return 0;
}

unsigned report_ssa_flags(const struct report_opts *o)
{
    /* html: compact, plus the median step kept whole with its lanes */
    if (o->format == REPORT_HTML) return SSA_COMPACT | SSA_TIMELINE;
    int per_step_detail = o->verbose && (o->format == REPORT_TEXT || o->format == REPORT_JSON);
    return per_step_detail ? 0u : SSA_COMPACT;
}

const struct ssa_step *report_median_step(const struct ssa_result *r)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    const struct ssa_step *best = NULL;
    uint64_t best_diff = UINT64_MAX;
    size_t ts = r->timeline_step;
    if (ts && !r->briefs[ts - 1].warmup) /* the step drawn, kept whole in either mode */
        return r->steps ? &r->steps[ts - 1] : &r->timeline_full;
    if (!r->steps) return NULL; /* compact analysis: per-step categories not kept */
    for (size_t i = 0; i < r->n_steps && s.steps; i++) {
        const struct ssa_step *st = &r->steps[i];
        if (st->warmup) continue;
        uint64_t d = st->end_ns - st->begin_ns;
        uint64_t diff = d > s.median_ns ? d - s.median_ns : s.median_ns - d;
        if (diff < best_diff) best = st, best_diff = diff;
    }
    return best;
}

void report_findings(const struct ssa_result *r, const struct ssa_summary *s,
                     struct ssa_findings *f)
{
    if (r->step_source != SSA_STEPS_NONE && s->steps)
        ssa_find(r, s, f);
    else
        f->n = 0; /* no steps, no per-step saving */
}

const char *report_gpu_left_to(const struct ssa_result *r)
{
    struct ssa_env_facts f;
    ssa_env_facts_of(r, &f);
    const char *lib = ssa_env_get(&f, "collector.foreign_cuda_injection");
    if (lib && *lib) return lib;
    const char *conflict = ssa_env_get(&f, "cupti.conflict");
    return conflict && strcmp(conflict, "0") != 0 ? "another CUPTI client" : NULL;
}

int report_rec_cost_text(const struct ssa_summary *s, char *buf, size_t size)
{
    if (s->rec_basis == SSA_REC_NONE || s->rec_cost_ms < 0.005) return 0;
    snprintf(buf, size, "~%.2f ms/step is stepscope's own cost (%.1f us/launch, %s)",
             s->rec_cost_ms, s->rec_us_per_launch, ssa_rec_basis_name(s->rec_basis));
    return 1;
}

int report_damage_text(const struct ssa_result *r, char *buf, size_t size)
{
    const struct sst_damage *d = &r->damage;
    if (!d->damaged) return 0;
    if (d->records_expected)
        snprintf(buf, size,
                 "only %" PRIu64 " of the %" PRIu64 " records (%.1f %%) could be read: the "
                 "numbers are of what was left",
                 d->records_read, d->records_expected, 100.0 * d->read_fraction);
    else
        snprintf(buf, size,
                 "only %" PRIu32 " of at least %" PRIu32 " chunks could be read: the numbers "
                 "are of what was left",
                 d->chunks_read, d->chunks_expected);
    return 1;
}

int report_has_gpu(const struct ssa_result *r)
{
    return r->kernels + r->memcpys + r->memsets > 0;
}

/* ---- inputs: files and folders of traces ---- */

struct input {
    char *path;
    struct ssa_result *r; /* NULL: could not be read (said on stderr) */
};

struct inputs {
    struct input *v;
    size_t n, cap;
    int failed; /* an argument gave nothing readable */
    /* after loading: the results in argument order (NULL: unreadable) and their ranks */
    struct ssa_result **rs;
    struct ssa_job job; /* job.n >= 2: a multi-rank job */
};

static int add_input(struct inputs *in, const char *path)
{
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 8;
        struct input *v = realloc(in->v, cap * sizeof *v);
        if (!v) return -1;
        in->v = v, in->cap = cap;
    }
    in->v[in->n].path = strdup(path);
    in->v[in->n].r = NULL;
    return in->v[in->n++].path ? 0 : -1;
}

static int is_trace_name(const struct dirent *de)
{
    size_t len = strlen(de->d_name);
    return de->d_name[0] != '.' && len > 8 && strcmp(de->d_name + len - 8, ".sstrace") == 0;
}

/* The .sstrace files of dir, by name. 0, or -1 after one error line. */
static int add_folder(struct inputs *in, const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, is_trace_name, alphasort);
    if (n < 0) {
        cli_error(VERB, dir, "cannot list the folder: %s", strerror(errno));
        return -1;
    }
    int rc = n ? 0 : -1;
    if (!n) cli_error(VERB, dir, "is a folder with no .sstrace file");
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (rc == 0 && (len < 0 || (size_t)len >= sizeof path || add_input(in, path) != 0)) {
            cli_error(VERB, dir, "out of memory or path too long");
            rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static void expand_args(struct inputs *in, int argc, char **argv, int *any_folder)
{
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            *any_folder = 1;
            if (add_folder(in, argv[i]) != 0) in->failed = 1;
        } else if (add_input(in, argv[i]) != 0) {
            cli_error(VERB, argv[i], "out of memory");
            in->failed = 1;
        }
    }
}

static void free_inputs(struct inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        ssa_result_free(in->v[i].r);
        free(in->v[i].path);
    }
    free(in->v);
    free(in->rs);
    ssa_job_free(&in->job);
}

/* ---- loading: several traces at once ---- */

#define REPORT_MAX_THREADS 64

struct load_pool {
    struct inputs *in;
    const struct ssa_opts *opts;
    unsigned flags;
    size_t next;   /* the next input to take (atomic) */
    size_t failed; /* inputs that could not be read (atomic) */
};

/* Takes inputs until none is left; each result goes to its own slot. */
static void *load_worker(void *arg)
{
    struct load_pool *p = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (i >= p->in->n) return NULL;
        struct input *x = &p->in->v[i];
        if (report_load(VERB, x->path, p->opts, p->flags, &x->r) != 0)
            __atomic_fetch_add(&p->failed, 1, __ATOMIC_RELAXED);
    }
}

static size_t load_threads(size_t n, unsigned jobs)
{
    long cpus = jobs ? (long)jobs : sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus > 0 ? (size_t)cpus : 1;
    if (t > n) t = n;
    if (t > REPORT_MAX_THREADS) t = REPORT_MAX_THREADS;
    return t ? t : 1;
}

/* Analyses every input; the calling thread is one of the workers, and a thread that cannot
 * be started leaves its share to the others. Returns how many inputs failed. */
static size_t load_all(struct inputs *in, const struct report_opts *o)
{
    struct load_pool p = {in, &o->ssa, report_ssa_flags(o), 0, 0};
    pthread_t th[REPORT_MAX_THREADS];
    size_t want = load_threads(in->n, o->jobs), started = 0;
    while (started + 1 < want && pthread_create(&th[started], NULL, load_worker, &p) == 0)
        started++;
    load_worker(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return p.failed;
}

/* The results in argument order, and the ranks of a multi-GPU job among them. */
static int compare_ranks(struct inputs *in)
{
    in->rs = calloc(in->n ? in->n : 1, sizeof *in->rs);
    if (!in->rs) return -1;
    for (size_t i = 0; i < in->n; i++)
        in->rs[i] = in->v[i].r;
    if (ssa_ranks_analyze((const struct ssa_result *const *)in->rs, in->n, &in->job) != 0)
        return -1;
    ssa_ranks_annotate(in->rs, &in->job);
    return 0;
}

/* Over REPORT_RANK_SECTIONS ranks and without -v, of the ranks' sections only the
 * straggler's (or slowest rank's) and the median rank's are printed: hide[input] set for the
 * others. Returns how many are hidden. */
static size_t hide_rank_sections(const struct inputs *in, const struct report_opts *o,
                                 unsigned char *hide)
{
    const struct ssa_job *j = &in->job;
    if (o->verbose || j->n <= REPORT_RANK_SECTIONS || j->n_usable < 2) return 0;
    size_t n = 0;
    for (size_t k = 0; k < j->n; k++)
        if (k != j->straggler && k != j->reference) hide[j->ranks[k].input] = 1, n++;
    return n;
}

/* Section order for people: processes with GPU activity first, else argument order. Returns
 * how many sections. */
static size_t order_sections(const struct inputs *in, const unsigned char *hide, size_t *order)
{
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < in->n; i++)
            if (in->v[i].r && !hide[i] && report_has_gpu(in->v[i].r) == !pass) order[k++] = i;
    return k;
}

/* ---- writing ---- */

/* A multi-rank job: {"schema": "stepscope.job", ..., "ranks": {...}, "processes": [...]}. */
static void write_json(FILE *f, const struct inputs *in, const struct report_opts *o, int as_array)
{
    struct json_out j;
    json_init(&j, f, 1);
    int job = in->job.n >= 2;
    if (job) {
        json_begin_object(&j);
        json_kv_string(&j, "schema", "stepscope.job");
        json_kv_u64(&j, "version", 1);
        json_key(&j, "ranks");
        report_ranks_json(&j, &in->job, (const struct ssa_result *const *)in->rs);
        json_key(&j, "processes");
    }
    if (as_array) json_begin_array(&j);
    for (size_t i = 0; i < in->n; i++) {
        if (in->v[i].r) {
            report_json(&j, in->v[i].r, o);
        } else if (as_array) {
            json_begin_object(&j);
            json_kv_string(&j, "file", in->v[i].path);
            json_kv_string(&j, "error", "cannot read this file as a trace (see stderr)");
            json_end_object(&j);
        }
    }
    if (as_array) json_end_array(&j);
    if (job) json_end_object(&j);
    if (as_array || (in->n && in->v[0].r)) json_finish(&j);
}

static void write_ranks(FILE *f, const struct inputs *in, const struct report_opts *o,
                        size_t hidden)
{
    const struct ssa_result *const *rs = (const struct ssa_result *const *)in->rs;
    if (o->format == REPORT_TEXT)
        report_ranks_text(f, &in->job, rs, hidden);
    else if (o->format == REPORT_MD)
        report_ranks_md(f, &in->job, rs, hidden);
    else
        report_ranks_html(f, &in->job, rs, hidden);
}

/* The traces that could not be read, in the report itself: a page or a file that looks
 * complete must not hide a missing rank. The reasons went to stderr. */
static void write_unreadable(FILE *f, const struct inputs *in, int format)
{
    size_t bad = 0;
    for (size_t i = 0; i < in->n; i++) bad += !in->v[i].r;
    if (!bad) return;
    if (format == REPORT_TEXT)
        fprintf(f, "\n  unreadable %zu of %zu traces could not be read (why: on stderr):\n",
                bad, in->n);
    else if (format == REPORT_MD)
        fprintf(f, "## Traces that could not be read\n\n%zu of %zu (why: on stderr):\n\n", bad,
                in->n);
    else
        fprintf(f, "<section class=\"damaged\"><h2>Traces that could not be read</h2>\n"
                   "<p>%zu of %zu (why: on stderr)</p>\n<ul>\n", bad, in->n);
    for (size_t i = 0; i < in->n; i++) {
        if (in->v[i].r) continue;
        fputs(format == REPORT_TEXT ? "             " : format == REPORT_MD ? "- " : "<li><code>", f);
        if (format == REPORT_TEXT) text_write_escaped(f, in->v[i].path, strlen(in->v[i].path), 0);
        if (format == REPORT_MD) md_escaped(f, in->v[i].path);
        if (format == REPORT_HTML) html_escaped(f, in->v[i].path);
        fputs(format == REPORT_HTML ? "</code></li>\n" : "\n", f);
    }
    if (format == REPORT_HTML) fputs("</ul>\n</section>\n", f);
}

static void write_sections(FILE *f, const struct inputs *in, const struct report_opts *o,
                           const size_t *order, size_t n, size_t hidden)
{
    if (o->format == REPORT_HTML) report_html_begin(f, n == 1 ? in->v[order[0]].path : NULL);
    if (o->format == REPORT_MD && n + hidden > 1)
        fprintf(f, "# stepscope report: %zu processes\n\n", n + hidden);
    if (in->job.n >= 2) write_ranks(f, in, o, hidden);
    for (size_t k = 0; k < n; k++) {
        const struct ssa_result *r = in->v[order[k]].r;
        if (o->format == REPORT_TEXT) {
            if (k) fputc('\n', f);
            report_text(f, r, o);
        } else if (o->format == REPORT_MD) {
            report_md(f, r, o);
        } else {
            report_html(f, r, o);
        }
    }
    write_unreadable(f, in, o->format);
    if (o->format == REPORT_HTML) report_html_end(f);
}

static void write_report(FILE *f, const struct inputs *in, const struct report_opts *o,
                         int as_array)
{
    if (o->format == REPORT_JSON) {
        write_json(f, in, o, as_array);
        return;
    }
    size_t *order = calloc(in->n ? in->n : 1, sizeof *order);
    unsigned char *hide = calloc(in->n ? in->n : 1, 1);
    if (order && hide) {
        size_t hidden = hide_rank_sections(in, o, hide);
        size_t n = order_sections(in, hide, order);
        if (n) write_sections(f, in, o, order, n, hidden);
    } else {
        cli_error(VERB, NULL, "out of memory");
    }
    free(order);
    free(hide);
}

struct report_job {
    const struct inputs *in;
    const struct report_opts *o;
    int as_array;
};

static int write_report_job(FILE *f, void *ctx)
{
    const struct report_job *j = ctx;
    write_report(f, j->in, j->o, j->as_array);
    return 0;
}

/* -o FILE: put in place only when every byte made it (cli_write_output). */
static int write_to_file(const char *file, unsigned flags, const struct inputs *in,
                         const struct report_opts *o, int as_array)
{
    struct report_job j = {in, o, as_array};
    return cli_write_output(VERB, file, "report", flags, write_report_job, &j);
}

/* ---- the verb ---- */

static int use_color(void)
{
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb") != 0;
}

static int parse_format(const char *s, struct report_opts *o)
{
    static const char *const names[] = {"text", "json", "md", "html"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            o->format = i;
            return 0;
        }
    return cli_usage_error(VERB, "unknown format '%s' (text, json, md or html)", s);
}

static int parse_rec_cost(const char *verb, const char *arg, struct ssa_opts *o)
{
    char *end;
    errno = 0;
    double us = strtod(arg, &end);
    if (end == arg || *end || errno || !(us >= 0 && us <= 1e6))
        return cli_usage_error(verb, "--recording-cost-us wants microseconds from 0, not '%s'",
                               arg);
    o->rec_cost_given = 1, o->rec_cost_us = us;
    return 0;
}

int report_step_option(const char *verb, int c, const char *arg, struct ssa_opts *o)
{
    uint64_t n;
    regex_t re;
    switch (c) {
    case 'W':
        o->no_warmup = 1;
        return 0;
    case 'R':
        return parse_rec_cost(verb, arg, o);
    case 'w':
        if (cli_parse_u64(arg, &n) != 0 || n > (uint64_t)SIZE_MAX / 2)
            return cli_usage_error(verb, "--warmup wants a step count, not '%s'", arg);
        o->warmup_fixed = 1, o->warmup_steps = (size_t)n;
        return 0;
    default: /* 'm' */
        if (!*arg || !strcmp(arg, "re:")) return cli_usage_error(verb, "empty --step-marker");
        if (strncmp(arg, "re:", 3) == 0) {
            if (regcomp(&re, arg + 3, REG_EXTENDED | REG_NOSUB) != 0)
                return cli_usage_error(verb, "--step-marker: '%s' is not a valid extended regex",
                                       arg + 3);
            regfree(&re);
        }
        o->step_marker = arg;
        return 0;
    }
}

static int parse_jobs(const char *s, struct report_opts *o)
{
    uint64_t n;
    if (cli_parse_u64(s, &n) != 0 || n == 0)
        return cli_usage_error(VERB, "--jobs wants a thread count from 1, not '%s'", s);
    o->jobs = n > REPORT_MAX_THREADS ? REPORT_MAX_THREADS : (unsigned)n;
    return 0;
}

enum { OPT_FORCE = 1000, OPT_ACCEPT_DAMAGE };

static int parse_report_args(int argc, char **argv, struct report_opts *o, const char **out)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"jobs", required_argument, NULL, 'j'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"accept-damage", no_argument, NULL, OPT_ACCEPT_DAMAGE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             REPORT_STEP_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    *out = NULL;
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "f:o:vj:qh", longopts)) != -1;) {
        if (c == 'h') {
            fputs(report_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'v') o->verbose = 1;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) o->out_flags |= SS_OUT_FORCE;
        if (c == OPT_ACCEPT_DAMAGE) o->accept_damage = 1;
        if (c > 0 && c < 256 && strchr("WwmR", c) && report_step_option(VERB, c, optarg, &o->ssa) != 0)
            return CLI_EXIT_USAGE;
        if (c == 'o') *out = optarg;
        if (c == 'f' && parse_format(optarg, o) != 0) return CLI_EXIT_USAGE;
        if (c == 'j' && parse_jobs(optarg, o) != 0) return CLI_EXIT_USAGE;
    }
    if (optind >= argc) return cli_usage_error(VERB, "missing TRACE");
    if (*out && !**out) return cli_usage_error(VERB, "empty --output file name");
    if (*out && strcmp(*out, "-") == 0) *out = NULL; /* stdout, as without -o */
    o->color = o->format == REPORT_TEXT && !*out && use_color();
    return 0;
}

/* Before anything is read: -o must not name one of the traces. */
static int refuse_output_over_input(const char *out_file, const struct inputs *in)
{
    for (size_t i = 0; out_file && i < in->n; i++) {
        const char *p = in->v[i].path;
        int rc = cli_refuse_same_file(VERB, out_file, &p, 1);
        if (rc != CLI_EXIT_OK) return rc;
    }
    return CLI_EXIT_OK;
}

/* A trace that lost more than REPORT_DAMAGE_FAIL of its records fails the report, loudly:
 * its numbers describe a fragment. */
static int check_damage(const struct inputs *in, const struct report_opts *o)
{
    int status = CLI_EXIT_OK;
    for (size_t i = 0; i < in->n; i++) {
        const struct ssa_result *r = in->v[i].r;
        if (!r || !r->damage.damaged || r->damage.read_fraction >= REPORT_DAMAGE_FAIL) continue;
        if (o->accept_damage) continue;
        cli_error(VERB, in->v[i].path,
                  "only %.1f %% of the trace could be read: the report is of what was left "
                  "(--accept-damage to accept it)",
                  100.0 * r->damage.read_fraction);
        status = CLI_EXIT_FAIL;
    }
    return status;
}

static int report_inputs(struct inputs *in, const struct report_opts *o, const char *out_file,
                         int as_array)
{
    int status = in->failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    if (in->n == 1) cli_progress_begin("analysing", in->v[0].path); /* one thread reads */
    size_t failed = load_all(in, o), readable = in->n - failed;
    cli_progress_end();
    if (failed) status = CLI_EXIT_FAIL;
    if (compare_ranks(in) != 0) {
        cli_error(VERB, NULL, "out of memory");
        return CLI_EXIT_FAIL;
    }
    if (check_damage(in, o) != CLI_EXIT_OK) status = CLI_EXIT_FAIL;
    if (out_file) {
        /* nothing readable: no file at all, rather than an empty report */
        if (readable && write_to_file(out_file, o->out_flags, in, o, as_array) != CLI_EXIT_OK)
            status = CLI_EXIT_FAIL;
        return status;
    }
    write_report(stdout, in, o, as_array);
    int fin = cli_finish_stdout(VERB);
    return status != CLI_EXIT_OK ? status : fin;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o;
    const char *out_file;
    int rc = parse_report_args(argc, argv, &o, &out_file);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    struct inputs in = {0};
    int any_folder = 0;
    expand_args(&in, argc, argv, &any_folder);
    rc = refuse_output_over_input(out_file, &in);
    if (rc == CLI_EXIT_OK) rc = report_inputs(&in, &o, out_file, in.n > 1 || any_folder);
    free_inputs(&in);
    return rc;
}

/* ---- the end of `stepscope record` ---- */

#define PID_SCAN_RECORDS 4096 /* the PROCESS record is among the first records */

/* The pid of the trace's PROCESS record, 0 when it has none near its start. */
static uint32_t trace_pid(const char *path)
{
    struct sst_reader *r;
    if (sst_reader_open(path, NULL, &r) < 0) return 0;
    const struct sst_rec_header *h;
    uint32_t pid = 0;
    for (int n = 0; n < PID_SCAN_RECORDS && sst_reader_next(r, &h) == 1; n++)
        if (h->type == SST_REC_PROCESS) {
            pid = ((const struct sst_rec_process *)(const void *)h)->pid;
            break;
        }
    sst_reader_close(r);
    return pid;
}

/* The trace of the started process: its pid, else the largest file of this run. 0 or -1. */
static int pick_main_trace(const char *dir, pid_t child, const struct trace_names *before,
                           char *out, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, is_trace_name, alphasort);
    if (n < 0) return -1;
    off_t best_size = -1;
    int found_pid = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        struct stat st;
        int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        int ours = record_trace_is_new(before, names[i]->d_name);
        free(names[i]);
        if (!ours || found_pid || len < 0 || (size_t)len >= sizeof path || stat(path, &st) != 0)
            continue;
        if (child > 0 && trace_pid(path) == (uint32_t)child) found_pid = 1;
        if (found_pid || st.st_size > best_size) {
            best_size = st.st_size;
            snprintf(out, cap, "%s", path);
        }
    }
    free(names);
    return best_size >= 0 ? 0 : -1;
}

void report_after_record(FILE *f, const char *dir, pid_t child, const struct trace_names *before)
{
    char path[PATH_MAX];
    if (pick_main_trace(dir, child, before, path, sizeof path) != 0) {
        fprintf(f, "stepscope: no report: no trace was written\n");
        return;
    }
    struct report_opts o;
    memset(&o, 0, sizeof o);
    struct ssa_result *r;
    int rc = ssa_analyze_file_ex(path, &o.ssa, report_ssa_flags(&o), &r);
    if (rc) {
        char shown[PATH_MAX];
        text_escape_to(shown, sizeof shown, path);
        fprintf(f, "stepscope: no report: %s: %s\n", shown, ss_strerror(rc));
        return;
    }
    fputc('\n', f);
    report_text(f, r, &o);
    ssa_result_free(r);
    fflush(f);
}
