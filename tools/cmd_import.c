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
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "interop/ssi.h"
#include "util/ss_error.h"

#define VERB "import"

static const char import_usage[] =
    "usage: stepscope import IN -o OUT.sstrace\n"
    "\n"
    "Converts IN into a stepscope trace: a torch.profiler (Kineto) trace, .json or .json.gz\n"
    "(streamed: files of several GB take constant memory), or an nsys SQLite export\n"
    "(nsys export --type sqlite). report, diff, info, dump and export also read IN\n"
    "directly; import once when a large capture is read several times.\n"
    "\n"
    "  -o, --output OUT   the trace to write (written whole, then renamed into place)\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 written, 1 IN could not be read or OUT not written, 2 usage error.\n";

static int parse_import_args(int argc, char **argv, const char **out)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    *out = NULL;
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "o:h", longopts)) != -1;) {
        if (c == 'h') {
            fputs(import_usage, stdout);
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'o') *out = optarg;
    }
    if (argc - optind != 1) return cli_usage_error(VERB, "want one IN file");
    if (!*out || !**out) return cli_usage_error(VERB, "missing -o OUT");
    return 0;
}

/* Runs the importer of IN's format. 0, or -1 after one error line. */
static int import_file(const char *in, const char *out)
{
    char err[512] = "";
    struct stat st;
    if (stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(VERB, in, "is a directory");
        return -1;
    }
    int fmt = ssi_detect(in), rc;
    switch (fmt) {
    case SSI_FMT_KINETO_JSON:
    case SSI_FMT_KINETO_GZ:
        rc = ssi_kineto_import(in, out, err, sizeof err);
        break;
    case SSI_FMT_SQLITE:
        rc = ssi_nsys_import(in, out, err, sizeof err);
        break;
    case SSI_FMT_SSTRACE:
        cli_error(VERB, in, "is already a stepscope trace");
        return -1;
    case SSI_FMT_UNKNOWN:
        cli_error(VERB, in, "%s",
                  stat(in, &st) == 0 && st.st_size == 0
                      ? ss_strerror(SS_EEMPTY)
                      : "neither a torch.profiler JSON trace nor an nsys SQLite export");
        return -1;
    default: /* a negative ss_error: the file could not be read */
        cli_error(VERB, in, "%s", ss_strerror(fmt));
        return -1;
    }
    if (rc) cli_error(VERB, in, "%s", err[0] ? err : ss_strerror(rc));
    return rc ? -1 : 0;
}

int cmd_import(int argc, char **argv)
{
    const char *out;
    int rc = parse_import_args(argc, argv, &out);
    if (rc == -1) return cli_finish_stdout(VERB);
    if (rc) return rc;
    return import_file(argv[optind], out) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
