/*
 * cmd_dump.c — `stepscope dump`: every record of a trace, one per line.
 *
 * For looking at what a collector or a generator actually wrote. Reads in constant memory
 * (the reader streams), so it works on traces of any size. Damage does not stop it: each
 * problem is one line on stderr and the records around it are still printed.
 */
#include <string.h>

#include "cmd.h"
#include "json_out.h"
#include "rec_fields.h"
#include "text_esc.h"
#include "trace/sst_names.h"
#include "util/ss_error.h"

static const char dump_usage[] =
    "usage: stepscope dump TRACE [--json] [--type KIND[,KIND...]] [--limit N]\n"
    "                      [--accept-damage]\n"
    "\n"
    "Prints every record of TRACE, one per line, in file order. Strings are resolved and\n"
    "escaped, enums shown by name. Problems (damaged chunks, truncation) go to stderr.\n"
    "\n"
    "  -f, --format FMT    text (default) or json: JSON Lines, one object per record\n"
    "                      (--json is the same as --format json)\n"
    "  -t, --type KINDS    only these record kinds, comma-separated (e.g. kernel,memcpy)\n"
    "  -n, --limit N       stop after N records\n"
    CLI_ACCEPT_DAMAGE_HELP
    "  -h, --help          this text\n"
    "\n"
    "Exit status: 0 the trace was read whole, 1 it could not be read or is damaged,\n"
    "truncated, inconsistent or dropped records (said on stderr; --accept-damage: 0), 2 usage\n"
    "error.\n";

struct dump_opts {
    int json;
    int accept_damage;
    int has_filter;
    int n_wanted;
    unsigned char want[SST_REC_TYPE_LIMIT]; /* by record type, when has_filter */
    uint64_t limit;                         /* UINT64_MAX: all */
};

/* "string, process, ..." from the format's table, for the --type error message. */
static const char *kind_list(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT && len < cap; t++) {
        int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", sst_rec_type_name(t));
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

/* Parses "kernel,memcpy" into the filter. Returns 0, or CLI_EXIT_USAGE after a message. */
static int parse_types(const char *verb, const char *list, struct dump_opts *o)
{
    char buf[512], kinds[512], shown[64];
    if (strlen(list) >= sizeof buf) return cli_usage_error(verb, "--type list is too long");
    strcpy(buf, list);
    o->has_filter = 1;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        uint16_t t = sst_rec_type_from_name(tok);
        if (t == 0 || t >= SST_REC_TYPE_LIMIT)
            return cli_usage_error(verb, "unknown record kind '%s' in --type (kinds: %s)",
                                   text_escape_to(shown, sizeof shown, tok),
                                   kind_list(kinds, sizeof kinds));
        o->want[t] = 1;
        o->n_wanted++;
    }
    if (o->n_wanted == 0) return cli_usage_error(verb, "--type needs at least one kind");
    return 0;
}

enum { OPT_ACCEPT_DAMAGE = 1000 };

static int parse_dump_args(int argc, char **argv, struct dump_opts *o, const char **path)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             {"json", no_argument, NULL, 'J'},
                                             {"type", required_argument, NULL, 't'},
                                             {"limit", required_argument, NULL, 'n'},
                                             {"accept-damage", no_argument, NULL,
                                              OPT_ACCEPT_DAMAGE},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    char shown[64];
    memset(o, 0, sizeof *o);
    o->limit = UINT64_MAX;
    cli_opt_reset();
    for (int c; (c = cli_getopt("dump", argc, argv, "f:t:n:h", longopts)) != -1;) {
        if (c == 'h') {
            fputs(dump_usage, stdout);
            return -1; /* --help: done, success */
        }
        if (c == 'J') o->json = 1;
        if (c == OPT_ACCEPT_DAMAGE) o->accept_damage = 1;
        if (c == 'f' && cli_parse_text_json("dump", optarg, &o->json) != 0) return CLI_EXIT_USAGE;
        if (c == 't' && parse_types("dump", optarg, o)) return CLI_EXIT_USAGE;
        if (c == 'n' && cli_parse_u64(optarg, &o->limit) < 0)
            return cli_usage_error("dump", "--limit needs a whole number, not '%s'",
                                   text_escape_to(shown, sizeof shown, optarg));
        if (c == '?') return CLI_EXIT_USAGE;
    }
    if (optind >= argc) return cli_usage_error("dump", "missing TRACE");
    if (argc - optind > 1)
        return cli_usage_error("dump", "takes one TRACE (got %d)", argc - optind);
    *path = argv[optind];
    return 0;
}

/* The reader calls this for each damaged chunk and for truncation: one stderr line each
 * (its message names the chunk and offset), then dumping goes on. */
static void report_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    (void)offset;
    if (err == SS_ETRUNC) return; /* the damage line at the end says where it stops */
    cli_error("dump", (const char *)ctx, "%s", msg);
}

static int dump_records(struct sst_reader *r, const struct dump_opts *o)
{
    struct json_out j;
    struct rec_sink sink = {.f = stdout, .json = o->json ? &j : NULL, .rd = r};
    const struct sst_rec_header *h;
    uint64_t shown = 0;
    int rc = 0;
    json_init(&j, stdout, 0);
    while (shown < o->limit && (rc = sst_reader_next(r, &h)) == 1) {
        if (o->has_filter && (h->type >= SST_REC_TYPE_LIMIT || !o->want[h->type])) continue;
        rec_print(&sink, h);
        shown++;
        if (ferror(stdout)) break; /* disk full or closed pipe: stop now, reported after */
    }
    return rc < 0 ? rc : 0;
}

/* The input's damage, once all of it was read (--limit stops early: the rest is read for it,
 * unprinted, so a cut or a hole after the last record shown is still said). */
static int damage_said(struct cli_trace *t, const struct dump_opts *o, const char *path)
{
    const struct sst_rec_header *h;
    while (sst_reader_next(t->r, &h) == 1) continue;
    struct sst_damage d;
    sst_reader_damage(t->r, &d);
    return cli_damage_said("dump", path, &d, o->accept_damage,
                           "what could be read was printed (--accept-damage to accept it)");
}

int cmd_dump(int argc, char **argv)
{
    struct dump_opts o;
    const char *path = NULL;
    int rc = parse_dump_args(argc, argv, &o, &path);
    if (rc == -1) return cli_finish_stdout("dump");
    if (rc) return rc;
    struct cli_trace t;
    if (cli_trace_open_all(&t, "dump", path, report_problem, (void *)path) < 0)
        return CLI_EXIT_FAIL;
    rc = dump_records(t.r, &o);
    if (rc < 0) cli_error("dump", path, "reading stopped: %s", ss_strerror(rc));
    int out = cli_finish_stdout("dump");
    int dmg = rc < 0 ? CLI_EXIT_OK : damage_said(&t, &o, path);
    cli_trace_close(&t);
    return rc < 0 ? CLI_EXIT_FAIL : out != CLI_EXIT_OK ? out : dmg;
}
