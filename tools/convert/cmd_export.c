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

#include "analysis/ssa.h"
#include "cmd.h"
#include "interop/ssi.h"
#include "trace/sst_reader.h"
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
    printf("usage: stepscope export TRACE [-o OUT] [--format %s]\n"
           "                        [--samples idle|all]\n"
           "\n"
           "Writes TRACE in another tool's format.\n",
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
          "      --force        replace an existing or read-only OUT\n"
          "  -q, --quiet        no 'wrote OUT (SIZE)' line\n"
          "  -h, --help         this text\n"
          "\n"
          "Exit status: 0 written, 1 the trace could not be read or OUT not written, 2 usage.\n",
          stdout);
}

struct export_args {
    const char *in, *out;
    const struct ssi_exporter *fmt;
    int all_samples, samples_set; /* --samples all; --samples given */
    unsigned out_flags;
    char default_out[PATH_MAX];
};

enum { OPT_FORCE = 1000, OPT_SAMPLES };

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
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->fmt = ssi_exporters[0];
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
        if (c == OPT_SAMPLES && samples_option(a, optarg)) return CLI_EXIT_USAGE;
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

/* Says a writer's warning (a cut trace) or error on one line; -1 after an error. */
static int say_result(const char *path, int rc, const char *msg)
{
    if (rc) cli_error(VERB, path, "%s", msg[0] ? msg : ss_strerror(rc));
    if (!rc && msg[0]) cli_error(VERB, path, "%s", msg);
    return rc ? -1 : 0;
}

static int write_stream(FILE *f, void *ctx)
{
    const struct export_job *j = ctx;
    char msg[512] = "";
    int rc = j->a->fmt->to_stream(&j->in, f, msg, sizeof msg);
    return say_result(j->a->in, rc, msg);
}

static int write_path(const char *tmp, void *ctx)
{
    const struct export_job *j = ctx;
    char msg[512] = "";
    int rc = j->a->fmt->to_path(&j->in, tmp, msg, sizeof msg);
    return say_result(j->a->in, rc, msg);
}

/* A format that carries stepscope's attribution of every step (Perfetto, NVTXT) gets the
 * trace analysed first (full mode: each step kept), from the same reader. */
static int analyse_for(const struct export_args *a, struct sst_reader *r, struct ssa_result **res)
{
    *res = NULL;
    if (!a->fmt->needs_analysis) return 0;
    struct ssa_opts o = {0};
    int rc = ssa_analyze_reader(r, a->in, &o, 0, res);
    if (rc) cli_error(VERB, a->in, "cannot analyse the steps: %s", ss_strerror(rc));
    return rc ? -1 : 0;
}

static int export_trace(const struct export_args *a, struct cli_trace *t)
{
    struct ssa_result *res;
    if (analyse_for(a, t->r, &res) != 0) return CLI_EXIT_FAIL;
    struct export_job j = {a, {t->r, res, a->in, a->all_samples}};
    int rc = a->fmt->to_stream
                 ? cli_write_output(VERB, a->out, "export", a->out_flags, write_stream, &j)
                 : cli_write_path(VERB, a->out, "export", a->out_flags, write_path, &j);
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
