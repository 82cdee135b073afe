/*
 * cmd_import.c — `stepscope import IN -o OUT.sstrace`: another tool's capture as a stepscope
 * trace, so that everything that reads traces reads it (src/interop/, docs/interop.md).
 *
 * IN is a torch.profiler (Kineto) Chrome-trace JSON, plain or gzip-compressed, or an nsys
 * SQLite export; the format is told from the first bytes, not the name. `report`, `diff`,
 * `info`, `dump` and `export` accept the same files directly (they import into a temporary
 * trace each time: import once when a large capture is read several times).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "interop/ssi.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

#define VERB "import"

static const char import_usage[] =
    "usage: stepscope import IN [-o OUT.sstrace]\n"
    "\n"
    "Converts IN into a stepscope trace: a torch.profiler (Kineto) trace, .json or .json.gz\n"
    "(streamed: files of several GB take constant memory), or an nsys SQLite export\n"
    "(nsys export --type sqlite). IN may be - (stdin) or a pipe. report, diff, info, dump\n"
    "and export also read IN directly; import once when a large capture is read several\n"
    "times.\n"
    "\n"
    "  -o, --output OUT   the trace to write (written whole, then put in place; - for\n"
    "                     stdout). Default: next to IN, IN's name with .sstrace instead\n"
    "                     of .json/.json.gz/.sqlite; an existing file there is kept\n"
    "                     unless --force\n"
    "      --force        replace an existing or read-only OUT\n"
    "  -q, --quiet        no 'wrote OUT (SIZE)' line\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 written, 1 IN could not be read or OUT not written, 2 usage error.\n";

enum { OPT_FORCE = 1000 };

struct import_args {
    const char *in, *out;
    unsigned out_flags;
    char default_out[PATH_MAX];
};

static int parse_import_args(int argc, char **argv, struct import_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "o:qh", longopts)) != -1;) {
        if (c == 'h') {
            fputs(import_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'o') a->out = optarg;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) a->out_flags |= SS_OUT_FORCE;
    }
    if (argc - optind != 1) return cli_usage_error(VERB, "want one IN file");
    a->in = argv[optind];
    return cli_output_beside(VERB, a->in, ".sstrace", &a->out, &a->out_flags, a->default_out,
                             sizeof a->default_out);
}

struct import_job {
    const char *in;   /* as given, for messages */
    const char *out;  /* as given, for messages */
    const char *file; /* what is read: in, or a stream's copy */
    int fmt;
};

/* An error of writing (a full disk) names the output, any other the input. */
static int run_importer(const char *tmp, void *ctx)
{
    const struct import_job *j = ctx;
    char err[512] = "";
    int rc = j->fmt == SSI_FMT_SQLITE ? ssi_nsys_import(j->file, tmp, err, sizeof err)
                                      : ssi_kineto_import(j->file, tmp, err, sizeof err);
    if (rc) cli_error(VERB, cli_output_error(rc) ? j->out : j->in, "%s",
                      err[0] ? err : ss_strerror(rc));
    return rc ? -1 : 0;
}

/* Which importer IN needs. The format, or -1 after one error line. */
static int input_format(const char *in, const char *file)
{
    int fmt = ssi_detect(file);
    if (fmt == SSI_FMT_OWN_JSON) {
        cli_error(VERB, in, "%s", SSI_OWN_JSON_REFUSAL);
        return -1;
    }
    if (fmt == SSI_FMT_KINETO_JSON || fmt == SSI_FMT_KINETO_GZ || fmt == SSI_FMT_SQLITE)
        return fmt;
    if (fmt == SSI_FMT_SSTRACE) {
        cli_error(VERB, in, "is already a stepscope trace");
    } else if (fmt == SSI_FMT_UNKNOWN) {
        struct stat st;
        cli_error(VERB, in, "%s",
                  stat(file, &st) == 0 && st.st_size == 0
                      ? ss_strerror(SS_EEMPTY)
                      : "neither a torch.profiler JSON trace nor an nsys SQLite export");
    } else { /* a negative ss_error: the file could not be read */
        cli_error(VERB, in, "%s", ss_strerror(fmt));
    }
    return -1;
}

static int import_file(const struct import_args *a)
{
    struct stat st;
    if (stat(a->in, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(VERB, a->in, "is a directory");
        return CLI_EXIT_FAIL;
    }
    char *file;
    int is_temp;
    if (cli_input_spool(VERB, a->in, &file, &is_temp) != 0) return CLI_EXIT_FAIL;
    int rc = CLI_EXIT_FAIL;
    struct import_job j = {a->in, a->out, file, input_format(a->in, file)};
    if (j.fmt >= 0) {
        cli_progress_begin("importing", a->in);
        rc = cli_write_path(VERB, a->out, "trace", a->out_flags, run_importer, &j);
        cli_progress_end();
    }
    cli_input_release(file, is_temp);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    struct import_args a;
    int rc = parse_import_args(argc, argv, &a);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    if ((rc = cli_refuse_same_file(VERB, a.out, &a.in, 1)) != CLI_EXIT_OK) return rc;
    return import_file(&a);
}
