/*
 * cmd_record.c — `stepscope record`: run a program with the collector injected.
 *
 *   stepscope record [OPTIONS] [--] PROGRAM [ARGS...]    (the options: RECORD_OPTIONS below)
 *
 * It checks the output folder before starting anything (a run that cannot be recorded is
 * refused, not wasted), points CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH at
 * libstepscope.so ($STEPSCOPE_LIB, else ../lib/stepscope from this executable's folder as
 * `cmake --install` and the pip wheel lay it out, else beside it in the build tree) (unless another tool such as nsys already named its own library there: that
 * one stays, record says so in one line, and with both taken runs the program unchanged and
 * writes no trace), puts the Python shim first on PYTHONPATH (and STEPSCOPE_MARKERS_LIB at the
 * libstepscope_markers.so next to libstepscope.so), runs the program as a job of its own
 * (tools/record_job.c: its own process group and the terminal, the signals sent to record
 * forwarded once, Ctrl-Z stops mirrored), and exits as the program did. Then it prints on
 * stderr where the traces are, a short summary read back from them and the text report of
 * the started process's trace (--no-report: without it). The collector's
 * settings travel in STEPSCOPE_* environment variables (read in src/collect/ssc_config.c), each
 * named by its row of the settings table (src/trace/sst_settings.h; the options:
 * record_options.c).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "record_job.h"
#include "record_options.h"
#include "report.h"
#include "text_esc.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

#define VERB "record"

/* record's own status when the program succeeded and the recording did not (issue #29): the
 * program's status is never hidden, and a recording that failed is never a success. */
#define REC_EXIT_RECORDING_FAILED 3

/* ---- output folder ---------------------------------------------------------------------- */

/* The folders record made (mkdir -p): removed again, when empty, if the run wrote nothing. */
static size_t g_made_top_len; /* length of the topmost folder made in the path; 0: none */

static int make_one(const char *p, size_t len)
{
    if (mkdir(p, 0700) == 0) {
        if (!g_made_top_len) g_made_top_len = len;
        return 0;
    }
    return errno == EEXIST ? 0 : -1;
}

/* mkdir -p, mode 0700 for every folder made. */
static int make_dirs(const char *dir)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return errno = ENAMETOOLONG, -1;
    for (char *c = p + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (make_one(p, (size_t)(c - p)) != 0) return -1;
        *c = '/';
    }
    return make_one(p, strlen(p));
}

/* Removes the empty folders of dir that make_dirs made, deepest first. */
static void remove_made_dirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (size_t len = strlen(p); g_made_top_len && len >= g_made_top_len;) {
        if (rmdir(p) != 0) return;
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) return;
        *slash = '\0';
        len = (size_t)(slash - p);
    }
}

/* Creates dir and its parents (mode 0700) and proves it writable by creating a file in it.
 * Fills abs with its absolute path. */
static int prepare_out_dir(const char *dir, char *abs, size_t cap)
{
    if (make_dirs(dir) != 0) {
        cli_error(VERB, dir, "cannot create the output folder: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error(VERB, dir, "the output path exists and is not a folder");
        return -1;
    }
    char probe[PATH_MAX];
    int slot = -1, fd = ss_tmp_template(probe, sizeof probe, dir, ".stepscope-probe") == 0
                            ? ss_tmp_mkstemp(probe, &slot) : -1;
    if (fd < 0) {
        cli_error(VERB, dir, "cannot write into the output folder: %s", strerror(errno));
        return -1;
    }
    close(fd);
    unlink(probe);
    ss_tmp_untrack(slot);
    char *r = realpath(dir, NULL);
    if (!r || strlen(r) >= cap) {
        free(r);
        cli_error(VERB, dir, "cannot resolve the output folder's path");
        return -1;
    }
    snprintf(abs, cap, "%s", r);
    free(r);
    return 0;
}

static void default_out_dir(char *buf, size_t cap)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, cap, "stepscope-%Y%m%d-%H%M%S", &tm);
}

/* ---- environment of the program --------------------------------------------------------- */

/* libstepscope.so: $STEPSCOPE_LIB (the user's word wins, also over an installed copy), else
 * the installed layout, else the build tree (cli_find_collector). */
static int find_collector(char *out, size_t cap)
{
    if (cli_find_collector(out, cap) == 0) return 0;
    struct sst_value env;
    cli_setting(SST_SET_LIB, &env);
    cli_error(VERB, env.text[0] ? env.text : NULL,
              "collector library not found (looked in its installed folder from stepscope's "
              "folder and beside it; was it built with the CUDA toolkit? STEPSCOPE_LIB names it)");
    return -1;
}

/* The Python shim folder: $STEPSCOPE_PYTHON_DIR, the installed layout's python/, else this
 * build's source tree. */
static int find_python_dir(char *out, size_t cap)
{
    struct sst_value env;
    struct stat st;
    if (cli_setting(SST_SET_PYTHON_DIR, &env) > 0) {
        snprintf(out, cap, "%s", env.text);
    } else if (cli_find_companion("python", out, cap) != 0) {
#ifdef STEPSCOPE_PYTHON_DIR_DEFAULT
        snprintf(out, cap, "%s", STEPSCOPE_PYTHON_DIR_DEFAULT);
#else
        return -1;
#endif
    }
    return stat(out, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int prepend_pythonpath(void)
{
    char dir[PATH_MAX];
    if (find_python_dir(dir, sizeof dir) != 0) {
        fprintf(stderr, "stepscope record: the Python shim was not found: no automatic step "
                        "markers for Python programs\n");
        return 0;
    }
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(dir) + (old ? strlen(old) : 0) + 2;
    char *val = malloc(n);
    if (!val) return -1;
    snprintf(val, n, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("PYTHONPATH", val, 1);
    free(val);
    return rc;
}

/* STEPSCOPE_MARKERS_LIB for the shim: libstepscope_markers.so from the collector's folder,
 * unless the user set one. Not found: left unset, and the shim says what it lacks. */
static int set_markers_lib(const char *collector)
{
    struct sst_value old;
    if (cli_setting(SST_SET_MARKERS_LIB, &old) > 0) return 0;
    char path[PATH_MAX + 32];
    const char *slash = strrchr(collector, '/');
    int dirlen = slash ? (int)(slash - collector) : 0;
    snprintf(path, sizeof path, "%.*s/libstepscope_markers.so", dirlen, collector);
    if (!slash || access(path, R_OK) != 0) return 0;
    return setenv(sst_settings[SST_SET_MARKERS_LIB].env, path, 1);
}

/* ---- injection variables another tool already set --------------------------------------- */

/* The CUDA driver and NVTX each load ONE injection library, named by these variables. A tool
 * that runs record (nsys, another profiler) has put its own there: replacing it would take
 * the GPU (or NVTX) away from that tool without a word, so record leaves it and records what
 * still reaches the collector. The collector learns it from STEPSCOPE_FOREIGN_* and marks
 * its trace (src/collect/ssc_core.c). */
struct injection {
    const char *cuda; /* CUDA_INJECTION64_PATH of another tool, NULL: ours to set */
    const char *nvtx; /* NVTX_INJECTION64_PATH of another tool, NULL: ours to set */
};

/* var's value when it names a library other than lib; NULL when unset, empty or lib itself
 * (a record inside record, a link to lib). A path that does not resolve is another tool's:
 * the user set it, the driver's answer to it is not ours to change. */
static const char *foreign_injection(const char *var, const char *lib)
{
    const char *v = getenv(var);
    if (!v || !*v) return NULL;
    char *r = realpath(v, NULL);
    int ours = r && strcmp(r, lib) == 0;
    free(r);
    return ours ? NULL : v;
}

/* One line on stderr, before the program starts, saying who keeps what. */
static void say_foreign(const struct injection *in)
{
    char c[512], n[512];
    if (in->cuda) text_escape_to(c, sizeof c, in->cuda);
    if (in->nvtx) text_escape_to(n, sizeof n, in->nvtx);
    if (in->cuda && in->nvtx)
        cli_error(VERB, NULL,
                  "CUDA_INJECTION64_PATH (%s) and NVTX_INJECTION64_PATH (%s) name another "
                  "tool, which keeps the GPU activity and the NVTX ranges: no stepscope trace "
                  "will be written for this run",
                  c, n);
    else if (in->cuda)
        cli_error(VERB, NULL,
                  "CUDA_INJECTION64_PATH names another tool (%s), which keeps the GPU "
                  "activity: stepscope records NVTX ranges and host data only",
                  c);
    else if (in->nvtx)
        cli_error(VERB, NULL,
                  "NVTX_INJECTION64_PATH names another tool (%s), which keeps the NVTX ranges "
                  "(step markers): stepscope records GPU activity and host data only",
                  n);
}

/* var=lib; or, when another tool holds var, mark=its library for the collector. Without one,
 * mark is removed, so that a value from an outer record cannot linger. */
static int set_injection_var(const char *var, const char *mark, const char *foreign,
                             const char *lib)
{
    if (foreign) return setenv(mark, foreign, 1);
    return setenv(var, lib, 1) | unsetenv(mark);
}

static int set_injection(const struct injection *in, const char *lib)
{
    return set_injection_var("CUDA_INJECTION64_PATH",
                             sst_settings[SST_SET_FOREIGN_CUDA_INJECTION].env, in->cuda, lib) |
           set_injection_var("NVTX_INJECTION64_PATH",
                             sst_settings[SST_SET_FOREIGN_NVTX_INJECTION].env, in->nvtx, lib);
}

static int set_environment(const struct record_opts *o, const char *out_abs, const char *lib,
                           const struct injection *in)
{
    struct record_opts said = *o;
    said.v[SST_SET_OUTPUT_DIR] = out_abs; /* the collector gets the folder resolved */
    int rc = set_injection(in, lib) | record_set_variables(&said);
    if (!o->v[SST_SET_NO_PYTHON_SHIM]) rc |= prepend_pythonpath() | set_markers_lib(lib);
    if (rc != 0) cli_error(VERB, NULL, "cannot set the environment: %s", strerror(errno));
    return rc;
}

/* ---- summary ---------------------------------------------------------------------------- */

struct trace_sum {
    uint64_t records, dropped;
    int write_failed; /* a WRITE_ERROR notice: what was lost is not all counted */
    const char *notices[8];
    int nnotices;
};

static void sum_notice(struct sst_reader *r, const struct sst_rec_notice *n, struct trace_sum *s)
{
    s->write_failed |= n->code == SST_NOTICE_WRITE_ERROR;
    const char *msg = sst_reader_string(r, n->message, NULL);
    for (int i = 0; msg && i < s->nnotices; i++)
        if (strcmp(s->notices[i], msg) == 0) msg = NULL;
    if (msg && s->nnotices < 8) s->notices[s->nnotices++] = msg;
}

static void sum_record(struct sst_reader *r, const struct sst_rec_header *h, struct trace_sum *s)
{
    s->records++;
    if (h->type == SST_REC_DROPPED) {
        struct sst_rec_dropped d;
        sst_rec_load(h, &d, sizeof d);
        s->dropped += d.count;
    } else if (h->type == SST_REC_NOTICE) {
        struct sst_rec_notice n;
        sst_rec_load(h, &n, sizeof n);
        sum_notice(r, &n, s);
    }
}

/* "N dropped", or the END chunk's count when larger. A trace that was never closed (the disk
 * filled up, the process was killed) lost what came after its last chunk: nothing counted
 * that, so the number is unknown, not 0. */
static void dropped_text(const struct trace_sum *s, const struct sst_read_status *st, char *buf,
                         size_t cap)
{
    uint64_t n = s->dropped;
    if (st->closed && st->end.dropped > n) n = st->end.dropped;
    if (!st->closed || s->write_failed)
        snprintf(buf, cap, "%llu dropped and an unknown number lost (%s)", (unsigned long long)n,
                 s->write_failed ? "writing failed" : "the trace was not closed");
    else
        snprintf(buf, cap, "%llu dropped", (unsigned long long)n);
}

static void summarise_file(const char *dir, const char *name)
{
    char path[PATH_MAX + 256], dropped[96];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct sst_reader *r;
    int rc = sst_reader_open(path, NULL, &r);
    if (rc < 0) {
        fprintf(stderr, "stepscope:   %s: unreadable (%s)\n", name, ss_strerror(rc));
        return;
    }
    struct trace_sum s = {0};
    const struct sst_rec_header *h;
    while (sst_reader_next(r, &h) == 1)
        sum_record(r, h, &s);
    dropped_text(&s, sst_reader_status(r), dropped, sizeof dropped);
    fprintf(stderr, "stepscope:   %s: %llu records, %s, %s\n", name,
            (unsigned long long)s.records, dropped, sst_reader_state_line(r));
    for (int i = 0; i < s.nnotices; i++)
        fprintf(stderr, "stepscope:     notice: %s\n", s.notices[i]);
    sst_reader_close(r);
}

/* ---- whether the recording itself failed (issue #29, #41) ------------------------------------ */

/* What this run's traces say about CUDA. */
static struct {
    /* The first trace whose CUPTI could not record (unavailable: a failed start, a CUDA or
     * driver mismatch, too few privileges; conflict: nsys or another tool held CUPTI), and the
     * collector's own words for it. */
    char cupti_failure[512];
    int cuda_started;   /* a process started CUDA: ENV collector.api, written at CUDA's start */
    int cuda_runtime;   /* a process loaded a CUDA runtime: ENV runtime_version */
    int driver_version; /* ENV driver_version of a process that loaded libcuda, else 0 */
} g_run;

static void check_env(struct sst_reader *r, const struct sst_rec_header *h)
{
    struct sst_rec_env e;
    sst_rec_load(h, &e, sizeof e);
    const char *key = sst_reader_string(r, e.key, NULL), *v = sst_reader_string(r, e.value, NULL);
    if (!key) return;
    g_run.cuda_started |= strcmp(key, "collector.api") == 0;
    g_run.cuda_runtime |= strcmp(key, "runtime_version") == 0;
    if (strcmp(key, "driver_version") == 0 && v) g_run.driver_version = atoi(v);
}

static void check_notice(struct sst_reader *r, const struct sst_rec_header *h, const char *name)
{
    struct sst_rec_notice n;
    sst_rec_load(h, &n, sizeof n);
    const char *msg = sst_reader_string(r, n.message, NULL);
    if (!g_run.cupti_failure[0] &&
        (n.code == SST_NOTICE_CUPTI_UNAVAILABLE || n.code == SST_NOTICE_CUPTI_CONFLICT))
        snprintf(g_run.cupti_failure, sizeof g_run.cupti_failure, "%s: %s", name,
                 msg ? msg : "?");
}

static void check_file(const char *dir, const char *name)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct sst_reader *r;
    const struct sst_rec_header *h;
    if (sst_reader_open(path, NULL, &r) < 0) return;
    while (sst_reader_next(r, &h) == 1)
        if (h->type == SST_REC_ENV)
            check_env(r, h);
        else if (h->type == SST_REC_NOTICE)
            check_notice(r, h, name);
    sst_reader_close(r);
}

/* Why GPU activity could not be recorded when no process of the run started CUDA although one
 * may have tried (no trace at all: what the program did is unknown; or a trace whose process
 * loaded a CUDA runtime): the driver's cause in out, else "". */
static void cuda_cause(int traces, char *out, size_t cap)
{
    out[0] = '\0';
    if (!g_run.cuda_started && (traces == 0 || g_run.cuda_runtime))
        record_driver_problem(out, cap);
}

/* ---- which traces are this run's ---------------------------------------------------------- */

static int is_trace_file(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 8 && strcmp(name + len - 8, ".sstrace") == 0;
}

/* The .sstrace names in dir before the run. The collector never replaces a file (it picks
 * another name), so a name not in the list was written by this run. */
static void snapshot_traces(const char *dir, struct trace_names *before)
{
    DIR *d = opendir(dir);
    before->n = 0;
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_trace_file(de->d_name)) continue;
        if (before->n == before->cap) {
            size_t cap = before->cap ? 2 * before->cap : 16;
            char **v = realloc(before->v, cap * sizeof *v);
            if (!v) break;
            before->v = v, before->cap = cap;
        }
        if (!(before->v[before->n] = strdup(de->d_name))) break;
        before->n++;
    }
    closedir(d);
}

static void free_names(struct trace_names *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->v[i]);
    free(t->v);
}

int record_trace_is_new(const struct trace_names *before, const char *name)
{
    if (!is_trace_file(name)) return 0;
    for (size_t i = 0; before && i < before->n; i++)
        if (strcmp(before->v[i], name) == 0) return 0;
    return 1;
}

/* Calls each for every trace of this run in dir (sorted by name); returns how many. */
static int each_new_trace(const char *dir, const struct trace_names *before,
                          void (*each)(const char *dir, const char *name))
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), found = 0;
    for (int i = 0; i < n; i++) {
        if (record_trace_is_new(before, names[i]->d_name)) {
            if (each) each(dir, names[i]->d_name);
            found++;
        }
        free(names[i]);
    }
    if (n >= 0) free(names);
    return found;
}

/* cuda_foreign: another tool kept CUDA_INJECTION64_PATH, so only NVTX could make a trace;
 * no_cuda: why CUDA could not start here (cuda_cause), or "". */
static void summarise(const char *dir, const struct trace_names *before, int cuda_foreign,
                      const char *no_cuda)
{
    if (each_new_trace(dir, before, NULL) == 0) {
        if (no_cuda[0])
            fprintf(stderr, "stepscope: no trace: the program made no NVTX call, and no CUDA "
                            "call can start here: %s\n", no_cuda);
        else
            fprintf(stderr, "stepscope: no trace: the program made no %s\n",
                    cuda_foreign ? "NVTX call (its CUDA calls went to the other tool)"
                                 : "CUDA or NVTX call");
        return;
    }
    fprintf(stderr, "stepscope: traces in %s\n", dir);
    each_new_trace(dir, before, summarise_file);
    if (no_cuda[0])
        fprintf(stderr, "stepscope: no GPU activity: the program loaded the CUDA runtime, but "
                        "CUDA cannot start here: %s\n", no_cuda);
}

/* "the program was killed by SIGSEGV after 10 ms": a crash must not pass for a normal end. */
static void say_how_it_ended(int status, const struct timespec *t0)
{
    if (!WIFSIGNALED(status)) return;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms_run = (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
    const char *abbrev = sigabbrev_np(WTERMSIG(status));
    char dur[32];
    cli_fmt_duration(dur, sizeof dur, (uint64_t)(ms_run * 1e6));
    fprintf(stderr, "stepscope: the program was killed by %s%s after %s%s: its traces hold what "
                    "was recorded until then\n",
            abbrev ? "SIG" : "signal ", abbrev ? abbrev : "?", dur,
            WCOREDUMP(status) ? " (core dumped)" : "");
}

/* The program's status as ours: its exit code, or the same signal (128+sig as a fallback). */
static int exit_like(int status)
{
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (!WIFSIGNALED(status)) return CLI_EXIT_FAIL;
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* the program's crash, not ours: no second core file */
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig;
}

/* The driver's words for a recording that failed in a process where CUDA started: CUPTI 13
 * on a driver older than CUDA 13 (ENV driver_version). "" otherwise. */
static const char *old_driver_note(char *buf, size_t cap)
{
    int v = g_run.driver_version;
    buf[0] = '\0';
    if (v > 0 && v < 13000)
        snprintf(buf, cap, "; the NVIDIA driver supports CUDA %d.%d, older than the CUDA 13 "
                 "stepscope's CUPTI needs (driver R580 or newer)", v / 1000, (v % 1000) / 10);
    return buf;
}

/* record's exit status: the program's, except that a successful program recorded in vain is
 * not a success of record's (the program's own failure always wins). */
static int record_status(int status, const char *no_cuda)
{
    char note[160];
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return exit_like(status);
    if (g_run.cupti_failure[0]) {
        cli_error(VERB, NULL, "the recording failed (%s%s): GPU activity was not recorded; the "
                  "program itself succeeded", g_run.cupti_failure,
                  old_driver_note(note, sizeof note));
        return REC_EXIT_RECORDING_FAILED;
    }
    if (no_cuda[0]) {
        cli_error(VERB, NULL, "the recording failed: CUDA cannot start here: %s; GPU activity "
                  "was not recorded, the program itself succeeded", no_cuda);
        return REC_EXIT_RECORDING_FAILED;
    }
    return exit_like(status);
}

/* Whether argv0 names a program execvp would run: a path, or a name found on PATH. 0, or the
 * shell's exit status for it (127 not found, 126 not executable) after one line. */
static int check_program(const char *argv0)
{
    struct stat st;
    if (strchr(argv0, '/')) {
        if (stat(argv0, &st) != 0)
            return cli_error(VERB, argv0, "command not found (%s)", strerror(errno)), 127;
        if (S_ISDIR(st.st_mode) || access(argv0, X_OK) != 0)
            return cli_error(VERB, argv0, "is not an executable program"), 126;
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char cand[PATH_MAX];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(cand, sizeof cand, "%.*s/%s", n ? (int)n : 1, n ? p : ".", argv0);
        if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode) && access(cand, X_OK) == 0) return 0;
        p += n + (p[n] == ':');
    }
    cli_error(VERB, argv0, "command not found");
    return 127;
}

/* Finds the collector, then sets up the output folder and the program's environment. Returns
 * 1 when the collector is injected, 0 when another tool holds both injection variables (the
 * program then runs unchanged: nothing of ours would load, so no folder is made), or -1 after
 * saying why the run is refused. */
static int prepare(const struct record_opts *o, char *out_abs, size_t cap, int *cuda_foreign)
{
    char lib[PATH_MAX], why[4096];
    if (find_collector(lib, sizeof lib) != 0) return -1;
    if (cli_collector_check(lib, why, sizeof why) != 0) { /* the driver would skip it unsaid */
        cli_error(VERB, NULL, "%s; the program was not run", why);
        return -1;
    }
    struct injection in = {foreign_injection("CUDA_INJECTION64_PATH", lib),
                           foreign_injection("NVTX_INJECTION64_PATH", lib)};
    *cuda_foreign = in.cuda != NULL;
    if (in.cuda && in.nvtx) {
        say_foreign(&in); /* even with -q: the user asked for a trace and gets none */
        return 0;
    }
    if (prepare_out_dir(o->v[SST_SET_OUTPUT_DIR], out_abs, cap) != 0 ||
        set_environment(o, out_abs, lib, &in) != 0)
        return -1;
    if (!o->v[SST_SET_QUIET]) say_foreign(&in);
    return 1;
}

int cmd_record(int argc, char **argv)
{
    struct record_opts o = {0};
    int prog_at = 0;
    int rc = record_parse_args(argc, argv, &o, &prog_at);
    if (rc != CLI_EXIT_OK) return rc < 0 ? CLI_EXIT_OK : rc;
    if ((rc = check_program(argv[prog_at])) != 0) return rc; /* before any folder is made */
    char dflt[64], out_abs[PATH_MAX];
    if (!o.v[SST_SET_OUTPUT_DIR]) {
        default_out_dir(dflt, sizeof dflt);
        o.v[SST_SET_OUTPUT_DIR] = dflt;
    }
    int cuda_foreign = 0;
    int injected = prepare(&o, out_abs, sizeof out_abs, &cuda_foreign);
    if (injected < 0) return CLI_EXIT_FAIL;
    struct trace_names before = {0};
    if (injected) snapshot_traces(out_abs, &before);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t child = 0;
    /* returns with our signals as they were: a Ctrl-C during the summary or the report (that
     * of a big trace takes a while) stops us, it is not forwarded to a program that is gone */
    int status = record_job_run(argv + prog_at, &child);
    if (status < 0) return free_names(&before), CLI_EXIT_FAIL;
    int quiet = o.v[SST_SET_QUIET] != NULL;
    if (!quiet) say_how_it_ended(status, &t0);
    int traces = injected ? each_new_trace(out_abs, &before, check_file) : 0;
    char no_cuda[512] = "";
    if (injected && !cuda_foreign) cuda_cause(traces, no_cuda, sizeof no_cuda);
    if (!quiet && injected) summarise(out_abs, &before, cuda_foreign, no_cuda);
    /* no empty folder left behind */
    if (injected && traces == 0) remove_made_dirs(o.v[SST_SET_OUTPUT_DIR]);
    /* the report never changes the exit status: a problem is one line on stderr */
    if (!quiet && !o.v[SST_SET_NO_REPORT] && traces)
        report_after_record(stderr, out_abs, child, &before);
    free_names(&before);
    return record_status(status, no_cuda);
}
