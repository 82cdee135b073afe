/*
 * export_merged.c — `stepscope export DIR --format perfetto|nsys-sqlite`: every trace of the
 * folder in one Perfetto JSON document, or one nsys SQLite database, on one timeline (issue #44).
 * Each trace is analysed (the attribution track), the ranks of the job aligned (ssa_ranks_analyze,
 * ssa_align_job: clock offsets from the REALTIME pairs refined from the collectives' ends), and
 * each trace's times moved to the reference host's clock; a trace that is not a rank (the torchrun
 * launcher) takes the clock of the host whose name it carries, else the reference's. Each trace
 * gets its own pids and flow ids (ssi_merge), its process and GPUs named "rank R HOST". Both
 * writers take the same places (ssi_merge_rel_ns), so a record lands at the same time in either.
 *
 * A window (--steps A-B, --time A-B; Perfetto only) is one span of the common timeline, cut from
 * every trace on its own clock (the alignment's map, inverted): --time counts from the earliest
 * recording start; --steps spans from the earliest begin of step A to the latest end of step
 * B over the traces that have them (the ranks do not start and end a step together), so every
 * track shows the same stretch of the job.
 */
#include "export_merged.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "analysis/ssa_align.h"
#include "cmd.h"
#include "interop/ssi.h"
#include "interop/ssi_window.h"
#include "trace/sst_window.h"
#include "util/ss_error.h"

struct merged {
    const char *verb, *dir;
    const struct ssi_exporter *fmt; /* Perfetto or nsys-sqlite */
    size_t n;
    char **paths;               /* the folder's traces, by name */
    struct ssa_result **rs;     /* their analyses */
    struct ssa_job job;         /* the ranks, aligned */
    struct ssi_merge *m;        /* each trace's place */
    char (*labels)[96];
    struct cli_trace *t;        /* open while writing */
    struct ssi_export_in *ins;
    size_t opened;              /* of t */
    const struct sst_window *win; /* --steps / --time; NULL: the whole run */
    const char *win_arg;
    struct ssi_window *wins;    /* each trace's part of the window, on its clock */
    char win_desc[160];
};

static int is_trace_name(const struct dirent *de)
{
    size_t len = strlen(de->d_name);
    return de->d_name[0] != '.' && len > 8 && strcmp(de->d_name + len - 8, ".sstrace") == 0;
}

/* The folder's .sstrace paths (malloc'ed, owned by g). 0, or -1 after one error line. */
static int list_traces(struct merged *g)
{
    struct dirent **names;
    int n = scandir(g->dir, &names, is_trace_name, alphasort);
    if (n <= 0) {
        cli_error(g->verb, g->dir, n < 0 ? "cannot list the folder" : "is a folder with no .sstrace file");
        return -1;
    }
    g->paths = calloc((size_t)n, sizeof *g->paths);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", g->dir, names[i]->d_name);
        if (g->paths) g->paths[g->n++] = strdup(path);
        free(names[i]);
    }
    free(names);
    for (size_t i = 0; g->paths && i < g->n; i++)
        if (!g->paths[i]) return cli_error(g->verb, g->dir, "out of memory"), -1;
    return g->paths ? 0 : (cli_error(g->verb, g->dir, "out of memory"), -1);
}

/* Every trace analysed (full mode: the attribution track needs the steps), its damage said. */
static int analyse_all(struct merged *g, int accept_damage)
{
    g->rs = calloc(g->n, sizeof *g->rs);
    if (!g->rs) return cli_error(g->verb, g->dir, "out of memory"), -1;
    for (size_t i = 0; i < g->n; i++) {
        int rc = ssa_analyze_file_ex(g->paths[i], NULL, SSA_ALIGN_KEEP, &g->rs[i]);
        if (rc) return cli_error(g->verb, g->paths[i], "%s", ss_strerror(rc)), -1;
        if (cli_damage_said(g->verb, g->paths[i], &g->rs[i]->damage, accept_damage,
                            "nothing written (--accept-damage to export what could be read)"))
            return -1;
    }
    int rc = ssa_ranks_analyze((const struct ssa_result *const *)g->rs, g->n, &g->job);
    if (!rc) rc = ssa_align_job(&g->job, g->rs);
    if (rc) cli_error(g->verb, g->dir, "%s", ss_strerror(rc));
    return rc ? -1 : 0;
}

/* The host of trace i in the alignment: its rank's, else by the hostname it carries. */
static const struct ssa_align_host *host_of(const struct merged *g, size_t i, int32_t *rank)
{
    const struct ssa_align *a = g->job.align;
    const struct ssa_align_rank *own = g->rs[i]->align_rank; /* not a rank: not taken */
    *rank = -1;
    if (!a) return NULL;
    for (size_t k = 0; k < a->n_ranks; k++)
        if (a->ranks[k].input == i) return *rank = a->ranks[k].rank, &a->hosts[a->ranks[k].host];
    for (size_t h = 0; own && own->host_name[0] && h < a->n_hosts; h++)
        if (!strcmp(a->ranks[a->hosts[h].first].host_name, own->host_name)) return &a->hosts[h];
    return NULL;
}

static void place(struct merged *g, size_t i)
{
    int32_t rank;
    const struct ssa_align_host *h = host_of(g, i, &rank);
    const char *host = h ? g->job.align->ranks[h->first].host_name : "";
    struct ssi_merge *m = &g->m[i];
    *m = (struct ssi_merge){.slot = (uint32_t)i, .label = g->labels[i]};
    if (h) m->offset_ns = h->offset_ns, m->drift_ppm = h->drift_ppm, m->at_ns = h->at_ns;
    if (rank >= 0) snprintf(g->labels[i], sizeof g->labels[i], "rank %d %.60s", (int)rank, host);
    else snprintf(g->labels[i], sizeof g->labels[i], "%.60s", host[0] ? host : "-");
}

/* Local time t of a trace on the common clock (ssa_align_map with its host's line). */
static double to_common(const struct ssi_merge *m, uint64_t t)
{
    return (double)t + m->offset_ns + (double)(int64_t)(t - m->at_ns) * m->drift_ppm / 1e6;
}

/* The inverse: the trace's local time of common time c. */
static double to_local(const struct ssi_merge *m, double c)
{
    return (double)m->at_ns + (c - (double)m->at_ns - m->offset_ns) / (1 + m->drift_ppm / 1e6);
}

/* Each trace's place; the common zero: the earliest first record on the common clock. */
static int place_all(struct merged *g)
{
    g->m = calloc(g->n, sizeof *g->m), g->labels = calloc(g->n, sizeof *g->labels);
    if (!g->m || !g->labels) return cli_error(g->verb, g->dir, "out of memory"), -1;
    double t0 = INFINITY;
    for (size_t i = 0; i < g->n; i++) {
        place(g, i);
        double first = to_common(&g->m[i], g->rs[i]->first_ns);
        if (g->rs[i]->first_ns && first < t0) t0 = first;
    }
    for (size_t i = 0; i < g->n; i++)
        g->m[i].t0 = t0 < INFINITY ? (uint64_t)t0 : 0;
    return 0;
}

static int write_doc(FILE *f, void *ctx)
{
    struct merged *g = ctx;
    char warn[512] = "";
    int rc = ssi_perfetto_write_merged(g->ins, g->n, f, warn, sizeof warn);
    if (rc) cli_error(g->verb, g->dir, "%s", warn[0] ? warn : ss_strerror(rc));
    return rc ? -1 : 0;
}

/* ---- a window of the common timeline ---- */

/* When the job's recording started on the common clock: the earliest trace's start (its
 * header's, else its first record's, as a single trace's --time counts). */
static double common_zero(const struct merged *g)
{
    double zero = INFINITY;
    for (size_t i = 0; i < g->n; i++) {
        uint64_t start = sst_reader_header(g->t[i].r)->start_mono_ns;
        double z = to_common(&g->m[i], start > 1 ? start : g->rs[i]->first_ns);
        if (z < zero) zero = z;
    }
    return zero < INFINITY ? zero : 0;
}

struct step_span {
    double lo, hi;                       /* common clock */
    uint64_t first, last, got_lo, got_hi; /* step numbers: all of them, those in the window */
};

static void span_steps_of(const struct merged *g, size_t i, struct step_span *sp)
{
    const struct ssa_result *res = g->rs[i];
    for (size_t k = 0; res->step_source != SSA_STEPS_NONE && k < res->n_steps; k++) {
        const struct ssa_step_brief *b = &res->briefs[k];
        sp->first = b->number < sp->first ? b->number : sp->first;
        sp->last = b->number > sp->last ? b->number : sp->last;
        if (b->number < g->win->from || b->number > g->win->to) continue;
        double lo = to_common(&g->m[i], b->begin_ns), hi = to_common(&g->m[i], b->end_ns);
        sp->lo = lo < sp->lo ? lo : sp->lo, sp->hi = hi > sp->hi ? hi : sp->hi;
        sp->got_lo = b->number < sp->got_lo ? b->number : sp->got_lo;
        sp->got_hi = b->number > sp->got_hi ? b->number : sp->got_hi;
    }
}

/* --steps: from the earliest begin of the first step asked to the latest end of the last,
 * over every trace that has them. 0, or -1 after saying why. */
static int steps_window(const struct merged *g, double span[2])
{
    struct step_span sp = {INFINITY, -INFINITY, UINT64_MAX, 0, UINT64_MAX, 0};
    for (size_t i = 0; i < g->n; i++)
        span_steps_of(g, i, &sp);
    if (sp.lo <= sp.hi) {
        if (sp.got_lo != g->win->from || sp.got_hi != g->win->to)
            cli_error(g->verb, g->dir, "warning: of steps %s the traces have %" PRIu64 "-%" PRIu64
                      ": the export holds those", g->win_arg, sp.got_lo, sp.got_hi);
        return span[0] = sp.lo, span[1] = sp.hi, 0;
    }
    if (sp.first == UINT64_MAX)
        cli_error(g->verb, g->dir, "no steps found: --time A-B exports a part by time");
    else
        cli_error(g->verb, g->dir, "no step numbered %s: the traces' steps are numbered %" PRIu64
                  "-%" PRIu64, g->win_arg, sp.first, sp.last);
    return -1;
}

/* The window on the common clock and its description. 0, or -1 after saying why. */
static int common_window(struct merged *g, double span[2])
{
    double zero = common_zero(g);
    int steps = g->win->kind == SST_WINDOW_STEPS;
    if (!steps) span[0] = zero + (double)g->win->from, span[1] = zero + (double)g->win->to;
    else if (steps_window(g, span) != 0) return -1;
    snprintf(g->win_desc, sizeof g->win_desc, "%s%s%s%.3f-%.3f s%s", steps ? "steps " : "",
             steps ? g->win_arg : "", steps ? " (" : "",
             span[0] > zero ? (span[0] - zero) / 1e9 : 0.0,
             span[1] > zero ? (span[1] - zero) / 1e9 : 0.0, steps ? ")" : "");
    return 0;
}

/* Trace i's part: the common span on its clock (whole nanoseconds around it). */
static int window_of(struct merged *g, size_t i, const double span[2])
{
    double lo = floor(to_local(&g->m[i], span[0])), hi = ceil(to_local(&g->m[i], span[1]));
    uint64_t from = lo > 0 ? (uint64_t)lo : 0;
    uint64_t to = hi >= 18446744073709549568.0 ? UINT64_MAX : hi > 0 ? (uint64_t)hi : 0;
    int rc = ssi_window_prepare(g->t[i].r, from, to > from ? to : from, &g->wins[i]);
    if (rc) cli_error(g->verb, g->paths[i], "cannot read the trace: %s", ss_strerror(rc));
    return rc ? -1 : 0;
}

/* Every trace's part of the window (none: the whole run). 0, or -1 after saying why. */
static int window_all(struct merged *g)
{
    double span[2];
    uint64_t kept = 0;
    if (!g->win || g->win->kind == SST_WINDOW_ALL) return 0;
    if (!(g->wins = calloc(g->n, sizeof *g->wins)))
        return cli_error(g->verb, g->dir, "out of memory"), -1;
    if (common_window(g, span) != 0) return -1;
    for (size_t i = 0; i < g->n; i++) {
        if (window_of(g, i, span) != 0) return -1;
        kept += g->wins[i].kept_events;
        g->ins[i].win = &g->wins[i], g->ins[i].win_desc = g->win_desc;
    }
    if (kept) return 0;
    cli_error(g->verb, g->dir, "nothing recorded in %s", g->win_desc);
    return -1;
}

/* ---- writing ---- */

/* Opens every trace (one reader each while writing). 0, or -1 after one error line. */
static int open_all(struct merged *g)
{
    g->t = calloc(g->n, sizeof *g->t), g->ins = calloc(g->n, sizeof *g->ins);
    if (!g->t || !g->ins) return cli_error(g->verb, g->dir, "out of memory"), -1;
    for (; g->opened < g->n; g->opened++) {
        size_t i = g->opened;
        if (cli_trace_open(&g->t[i], g->verb, g->paths[i], NULL, NULL) != 0) return -1;
        g->ins[i] = (struct ssi_export_in){g->t[i].r, g->rs[i], g->paths[i], 0, NULL, NULL,
                                           &g->m[i]};
    }
    return 0;
}

static int write_db(const char *path, void *ctx)
{
    struct merged *g = ctx;
    char err[512] = "";
    int rc = ssi_nsys_write_merged(g->ins, g->n, g->dir, path, err, sizeof err);
    if (rc) cli_error(g->verb, g->dir, "%s", err[0] ? err : ss_strerror(rc));
    return rc ? -1 : 0;
}

static int write_all(struct merged *g, const char *out, unsigned flags)
{
    if (open_all(g) != 0 || window_all(g) != 0) return CLI_EXIT_FAIL;
    return g->fmt->to_path ? cli_write_path(g->verb, out, "export", flags, write_db, g)
                           : cli_write_output(g->verb, out, "export", flags, write_doc, g);
}

static void merged_free(struct merged *g)
{
    for (size_t i = 0; i < g->opened; i++)
        cli_trace_close(&g->t[i]);
    for (size_t i = 0; g->wins && i < g->n; i++)
        ssi_window_free(&g->wins[i]);
    for (size_t i = 0; i < g->n; i++) {
        free(g->paths ? g->paths[i] : NULL);
        if (g->rs) ssa_result_free(g->rs[i]);
    }
    free(g->paths), free(g->rs), free(g->m), free(g->labels), free(g->t), free(g->ins);
    free(g->wins);
    ssa_job_free(&g->job);
}

int export_merged(const char *verb, const struct ssi_exporter *fmt, const char *dir,
                  const char *out, unsigned out_flags, int accept_damage,
                  const struct sst_window *win, const char *win_arg)
{
    struct merged g = {.verb = verb, .dir = dir, .fmt = fmt, .win = win, .win_arg = win_arg};
    int rc = CLI_EXIT_FAIL;
    if (list_traces(&g) == 0 && analyse_all(&g, accept_damage) == 0 && place_all(&g) == 0)
        rc = write_all(&g, out, out_flags);
    merged_free(&g);
    return rc;
}
