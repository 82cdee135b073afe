/*
 * cmd_report.c — `stepscope report`: where the time of a training step goes.
 *
 * The analysis (src/analysis/) does the work in two streaming passes; this file prints
 * its result: a headline (steps, warm-up excluded, step time, steps/s, GPU busy), a
 * stacked bar of the categories, the category table in ms/step, and the kernel classes —
 * one screen. -v adds the top kernels and the per-step table. --format json writes the
 * schema of docs/report-json.md, md Markdown, html one self-contained page. After the
 * breakdown come the ranked findings (src/analysis/ssa_findings.c). The writers are in
 * report_FORMAT.c, found in the format table (report.h); this file parses the options,
 * expands folders into their traces, orders the processes (GPU activity first), builds each
 * section's view and drives the writer, and writes -o FILE whole before putting it in place,
 * so a report that failed half-way is never left under the name asked for.
 *
 * Several traces are analysed at once, on up to one thread per online CPU (at most 64; -j):
 * each result lands in its argument's slot, so the output does not depend on which finished
 * first. The threads the traces leave over decode each trace's chunks ahead of its analysis
 * (src/trace/sst_ahead.c), which still reads them in file order: one trace gets all of them. Over the traces of a multi-GPU job (ranks of one world size: torchrun), the ranks
 * are compared first (src/analysis/ssa_ranks.c; the ranks view of report_view.c): the straggler,
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
#include "report.h"
#include "text_esc.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

static const char report_about[] =
    "\n"
    "Splits every training step of each TRACE into where its time went: GPU busy by\n"
    "kernel class, exposed copies and communication, and GPU idle blamed on what the\n"
    "training thread was doing (data loading, sync, launch, alloc, other host work).\n"
    "Steps come from the step markers (public API, Python shim, ProfilerStep#N); warm-up\n"
    "steps are excluded and counted. A DIR stands for the .sstrace files in it (one per\n"
    "process); with several processes, those with GPU activity come first. The ranks of\n"
    "a multi-GPU job (torchrun: one trace per rank) are compared first: per rank its step\n"
    "time, GPU busy, NCCL and exposed communication; the straggler, why, and what the\n"
    "other ranks wait for it (over 8 ranks only its and the median rank's sections: -v);\n"
    "the hosts' clocks laid on one timeline from the NCCL collectives' ends, and per\n"
    "collective who arrived last and how long the others waited, per rank and host.\n"
    "\n";

static const char report_options[] =
    "  -o, --output FILE  write the report to FILE (written whole, then put in place;\n"
    "                     - for stdout); a read-only FILE is kept unless --force\n"
    "      --force        replace a read-only FILE\n"
    "      --accept-damage  exit 0 even when a trace is incomplete: records lost, dropped,\n"
    "                     repeated or impossible, or no end (killed, cut); the report says\n"
    "                     so at its top either way, stderr once\n"
    "  -q, --quiet        no 'wrote FILE (SIZE)' line\n"
    "  -v, --verbose      also the top kernels and a table of every step, and the section\n"
    "                     of every rank\n"
    "  -j, --jobs N       analyse up to N traces at once (default: one per online CPU,\n"
    "                     at most 64); threads left over decode the chunks of each trace\n"
    "                     ahead of its analysis (N of them for one trace; a raw trace up\n"
    "                     to a quarter of the memory is then mapped whole: its page-cache\n"
    "                     pages count in the RSS)\n" REPORT_STEP_HELP "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 every trace was analysed whole, 1 a trace could not be read or is\n"
    "incomplete (damaged, truncated, inconsistent or dropped records: --accept-damage), 2\n"
    "usage error (also when FILE is one of the traces).\n";

/* The usage text; the formats come from the format table (report.h). */
static const struct report_usage usage = {"report TRACE|DIR...", "[-o FILE] [-v]", report_about,
                                          report_options, 0};

#define VERB "report"

/* ---- inputs: files and folders of traces ---- */

struct input {
    char *path;
    struct ssa_result *r; /* NULL: could not be read (said on stderr) */
};

struct inputs {
    struct input *v;
    size_t n, cap;
    int failed; /* an argument gave nothing readable */
    /* after loading: the results in argument order (NULL: unreadable), their ranks, and the
     * inputs as the ranks' rows name them */
    struct ssa_result **rs;
    struct ssa_job job; /* job.n >= 2: a multi-rank job */
    struct report_input *named;
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
    free(in->named);
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

/* Threads that decode each trace's chunks ahead of its analysis: the threads -j allows that
 * the traces do not take, all of them for one trace; 0 (none) when that is one per trace. */
static unsigned decode_threads(size_t n, unsigned jobs)
{
    long cpus = jobs ? (long)jobs : sysconf(_SC_NPROCESSORS_ONLN);
    size_t per = n && cpus > 0 ? (size_t)cpus / n : 1;
    return per > 1 ? (unsigned)(per > REPORT_MAX_THREADS ? REPORT_MAX_THREADS : per) : 0;
}

/* Analyses every input; the calling thread is one of the workers, and a thread that cannot
 * be started leaves its share to the others. Returns how many inputs failed. */
static size_t load_all(struct inputs *in, const struct report_opts *o)
{
    struct ssa_opts so = o->ssa;
    so.decode_threads = decode_threads(in->n, o->jobs);
    /* several inputs may be the ranks of a job: what aligning them needs is kept as each
     * trace is analysed, on these threads, so that no trace is read twice (issue #44) */
    unsigned flags = report_ssa_flags(o) | (in->n >= 2 ? SSA_ALIGN_KEEP : 0);
    struct load_pool p = {in, &so, flags, 0, 0};
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
    in->named = calloc(in->n ? in->n : 1, sizeof *in->named);
    if (!in->rs || !in->named) return -1;
    for (size_t i = 0; i < in->n; i++) {
        in->rs[i] = in->v[i].r;
        in->named[i] = (struct report_input){in->v[i].path, in->v[i].r ? in->v[i].r->pid : 0};
    }
    int rc = ssa_ranks_analyze((const struct ssa_result *const *)in->rs, in->n, &in->job);
    /* the ranks on one timeline, from what their analyses kept (issue #44) */
    if (!rc) rc = ssa_align_job(&in->job, in->rs);
    return rc;
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
            if (in->v[i].r && !hide[i] && (ssa_gpu_records(in->v[i].r) > 0) == !pass) order[k++] = i;
    return k;
}

/* ---- writing: one driver, the writer table of report.h ---- */

/* The document of a report over in: its sections in the writers' order, what is missing. */
struct doc_plan {
    struct report_doc d;
    size_t *order;      /* the sections (input indices), GPU activity first */
    const char **bad;   /* the paths that could not be read, in argument order */
    unsigned char *hide;
};

static void plan_free(struct doc_plan *p)
{
    free(p->order);
    free(p->bad);
    free(p->hide);
}

static int plan_doc(const struct inputs *in, const struct report_opts *o, int as_array,
                    struct doc_plan *p)
{
    size_t n = in->n ? in->n : 1;
    memset(p, 0, sizeof *p);
    p->order = calloc(n, sizeof *p->order);
    p->bad = calloc(n, sizeof *p->bad);
    p->hide = calloc(n, 1);
    if (!p->order || !p->bad || !p->hide) return -1;
    p->d.hidden = hide_rank_sections(in, o, p->hide);
    p->d.n_sections = order_sections(in, p->hide, p->order);
    for (size_t i = 0; i < in->n; i++)
        if (!in->v[i].r) p->bad[p->d.n_unreadable++] = in->v[i].path;
    p->d.title = p->d.n_sections == 1 ? in->v[p->order[0]].path : NULL;
    p->d.as_array = as_array;
    p->d.job = &in->job;
    p->d.inputs = in->named;
    p->d.unreadable = p->bad;
    p->d.n_inputs = in->n;
    return 0;
}

/* One process's section: its view (and its place in the job), then the writer. */
static void write_section(struct report_sink *k, const struct report_writer *w,
                          const struct inputs *in, size_t i)
{
    struct report_view *v = malloc(sizeof *v); /* the findings' texts make it large */
    if (!v) {
        cli_error(VERB, in->v[i].path, "out of memory");
        return;
    }
    struct ssa_peer peer = ssa_ranks_peer(&in->job, i);
    report_view_build(v, in->v[i].r, &peer);
    w->process(k, v);
    k->index++;
    free(v);
}

/* The ranks of a multi-GPU job: their view, then the writer. */
static void write_ranks(struct report_sink *k, const struct report_writer *w)
{
    struct report_ranks_view *t = malloc(sizeof *t);
    if (!t) {
        cli_error(VERB, NULL, "out of memory");
        return;
    }
    report_ranks_view_build(t, k->d->job, k->d->inputs, k->d->hidden);
    w->ranks(k, t);
    free(t);
}

static void write_body(struct report_sink *k, const struct report_writer *w,
                       const struct inputs *in, const struct doc_plan *p)
{
    if (w->all_inputs) { /* every input in argument order, an unreadable one in its place */
        for (size_t i = 0; i < in->n; i++)
            if (in->v[i].r)
                write_section(k, w, in, i);
            else
                w->unreadable(k, (const char *const *)&in->v[i].path, 1);
        return;
    }
    for (size_t s = 0; s < p->d.n_sections; s++)
        write_section(k, w, in, p->order[s]);
    if (p->d.n_unreadable) w->unreadable(k, p->d.unreadable, p->d.n_unreadable);
}

static void write_report(FILE *f, const struct inputs *in, const struct report_opts *o,
                         int as_array)
{
    const struct report_writer *w = report_formats[o->format].writer;
    struct doc_plan p;
    if (plan_doc(in, o, as_array, &p) != 0) {
        cli_error(VERB, NULL, "out of memory");
        plan_free(&p);
        return;
    }
    struct report_sink k = {.f = f, .o = o, .d = &p.d};
    if (w->state_size && !(k.state = calloc(1, w->state_size))) {
        cli_error(VERB, NULL, "out of memory");
        plan_free(&p);
        return;
    }
    if (w->all_inputs || p.d.n_sections) { /* nothing readable: nothing written */
        if (w->begin) w->begin(&k);
        if (in->job.n >= 2 && w->ranks) write_ranks(&k, w);
        if (w->sections) w->sections(&k);
        write_body(&k, w, in, &p);
        if (w->end) w->end(&k);
    }
    free(k.state);
    plan_free(&p);
}

void report_write_single(FILE *f, const struct ssa_result *r, const struct report_opts *o)
{
    struct input one = {(char *)r->path, (struct ssa_result *)r};
    struct ssa_result *rs[1] = {(struct ssa_result *)r};
    struct report_input named = {r->path, r->pid};
    struct inputs in = {.v = &one, .n = 1, .cap = 1, .rs = rs, .named = &named};
    write_report(f, &in, o, 0); /* one trace: no job (in.job is empty) */
}

void report_text_one(FILE *f, const struct ssa_result *r, const struct report_opts *o)
{
    struct report_opts text = *o;
    text.format = REPORT_TEXT;
    report_write_single(f, r, &text);
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
    const struct report_format *fmt = report_format_find(s);
    char names[64];
    if (fmt) {
        o->format = (int)(fmt - report_formats);
        return 0;
    }
    report_format_names(names, sizeof names, ", ", " or ");
    return cli_usage_error(VERB, "unknown format '%s' (%s)", s, names);
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
            report_usage_print(stdout, &usage);
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
    o->width = report_text_cols(*out ? -1 : STDOUT_FILENO);
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

/* A report built from less than the whole trace fails, loudly (issue #29: a CI gate on the
 * exit code must not pass on a fragment's numbers), unless --accept-damage. */
static int check_damage(const struct inputs *in, const struct report_opts *o)
{
    int status = CLI_EXIT_OK;
    for (size_t i = 0; i < in->n; i++) {
        const struct ssa_result *r = in->v[i].r;
        if (report_incomplete(r) &&
            report_say_incomplete(VERB, in->v[i].path, r, o->accept_damage) != CLI_EXIT_OK)
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

