/*
 * cmd_export.c — `stepscope export TRACE [-o OUT] --format FMT`: the trace in another tool's
 * format. The formats are the table of src/interop (ssi.h: SSI_EXPORTERS, each row with its
 * writer: Perfetto JSON in ssi_perfetto.c, the nsys SQLite schema in ssi_nsys_export.c, NVTXT
 * in ssi_nvtxt.c, collapsed stacks of the Python samples in ssi_folded.c); nothing here names
 * one. This file parses the options, opens the trace once,
 * analyses it when the format carries the attribution, and puts the output in place
 * (cli_write_output / cli_write_path).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/ssa.h"
#include "cmd.h"
#include "export_merged.h"
#include "interop/ssi.h"
#include "interop/ssi_window.h"
#include "trace/sst_reader.h"
#include "trace/sst_window.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

#define VERB "export"

/* The list of the formats' names or suffixes: "a|b|c", "a (the default), b or c"... */
static const char *format_list(char *buf, size_t cap, int suffixes, const char *sep,
                               const char *last_sep, const char *first_note)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; ssi_exporters[i]; i++) {
        const struct ssi_exporter *e = ssi_exporters[i];
        const char *before = i == 0 ? "" : ssi_exporters[i + 1] ? sep : last_sep;
        int n = snprintf(buf + len, cap - len, "%s%s%s", before, suffixes ? e->suffix : e->name,
                         i == 0 ? first_note : "");
        if (n < 0 || (size_t)n >= cap - len) break;
        len += (size_t)n;
    }
    return buf;
}

/* One format's --help lines: its name, then its help indented under the first line. */
static void format_help(const struct ssi_exporter *e)
{
    printf("  %-12s ", e->name);
    for (const char *p = e->help; *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        printf("%.*s\n", n, p);
        p += n + (nl != NULL);
        if (*p) printf("%15s", "");
    }
}

static void export_usage(void)
{
    char list[256];
    printf("usage: stepscope export TRACE|DIR [-o OUT] [--format %s]\n"
           "                        [--samples idle|all] [--steps A-B | --time A-B]\n"
           "                        [--accept-damage]\n"
           "\n"
           "Writes TRACE in another tool's format. A folder DIR of .sstrace files (the\n"
           "ranks of a job, on one or several hosts) is written as one Perfetto document\n"
           "or one nsys-sqlite database: every trace on one timeline, the hosts' clocks\n"
           "aligned on the collectives' ends (as report's 'clocks' line says); --steps and\n"
           "--time cut one span of that timeline from every trace (Perfetto; --steps: from\n"
           "the earliest begin of step A to the latest end of step B; --time: seconds after\n"
           "the earliest start).\n",
           format_list(list, sizeof list, 0, "|", "|", ""));
    for (size_t i = 0; ssi_exporters[i]; i++)
        format_help(ssi_exporters[i]);
    printf("\n"
           "  -o, --output OUT   the file to write (written whole, then put in place; - for\n"
           "                     stdout). Default: next to TRACE, named after it with the\n"
           "                     format's suffix (%s); an existing\n"
           "                     file there is kept unless --force\n",
           format_list(list, sizeof list, 1, ", ", ", ", ""));
    printf("  -f, --format FMT   %s\n", format_list(list, sizeof list, 0, ", ", " or ",
                                                    " (the default)"));
    fputs("      --samples WHICH  folded: idle (the default: GPU-idle time of the training\n"
          "                     thread in the steady steps, a root per category) or all\n"
          "                     (every sample of every thread, a root per thread)\n"
          "      --steps A-B    only steps A to B, as the report numbers them (A alone: one\n"
          "                     step): what overlaps them, ranges that cross them whole\n"
          "      --time A-B     only A to B seconds after the recording started (1.5-2.25)\n"
          "      --force        replace an existing or read-only OUT\n"
          CLI_ACCEPT_DAMAGE_HELP
          "  -q, --quiet        no 'wrote OUT (SIZE)' line\n"
          "  -h, --help         this text\n"
          "\n"
          "An export expected to pass 1 GiB (STEPSCOPE_EXPORT_WARN_MB) says its size first.\n"
          "\n"
          "Exit status: 0 written, 1 the trace could not be read, is damaged, truncated,\n"
          "inconsistent or dropped records (nothing written; --accept-damage writes what could\n"
          "be read, marked in the output where its format has room), the window holds nothing\n"
          "or OUT not written, 2 usage.\n",
          stdout);
}

struct export_args {
    const char *in, *out;
    const struct ssi_exporter *fmt;
    int all_samples, samples_set; /* --samples all; --samples given */
    int accept_damage;
    struct sst_window win;        /* --steps (SST_WINDOW_STEPS) or --time (SECONDS); else ALL */
    const char *win_arg;
    unsigned out_flags;
    char default_out[PATH_MAX];
};

enum { OPT_FORCE = 1000, OPT_SAMPLES, OPT_STEPS, OPT_TIME, OPT_ACCEPT_DAMAGE };

/* --steps A-B (or A) and --time A-B, in the capture window's grammar (sst_window.h): 0, or a
 * usage error's exit code. */
static int window_option(struct export_args *a, int steps, const char *arg)
{
    char spec[96];
    const char *dash = strchr(arg, '-');
    if (a->win_arg) return cli_usage_error(VERB, "one --steps or --time");
    snprintf(spec, sizeof spec, "%s%s%s%s", steps ? "steps:" : "seconds:", arg,
             steps && !dash ? "-" : "", steps && !dash ? arg : "");
    if (strlen(arg) > 40 || sst_window_parse(spec, &a->win) != 0)
        return cli_usage_error(VERB, steps ? "bad --steps '%s' (A-B: whole numbers, A <= B)"
                                           : "bad --time '%s' (A-B: seconds, A < B)",
                               arg);
    a->win_arg = arg;
    return 0;
}

/* --samples idle|all: 0, or a usage error's exit code. */
static int samples_option(struct export_args *a, const char *arg)
{
    if (strcmp(arg, "idle") != 0 && strcmp(arg, "all") != 0)
        return cli_usage_error(VERB, "unknown --samples '%s' (idle or all)", arg);
    a->all_samples = strcmp(arg, "all") == 0, a->samples_set = 1;
    return 0;
}

static int parse_export_args(int argc, char **argv, struct export_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"samples", required_argument, NULL, OPT_SAMPLES},
                                             {"steps", required_argument, NULL, OPT_STEPS},
                                             {"time", required_argument, NULL, OPT_TIME},
                                             {"accept-damage", no_argument, NULL,
                                              OPT_ACCEPT_DAMAGE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->fmt = ssi_exporters[0];
    a->win.kind = SST_WINDOW_ALL;
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "o:f:qh", longopts)) != -1;) {
        if (c == 'h') {
            export_usage();
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'o') a->out = optarg;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) a->out_flags |= SS_OUT_FORCE;
        if (c == OPT_ACCEPT_DAMAGE) a->accept_damage = 1;
        if (c == OPT_SAMPLES && samples_option(a, optarg)) return CLI_EXIT_USAGE;
        if ((c == OPT_STEPS || c == OPT_TIME) && window_option(a, c == OPT_STEPS, optarg))
            return CLI_EXIT_USAGE;
        if (c == 'f' && !(a->fmt = ssi_exporter_find(optarg))) {
            char list[256];
            return cli_usage_error(VERB, "unknown format '%s' (%s)", optarg,
                                   format_list(list, sizeof list, 0, ", ", ", ", ""));
        }
    }
    if (argc - optind != 1) return cli_usage_error(VERB, "want one TRACE");
    if (a->samples_set && !a->fmt->takes_samples)
        return cli_usage_error(VERB, "--samples is for --format folded");
    a->in = argv[optind];
    return cli_output_beside(VERB, a->in, a->fmt->suffix, &a->out, &a->out_flags, a->default_out,
                             sizeof a->default_out);
}

/* ---- writing ---- */

struct export_job {
    const struct export_args *a;
    struct ssi_export_in in;
};

/* Says a writer's warning (a cut trace) or error on one line; -1 after an error. An error of
 * writing (a full disk) names the output and the errno's words (then the writer's, SQLite's),
 * any other the trace. */
static int say_result(const struct export_args *a, int rc, const char *msg)
{
    const char *why = ss_strerror(rc);
    if (rc && cli_output_error(rc))
        cli_error(VERB, a->out, "cannot write the export: %s%s%s", why,
                  msg[0] && strcmp(msg, why) ? "; " : "", strcmp(msg, why) ? msg : "");
    else if (rc || msg[0])
        cli_error(VERB, a->in, "%s", msg[0] ? msg : why);
    return rc ? -1 : 0;
}

static int write_stream(FILE *f, void *ctx)
{
    const struct export_job *j = ctx;
    char msg[512] = "";
    int rc = j->a->fmt->to_stream(&j->in, f, msg, sizeof msg);
    return say_result(j->a, rc, msg);
}

static int write_path(const char *tmp, void *ctx)
{
    const struct export_job *j = ctx;
    char msg[512] = "";
    int rc = j->a->fmt->to_path(&j->in, tmp, msg, sizeof msg);
    return say_result(j->a, rc, msg);
}

/* The trace analysed (full mode: every step kept) for a format that carries stepscope's
 * attribution (Perfetto, NVTXT), for the steps --steps names, or for the folded samples of a
 * window (o->host_from_ns). 0, or -1 after saying why. */
static int analyse(const struct export_args *a, struct sst_reader *r, const struct ssa_opts *o,
                   struct ssa_result **res)
{
    int rc = ssa_analyze_reader(r, a->in, o, 0, res);
    if (rc) cli_error(VERB, a->in, "cannot analyse the steps: %s", ss_strerror(rc));
    return rc ? -1 : 0;
}

/* Where --time counts from: the recording's start (an imported trace's first record). */
static uint64_t time_zero(struct sst_reader *r, const struct ssa_result *res)
{
    uint64_t start = sst_reader_header(r)->start_mono_ns;
    return start > 1 || !res ? start : res->first_ns;
}

static int needs_analysis(const struct export_args *a, struct sst_reader *r)
{
    return a->fmt->needs_analysis || a->win.kind == SST_WINDOW_STEPS ||
           (a->win.kind == SST_WINDOW_SECONDS && sst_reader_header(r)->start_mono_ns <= 1);
}

/* A window of steps the trace holds only part of: which of them the export has. */
static void say_part(const struct export_args *a, uint64_t got_lo, uint64_t got_hi)
{
    if (got_lo == a->win.from && got_hi == a->win.to) return;
    cli_error(VERB, a->in, "warning: of steps %s the trace has %" PRIu64 "-%" PRIu64
              ": the export holds those", a->win_arg, got_lo, got_hi);
}

/* The times of the steps numbered a->win.from..to: 0, or -1 after saying why. */
static int steps_span(const struct export_args *a, const struct ssa_result *res, uint64_t *from,
                      uint64_t *to)
{
    uint64_t lo = UINT64_MAX, hi = 0, first = UINT64_MAX, last = 0, got_lo = UINT64_MAX, got_hi = 0;
    for (size_t i = 0; res->step_source != SSA_STEPS_NONE && i < res->n_steps; i++) {
        const struct ssa_step_brief *b = &res->briefs[i];
        first = b->number < first ? b->number : first, last = b->number > last ? b->number : last;
        if (b->number < a->win.from || b->number > a->win.to) continue;
        lo = b->begin_ns < lo ? b->begin_ns : lo, hi = b->end_ns > hi ? b->end_ns : hi;
        got_lo = b->number < got_lo ? b->number : got_lo;
        got_hi = b->number > got_hi ? b->number : got_hi;
    }
    if (lo <= hi) {
        say_part(a, got_lo, got_hi);
        return *from = lo, *to = hi, 0;
    }
    if (first == UINT64_MAX)
        cli_error(VERB, a->in, "no steps found: --time A-B exports a part by time");
    else
        cli_error(VERB, a->in, "no step numbered %s: its steps are numbered %" PRIu64 "-%" PRIu64,
                  a->win_arg, first, last);
    return -1;
}

/* The window's times on the trace's clock and its description (NULL: the whole trace).
 * 0, or -1 after saying why. */
static int window_span(const struct export_args *a, struct sst_reader *r,
                       const struct ssa_result *res, uint64_t span[2], char *desc, size_t cap)
{
    uint64_t zero = time_zero(r, res);
    span[0] = 0, span[1] = UINT64_MAX;
    if (a->win.kind == SST_WINDOW_ALL) return 0;
    if (a->win.kind == SST_WINDOW_SECONDS)
        span[0] = zero + a->win.from, span[1] = zero + a->win.to;
    else if (steps_span(a, res, &span[0], &span[1]) != 0)
        return -1;
    int n = snprintf(desc, cap, "%s%s%s%.3f-%.3f s%s", a->win.kind == SST_WINDOW_STEPS ? "steps " : "",
                     a->win.kind == SST_WINDOW_STEPS ? a->win_arg : "",
                     a->win.kind == SST_WINDOW_STEPS ? " (" : "",
                     span[0] > zero ? (double)(span[0] - zero) / 1e9 : 0.0,
                     span[1] > zero ? (double)(span[1] - zero) / 1e9 : 0.0,
                     a->win.kind == SST_WINDOW_STEPS ? ")" : "");
    return n > 0 ? 0 : -1;
}

/* STEPSCOPE_EXPORT_WARN_MB (the table's default: 1 GiB): the size above which an export says
 * its size first. */
static double warn_bytes(void)
{
    struct sst_value mb;
    cli_setting(SST_SET_EXPORT_WARN_MB, &mb);
    return (double)mb.num * 1048576.0;
}

/* Before writing: the size the export is expected to reach, when that passes the limit. */
static void warn_size(const struct export_args *a, const struct ssi_window *w)
{
    double bytes = a->fmt->bytes_per_event * (double)w->kept_events;
    if (bytes <= warn_bytes()) return;
    char size[32];
    cli_error(VERB, a->in, "warning: this %s export will be about %s (%" PRIu64 " records)%s",
              a->fmt->name, cli_fmt_bytes(size, sizeof size, (uint64_t)bytes), w->kept_events,
              a->win_arg ? "" : "; --steps A-B or --time A-B exports a part");
}

/* A window with nothing in it, and where the trace's records are. */
static void say_nothing(const struct export_args *a, struct sst_reader *r,
                        const struct ssi_window *w, const char *desc)
{
    uint64_t zero = time_zero(r, NULL), first = w->first_ns, last = w->last_ns;
    if (zero <= 1) zero = first;
    cli_error(VERB, a->in, "nothing recorded in %s: the trace's records are at %.3f-%.3f s", desc,
              first > zero ? (double)(first - zero) / 1e9 : 0.0,
              last > zero ? (double)(last - zero) / 1e9 : 0.0);
}

/* The window's records counted (and its ranges paired), the trace's damage said before
 * anything is written (issue #41: a damaged trace is exported only with --accept-damage):
 * 0, or -1 after saying why. */
static int prepare_window(const struct export_args *a, struct sst_reader *r, const uint64_t span[2],
                          const char *desc, struct ssi_window *w)
{
    int rc = ssi_window_prepare(r, span[0], span[1], w);
    if (rc) cli_error(VERB, a->in, "cannot read the trace: %s", ss_strerror(rc));
    else if (cli_damage_said(VERB, a->in, &w->damage, a->accept_damage,
                             "nothing written (--accept-damage to export what could be read)"))
        return -1;
    else if (a->win_arg && !w->kept_events)
        say_nothing(a, r, w, desc);
    else
        return warn_size(a, w), 0;
    return -1;
}

/* The analysis the export reads, for the window: 0, or -1 after saying why. */
static int analyse_for(const struct export_args *a, struct cli_trace *t, uint64_t span[2],
                       char *desc, size_t cap, struct ssa_result **res)
{
    struct ssa_opts o = {0};
    *res = NULL;
    if (needs_analysis(a, t->r) && analyse(a, t->r, &o, res) != 0) return -1;
    if (window_span(a, t->r, *res, span, desc, cap) != 0) return -1;
    if (!a->win_arg || !a->fmt->takes_samples || a->all_samples) return 0;
    /* folded GPU-idle time: the analysis's samples, of the window's steps only */
    ssa_result_free(*res);
    o.host_from_ns = span[0], o.host_to_ns = span[1];
    return analyse(a, t->r, &o, res);
}

static int export_trace(const struct export_args *a, struct cli_trace *t)
{
    struct ssa_result *res;
    struct ssi_window w;
    uint64_t span[2];
    char desc[160] = "";
    int rc = CLI_EXIT_FAIL;
    if (analyse_for(a, t, span, desc, sizeof desc, &res) != 0) return ssa_result_free(res), rc;
    if (prepare_window(a, t->r, span, desc, &w) == 0) {
        struct export_job j = {a, {t->r, res, a->in, a->all_samples, &w, a->win_arg ? desc : NULL, NULL}};
        rc = a->fmt->to_stream
                 ? cli_write_output(VERB, a->out, "export", a->out_flags, write_stream, &j)
                 : cli_write_path(VERB, a->out, "export", a->out_flags, write_path, &j);
    }
    ssi_window_free(&w);
    ssa_result_free(res);
    return rc;
}

/* A folder (the traces of a job's ranks): one Perfetto document or nsys database, one
 * timeline. */
static int export_folder(const struct export_args *a)
{
    if (a->fmt != &ssi_export_perfetto && a->fmt != &ssi_export_nsys_sqlite)
        return cli_usage_error(VERB, "a folder exports as --format %s or %s",
                               ssi_export_perfetto.name, ssi_export_nsys_sqlite.name);
    if (a->fmt != &ssi_export_perfetto && a->win_arg)
        return cli_usage_error(VERB, "a folder exports as --format %s whole; a window (--steps, "
                               "--time) as %s", ssi_export_nsys_sqlite.name,
                               ssi_export_perfetto.name);
    return export_merged(VERB, a->fmt, a->in, a->out, a->out_flags, a->accept_damage, &a->win,
                         a->win_arg);
}

static int is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cmd_export(int argc, char **argv)
{
    struct export_args a;
    int rc = parse_export_args(argc, argv, &a);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    if (is_folder(a.in)) return export_folder(&a);
    if ((rc = cli_refuse_same_file(VERB, a.out, &a.in, 1)) != CLI_EXIT_OK) return rc;
    struct cli_trace t;
    cli_progress_begin("exporting", a.in);
    if (cli_trace_open(&t, VERB, a.in, NULL, NULL) != 0) return cli_progress_end(), CLI_EXIT_FAIL;
    rc = export_trace(&a, &t);
    cli_progress_end();
    cli_trace_close(&t);
    return rc;
}
