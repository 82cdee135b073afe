/* cli_util.c — helpers shared by the verbs; see cmd.h. */
#include "cmd.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interop/ssi.h"
#include "text_esc.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

int cli_quiet; /* -q: no "wrote PATH (SIZE)" lines */

/* "wrote PATH (SIZE)" on stderr for a file (not a stream), unless -q. */
static void say_wrote(const char *path, int stream, off_t size)
{
    if (cli_quiet || stream) return;
    char name[PATH_MAX + 64], sz[32];
    text_escape_to(name, sizeof name, path);
    fprintf(stderr, "wrote %s (%s)\n", name, cli_fmt_bytes(sz, sizeof sz, (uint64_t)size));
}

int cli_write_path(const char *verb, const char *file, const char *what, unsigned flags,
                   cli_path_writer write, void *ctx)
{
    struct ss_out o;
    char err[PATH_MAX + 128] = "";
    int fd = ss_out_begin(&o, file, flags, err, sizeof err);
    if (fd < 0) {
        cli_error(verb, file, "%s", err);
        return CLI_EXIT_FAIL;
    }
    close(fd);
    if (write(o.tmp, ctx) != 0) { /* it said why */
        ss_out_abort(&o);
        return CLI_EXIT_FAIL;
    }
    struct stat st;
    off_t size = stat(o.tmp, &st) == 0 ? st.st_size : 0;
    int stream = o.stream_fd >= 0;
    char shown[PATH_MAX];
    snprintf(shown, sizeof shown, "%s", o.path);
    if (ss_out_commit(&o, err, sizeof err) != 0) {
        cli_error(verb, file, "cannot write the %s: %s", what, err);
        return CLI_EXIT_FAIL;
    }
    say_wrote(shown, stream, size);
    return CLI_EXIT_OK;
}

struct stream_job {
    const char *verb, *file, *what;
    int (*write)(FILE *f, void *ctx);
    void *ctx;
};

/* The FILE variant: the content goes through stdio into the temporary file. */
static int write_stream(const char *tmp, void *arg)
{
    struct stream_job *j = arg;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cli_error(j->verb, j->file, "cannot write the %s: %s", j->what, strerror(errno));
        return -1;
    }
    int failed = j->write(f, j->ctx) != 0;
    int bad = ferror(f), e = errno;
    if (fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (bad) cli_error(j->verb, j->file, "cannot write the %s: %s", j->what, strerror(e));
    return bad || failed ? -1 : 0;
}

int cli_write_output(const char *verb, const char *file, const char *what, unsigned flags,
                     int (*write)(FILE *f, void *ctx), void *ctx)
{
    struct stream_job j = {verb, file, what, write, ctx};
    return cli_write_path(verb, file, what, flags, write_stream, &j);
}

int cli_output_error(int rc)
{
    return rc == SS_ENOSPC || rc == SS_EFBIG;
}

int cli_refuse_same_file(const char *verb, const char *out, const char *const *inputs, size_t n)
{
    for (size_t i = 0; out && i < n; i++)
        if (ss_out_same_file(out, inputs[i])) {
            cli_error(verb, out, "is also an input (%s): refusing to overwrite it",
                      inputs[i]);
            return CLI_EXIT_USAGE;
        }
    return CLI_EXIT_OK;
}

void cli_error(const char *verb, const char *file, const char *fmt, ...)
{
    char name[512];
    va_list ap;
    fflush(stdout);    /* keep stdout and stderr in order when both go to a terminal */
    flockfile(stderr); /* one whole line: `report` loads traces on several threads */
    fprintf(stderr, "stepscope %s: ", verb);
    if (file) fprintf(stderr, "%s: ", text_escape_to(name, sizeof name, file));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    funlockfile(stderr);
}

/* The message is escaped whole (the arguments it quotes are the user's: control bytes and
 * newlines would break the one line, or reach the terminal as escape codes); no format
 * string of the CLI holds a double quote or a backslash, which escaping would change. */
int cli_usage_error(const char *verb, const char *fmt, ...)
{
    char msg[1024], esc[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "stepscope %s: %s (try 'stepscope %s --help')\n", verb,
            text_escape_to(esc, sizeof esc, msg), verb);
    return CLI_EXIT_USAGE;
}

void cli_opt_reset(void)
{
    optind = 0; /* glibc: 0 re-initialises getopt's internal state completely */
    opterr = 0; /* we print our own one-line messages */
}

/* How the option that getopt just rejected was spelled (cli_usage_error escapes it). */
static const char *bad_option_text(int argc, char **argv, char *buf, size_t cap)
{
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (optopt != 0 && strncmp(arg, "--", 2) != 0) {
        snprintf(buf, cap, "-%c", optopt > 32 && optopt < 127 ? optopt : '?');
        return buf;
    }
    return arg;
}

int cli_getopt(const char *verb, int argc, char **argv, const char *shortopts,
               const struct option *longopts)
{
    char spec[128];
    char what[256];
    /* A leading ':' makes getopt tell a missing argument (':') from an unknown option; a
     * leading '+' (options end at the first operand) must stay in front of it. */
    if (shortopts[0] == '+')
        snprintf(spec, sizeof spec, "+:%s", shortopts + 1);
    else
        snprintf(spec, sizeof spec, ":%s", shortopts);
    int c = getopt_long(argc, argv, spec, longopts, NULL);
    if (c == ':') {
        cli_usage_error(verb, "option '%s' needs a value",
                        bad_option_text(argc, argv, what, sizeof what));
        return '?';
    }
    if (c == '?') {
        cli_usage_error(verb, "unknown option '%s'",
                        bad_option_text(argc, argv, what, sizeof what));
        return '?';
    }
    return c;
}

int cli_setting(enum sst_setting_id id, struct sst_value *v)
{
    static unsigned char said[SST_N_SETTINGS];
    const char *text = getenv(sst_settings[id].env);
    int rc = sst_setting_parse(id, text, v);
    if (rc < 0 && !said[id]) {
        char msg[512];
        sst_setting_problem(id, text, msg, sizeof msg);
        fprintf(stderr, "stepscope: %s\n", msg);
        said[id] = 1;
    }
    return rc;
}

int cli_parse_text_json(const char *verb, const char *arg, int *json)
{
    if (strcmp(arg, "text") == 0 || strcmp(arg, "json") == 0) {
        *json = arg[0] == 'j';
        return 0;
    }
    return cli_usage_error(verb, "unknown format '%s' (text or json)", arg);
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') return -1; /* strtoull would accept "-1" and " 1" */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0') return -1;
    *out = v;
    return 0;
}

/* Routes the reader's problems: kept while opening, passed on afterwards. */
static void trace_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    struct cli_trace *t = ctx;
    if (!t->opened)
        snprintf(t->open_detail, sizeof t->open_detail, "%s", msg);
    else if (t->on_problem)
        t->on_problem(t->problem_ctx, err, offset, msg);
}

/* The file to read for path: path itself (or a stream's copy), or a foreign capture imported
 * (ssi_open_any). */
static int resolve_input(struct cli_trace *t)
{
    char err[512] = "";
    if (cli_input_spool(t->verb, t->path, &t->spool_path, &t->spool_is_temp) != 0) return -1;
    int rc = ssi_open_input(t->spool_path, &t->fd, &t->local_path, &t->local_is_temp, err,
                            sizeof err);
    if (rc && cli_output_error(rc)) /* the temporary import's folder failed, not the input */
        cli_error(t->verb, ss_tmp_dir(), "cannot write the temporary trace imported from %s "
                  "here: %s", t->path, ss_strerror(rc));
    else if (rc)
        cli_error(t->verb, t->path, "%s", err[0] ? err : ss_strerror(rc));
    return rc ? -1 : 0;
}

/* The reader over what resolve_input opened: the input's descriptor (the file is opened once
 * per command), or the import; mapped (two passes, no copy out of the page cache). */
static int open_reader(struct cli_trace *t, const struct sst_reader_opts *opts)
{
    int fd = t->fd;
    t->fd = -1;
    if (fd >= 0) return sst_reader_open_fd(fd, opts, SST_READ_MAP, &t->r);
    return sst_reader_open_ex(t->local_path, opts, SST_READ_MAP, &t->r);
}

static int trace_open(struct cli_trace *t, const char *verb, const char *path,
                      sst_problem_fn on_problem, void *problem_ctx, int show_all);

int cli_trace_open(struct cli_trace *t, const char *verb, const char *path,
                   sst_problem_fn on_problem, void *problem_ctx)
{
    return trace_open(t, verb, path, on_problem, problem_ctx, 0);
}

int cli_trace_open_all(struct cli_trace *t, const char *verb, const char *path,
                       sst_problem_fn on_problem, void *problem_ctx)
{
    return trace_open(t, verb, path, on_problem, problem_ctx, 1);
}

static int trace_open(struct cli_trace *t, const char *verb, const char *path,
                      sst_problem_fn on_problem, void *problem_ctx, int show_all)
{
    *t = (struct cli_trace){.verb = verb,
                            .path = path,
                            .on_problem = on_problem,
                            .problem_ctx = problem_ctx,
                            .fd = -1};
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(verb, path, "is a directory, not a trace file");
        return -1;
    }
    if (resolve_input(t) != 0) {
        cli_trace_close(t); /* what the spool or the import made so far */
        return -1;
    }
    struct sst_reader_opts opts = {.on_problem = trace_problem, .problem_ctx = t,
                                   .show_inconsistent = show_all};
    int rc = open_reader(t, &opts);
    if (rc < 0) {
        if (t->open_detail[0])
            cli_error(verb, path, "%s (%s)", ss_strerror(rc), t->open_detail);
        else
            cli_error(verb, path, "%s", ss_strerror(rc));
        t->r = NULL;
        cli_trace_close(t);
        return -1;
    }
    t->opened = 1;
    return 0;
}

void cli_trace_close(struct cli_trace *t)
{
    sst_reader_close(t->r);
    t->r = NULL;
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
    cli_input_release(t->local_path, t->local_is_temp);
    t->local_path = NULL;
    t->local_is_temp = 0;
    cli_input_release(t->spool_path, t->spool_is_temp);
    t->spool_path = NULL;
    t->spool_is_temp = 0;
}

/* The output named after in (see cli_output_beside); -1 when in has no name or it does not fit. */
static int default_output(const char *in, const char *suffix, char *out, size_t cap)
{
    struct stat st;
    if (strcmp(in, "-") == 0 || (stat(in, &st) == 0 && !S_ISREG(st.st_mode))) return -1;
    size_t len = strlen(in) - ssi_input_suffix_len(in); /* the importers' rows name them */
    int w = snprintf(out, cap, "%.*s%s", (int)len, in, suffix);
    return w > 0 && (size_t)w < cap ? 0 : -1;
}

int cli_output_beside(const char *verb, const char *in, const char *suffix, const char **out,
                      unsigned *flags, char *buf, size_t cap)
{
    if (*out && !**out) return cli_usage_error(verb, "empty -o OUT");
    if (*out) return 0;
    if (default_output(in, suffix, buf, cap) != 0)
        return cli_usage_error(verb, "cannot name an output for '%s': give -o OUT", in);
    *out = buf;
    *flags |= SS_OUT_NO_CLOBBER;
    return 0;
}

int cli_finish_stdout(const char *verb)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error(verb, NULL, "cannot write the output: %s", strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

const char *cli_fmt_duration(char *buf, size_t cap, uint64_t ns)
{
    if (ns < 1000)
        snprintf(buf, cap, "%" PRIu64 "ns", ns);
    else if (ns < 1000000)
        snprintf(buf, cap, "%.1fus", ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, cap, "%.2fms", ns / 1e6);
    else
        snprintf(buf, cap, "%.3fs", ns / 1e9);
    return buf;
}

const char *cli_fmt_bytes(char *buf, size_t cap, uint64_t bytes)
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%" PRIu64 " B", bytes);
        return buf;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", v, units[u]);
    return buf;
}
