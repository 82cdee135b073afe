/*
 * cmd_import.c — `stepscope import IN -o OUT.sstrace`: another tool's capture as a stepscope
 * trace, so that everything that reads traces reads it (src/interop/, docs/interop.md).
 *
 * IN is in a format of the importer table (src/interop/ssi.h: SSI_IMPORTERS: torch.profiler's
 * Kineto JSON, nsys SQLite exports), told from the first bytes, not the name; the help lists
 * the rows. `report`, `diff`, `info`, `dump` and `export` accept the same files directly (they
 * import into a temporary trace each time: import once when a large capture is read several
 * times).
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

/* One importer's --help lines: its name, its help indented under the first line, the file
 * names it comes in. */
static void format_help(const struct ssi_importer *imp)
{
    printf("  %-8s ", imp->name);
    for (const char *p = imp->help; *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        printf("%.*s\n%11s", n, p, "");
        p += n + (nl != NULL);
    }
    printf("files: %s\n", imp->suffixes);
}

static void import_usage(void)
{
    fputs("usage: stepscope import IN [-o OUT.sstrace] [--accept-damage]\n"
          "\n"
          "Converts IN, another tool's capture, into a stepscope trace. Its format is told\n"
          "from its first bytes, not its name; compressed (gzip, xz, zstd) or not:\n",
          stdout);
    for (size_t i = 0; ssi_importers[i]; i++)
        format_help(ssi_importers[i]);
    fputs("IN may be - (stdin) or a pipe. report, diff, info, dump and export also read IN\n"
          "directly; import once when a large capture is read several times.\n"
          "\n"
          "  -o, --output OUT   the trace to write (written whole, then put in place; - for\n"
          "                     stdout). Default: next to IN, IN's name with .sstrace instead\n"
          "                     of its format's suffix (files: above); an existing file\n"
          "                     there is kept unless --force\n"
          "      --force        replace an existing or read-only OUT\n"
          CLI_ACCEPT_DAMAGE_HELP
          "  -q, --quiet        no 'wrote OUT (SIZE)' line\n"
          "  -h, --help         this text\n"
          "\n"
          "A capture cut short, failing its integrity check, or holding duplicates or impossible\n"
          "values (left out) is damaged: the trace says so in DAMAGE records, every verb that\n"
          "reads it says so again.\n"
          "\n"
          "Exit status: 0 written, 1 IN could not be read, is damaged (nothing written;\n"
          "--accept-damage writes what could be read) or OUT not written, 2 usage error.\n",
          stdout);
}

enum { OPT_FORCE = 1000, OPT_ACCEPT_DAMAGE };

struct import_args {
    const char *in, *out;
    unsigned out_flags;
    int accept_damage;
    char default_out[PATH_MAX];
};

static int parse_import_args(int argc, char **argv, struct import_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"force", no_argument, NULL, OPT_FORCE},
                                             {"accept-damage", no_argument, NULL,
                                              OPT_ACCEPT_DAMAGE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_opt_reset();
    for (int c; (c = cli_getopt(VERB, argc, argv, "o:qh", longopts)) != -1;) {
        if (c == 'h') {
            import_usage();
            return -1;
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'o') a->out = optarg;
        if (c == 'q') cli_quiet = 1;
        if (c == OPT_FORCE) a->out_flags |= SS_OUT_FORCE;
        if (c == OPT_ACCEPT_DAMAGE) a->accept_damage = 1;
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
    int readable;     /* 0: an importer reads it; -1: said why not */
    int accept_damage;
};

/* The trace just written, read back by the one reader: what the importer found wrong with its
 * input is in its DAMAGE records, and whatever else the reader finds counts too. CLI_EXIT_OK,
 * or CLI_EXIT_FAIL after one line (the damage not accepted, or the trace unreadable). */
static int damage_of_import(const struct import_job *j, const char *tmp)
{
    struct sst_reader *r;
    const struct sst_rec_header *h;
    int rc = sst_reader_open(tmp, NULL, &r);
    if (rc == 0)
        while ((rc = sst_reader_next(r, &h)) == 1) continue;
    if (rc < 0) {
        cli_error(VERB, j->in, "the trace written cannot be read back: %s", ss_strerror(rc));
        sst_reader_close(r);
        return CLI_EXIT_FAIL;
    }
    struct sst_damage d;
    sst_reader_damage(r, &d);
    sst_reader_close(r);
    return cli_damage_said(VERB, j->in, &d, j->accept_damage,
                           "nothing written (--accept-damage to keep what could be read)");
}

/* An error of writing (a full disk) names the output, any other the input. */
static int run_importer(const char *tmp, void *ctx)
{
    const struct import_job *j = ctx;
    char err[512] = "";
    int rc = ssi_import(j->file, tmp, err, sizeof err);
    if (rc) cli_error(VERB, cli_output_error(rc) ? j->out : j->in, "%s",
                      err[0] ? err : ss_strerror(rc));
    if (!rc && damage_of_import(j, tmp) != CLI_EXIT_OK) return -1;
    return rc ? -1 : 0;
}

/* Whether an importer reads IN: 0, or -1 after one error line (a stepscope trace already, an
 * empty file, one of no format of the table...). */
static int importable(const char *in, const char *file)
{
    char err[512] = "";
    int rc = ssi_import_check(file, err, sizeof err);
    if (rc) cli_error(VERB, in, "%s", err[0] ? err : ss_strerror(rc));
    return rc ? -1 : 0;
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
    struct import_job j = {a->in, a->out, file, importable(a->in, file), a->accept_damage};
    if (j.readable == 0) {
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
