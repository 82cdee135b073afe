/*
 * cmd_export.c — `stepscope export TRACE [-o OUT] --format perfetto|nsys-sqlite|nvtxt|folded`:
 * the trace in another tool's format. The writers are in src/interop (ssi.h): Perfetto JSON
 * (ssi_perfetto.c), the nsys SQLite schema (ssi_nsys_export.c), NVTXT (ssi_nvtxt.c), collapsed
 * stacks of the Python samples (ssi_folded.c). This
 * file parses the options, opens the trace once, analyses it when the format carries the
 * attribution, and puts the output in place (cli_write_output / cli_write_path).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "cmd.h"
#include "interop/ssi.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

#define VERB "export"

static const char export_usage[] =
    "usage: stepscope export TRACE [-o OUT] [--format perfetto|nsys-sqlite|nvtxt|folded]\n"
    "                        [--samples idle|all]\n"
    "\n"
    "Writes TRACE in another tool's format.\n"
    "  perfetto     Chrome Trace Event JSON for Perfetto UI and chrome://tracing: host threads\n"
    "               (CUDA API calls, NVTX ranges, step markers, CPU and RSS counters), one\n"
    "               track per GPU stream (kernels, copies, memsets), flow arrows from each\n"
    "               launch to its GPU work, stepscope's attribution of every step, and\n"
    "               the Python stack samples as one track per sampled thread.\n"
    "  nsys-sqlite  an SQLite database in the schema of `nsys export --type sqlite`\n"
    "               (Nsight Systems 2025.3.1): kernels, copies, memsets, syncs, CUDA API\n"
    "               calls, NVTX ranges, threads, GPUs; `nsys stats` and `nsys analyze` read it.\n"
    "  nvtxt        NVTXT text (Nsight Systems' ImportNvtxt): the steps, their attributed\n"
    "               time per category, and the trace's NVTX ranges.\n"
    "  folded       collapsed stacks of the Python stack samples (flamegraph.pl,\n"
    "               speedscope): \"root;frame;...;frame MICROSECONDS\" per line.\n"
    "\n"
    "  -o, --output OUT   the file to write (written whole, then put in place; - for\n"
    "                     stdout). Default: next to TRACE, named after it with the\n"
    "                     format's suffix (.perfetto.json, .sqlite, .nvtxt); an existing\n"
    "                     file there is kept unless --force\n"
    "  -f, --format FMT   perfetto (the default), nsys-sqlite, nvtxt or folded\n"
    "      --samples WHICH  folded: idle (the default: GPU-idle time of the training\n"
    "                     thread in the steady steps, a root per category) or all\n"
    "                     (every sample of every thread, a root per thread)\n"
    "      --force        replace an existing or read-only OUT\n"
    "  -q, --quiet        no 'wrote OUT (SIZE)' line\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 written, 1 the trace could not be read or OUT not written, 2 usage.\n";

enum export_format { EXPORT_PERFETTO, EXPORT_NSYS_SQLITE, EXPORT_NVTXT, EXPORT_FOLDED, EXPORT_N };

/* One row per format: its name, the suffix of the file written next to the input. */
static const struct {
    const char *name, *suffix;
} export_formats[EXPORT_N] = {
    [EXPORT_PERFETTO] = {"perfetto", ".perfetto.json"},
    [EXPORT_NSYS_SQLITE] = {"nsys-sqlite", ".sqlite"},
    [EXPORT_NVTXT] = {"nvtxt", ".nvtxt"},
    [EXPORT_FOLDED] = {"folded", ".folded"},
};

static int parse_format(const char *s, enum export_format *fmt)
{
    for (int i = 0; i < EXPORT_N; i++)
        if (strcmp(s, export_formats[i].name) == 0) {
            *fmt = (enum export_format)i;
            return 0;
        }
    return -1;
}

struct export_args {
    const char *in, *out;
    enum export_format fmt;
    int all_samples, samples_set; /* folded: --samples all; --samples given */
    unsigned out_flags;
    char default_out[PATH_MAX];
};

enum { OPT_FORCE = 1000, OPT_SAMPLES };

static int parse_export_args(int argc, char **argv, struct export_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"samples", required_argument, NULL, OPT_SAMPLES},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "o:f:qh", longopts)) != -1;) {
        if (c == 'h') {
            fputs(export_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'o') a->out = optarg;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) a->out_flags |= SS_OUT_FORCE;
        if (c == 'f' && parse_format(optarg, &a->fmt) != 0)
            return cli_usage_error(VERB,
                                   "unknown format '%s' (perfetto, nsys-sqlite, nvtxt, folded)",
                                   optarg);
        if (c == OPT_SAMPLES && strcmp(optarg, "idle") != 0 && strcmp(optarg, "all") != 0)
            return cli_usage_error(VERB, "unknown --samples '%s' (idle or all)", optarg);
        if (c == OPT_SAMPLES) a->all_samples = strcmp(optarg, "all") == 0, a->samples_set = 1;
    }
    if (a->samples_set && a->fmt != EXPORT_FOLDED)
        return cli_usage_error(VERB, "--samples is for --format folded");
    if (argc - optind != 1) return cli_usage_error(VERB, "want one TRACE");
    a->in = argv[optind];
    if (a->out && !*a->out) return cli_usage_error(VERB, "empty -o OUT");
    if (a->out) return 0;
    /* no -o: next to the input, never over an existing file unless --force */
    if (cli_default_output(a->in, export_formats[a->fmt].suffix, a->default_out,
                           sizeof a->default_out) != 0)
        return cli_usage_error(VERB, "cannot name an output for '%s': give -o OUT", a->in);
    a->out = a->default_out;
    a->out_flags |= SS_OUT_NO_CLOBBER;
    return 0;
}

/* ---- writing ---- */

struct export_job {
    const struct export_args *a;
    struct cli_trace *t;
    const struct ssa_result *res; /* perfetto and nvtxt: the attribution */
};

/* Says a writer's warning (a cut trace) or error on one line; -1 after an error. */
static int say_result(const char *path, int rc, const char *msg)
{
    if (rc) cli_error(VERB, path, "%s", msg[0] ? msg : ss_strerror(rc));
    if (!rc && msg[0]) cli_error(VERB, path, "%s", msg);
    return rc ? -1 : 0;
}

/* The formats written as a stream: Perfetto JSON and collapsed stacks. */
static int write_stream(FILE *f, void *ctx)
{
    const struct export_job *j = ctx;
    char warn[512];
    int rc = j->a->fmt == EXPORT_FOLDED
                 ? ssi_folded_write(j->t->r, j->res, j->a->all_samples, f, warn, sizeof warn)
                 : ssi_perfetto_write(j->t->r, j->res, f, warn, sizeof warn);
    return say_result(j->a->in, rc, warn);
}

static int write_interop(const char *tmp, void *ctx)
{
    const struct export_job *j = ctx;
    char err[512] = "";
    int rc = j->a->fmt == EXPORT_NSYS_SQLITE
                 ? ssi_nsys_export_reader(j->t->r, j->a->in, tmp, err, sizeof err)
                 : ssi_nvtxt_export_reader(j->t->r, j->res, j->a->in, tmp, err, sizeof err);
    return say_result(j->a->in, rc, err);
}

/* Perfetto and NVTXT carry stepscope's attribution of every step, folded the samples' place
 * on it: the trace is analysed first (full mode: each step kept), from the same reader. */
static int analyse_for(struct export_job *j, struct ssa_result **res)
{
    *res = NULL;
    if (j->a->fmt == EXPORT_NSYS_SQLITE) return 0;
    struct ssa_opts o = {0};
    int rc = ssa_analyze_reader(j->t->r, j->a->in, &o, 0, res);
    if (rc) cli_error(VERB, j->a->in, "cannot analyse the steps: %s", ss_strerror(rc));
    j->res = *res;
    return rc ? -1 : 0;
}

static int export_trace(const struct export_args *a, struct cli_trace *t)
{
    struct export_job j = {a, t, NULL};
    struct ssa_result *res;
    if (analyse_for(&j, &res) != 0) return CLI_EXIT_FAIL;
    int stream = a->fmt == EXPORT_PERFETTO || a->fmt == EXPORT_FOLDED;
    int rc = stream ? cli_write_output(VERB, a->out, "export", a->out_flags, write_stream, &j)
                    : cli_write_path(VERB, a->out, "export", a->out_flags, write_interop, &j);
    ssa_result_free(res);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    struct export_args a;
    int rc = parse_export_args(argc, argv, &a);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    if ((rc = cli_refuse_same_file(VERB, a.out, &a.in, 1)) != CLI_EXIT_OK) return rc;
    struct cli_trace t;
    cli_progress_begin("exporting", a.in);
    if (cli_trace_open(&t, VERB, a.in, NULL, NULL) != 0) return cli_progress_end(), CLI_EXIT_FAIL;
    rc = export_trace(&a, &t);
    cli_progress_end();
    cli_trace_close(&t);
    return rc;
}
