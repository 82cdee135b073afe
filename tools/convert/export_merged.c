/*
 * export_merged.c — `stepscope export DIR --format perfetto|nsys-sqlite`: every trace of the
 * folder in one Perfetto JSON document, or one nsys SQLite database, on one timeline (issue #44).
 * Each trace is analysed (the attribution track), the ranks of the job aligned (ssa_ranks_analyze,
 * ssa_align_job: clock offsets from the REALTIME pairs refined from the collectives' ends), and
 * each trace's times moved to the reference host's clock; a trace that is not a rank (the torchrun
 * launcher) takes the clock of the host whose name it carries, else the reference's. Each trace
 * gets its own pids and flow ids (ssi_merge), its process and GPUs named "rank R HOST". Both
 * writers take the same places (ssi_merge_rel_ns), so a record lands at the same time in either.
 */
#include "export_merged.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "analysis/ssa_align.h"
#include "cmd.h"
#include "interop/ssi.h"
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
        int rc = ssa_analyze_file_ex(g->paths[i], NULL, 0, &g->rs[i]);
        if (rc) return cli_error(g->verb, g->paths[i], "%s", ss_strerror(rc)), -1;
        if (cli_damage_said(g->verb, g->paths[i], &g->rs[i]->damage, accept_damage,
                            "nothing written (--accept-damage to export what could be read)"))
            return -1;
    }
    int rc = ssa_ranks_analyze((const struct ssa_result *const *)g->rs, g->n, &g->job);
    if (!rc) rc = ssa_align_job(&g->job, (const struct ssa_result *const *)g->rs);
    if (rc) cli_error(g->verb, g->dir, "%s", ss_strerror(rc));
    return rc ? -1 : 0;
}

/* The host of trace i in the alignment: its rank's, else by the hostname it carries. */
static const struct ssa_align_host *host_of(const struct merged *g, size_t i, int32_t *rank)
{
    const struct ssa_align *a = g->job.align;
    struct ssa_align_rank probe;
    *rank = -1;
    if (!a) return NULL;
    for (size_t k = 0; k < a->n_ranks; k++)
        if (a->ranks[k].input == i) return *rank = a->ranks[k].rank, &a->hosts[a->ranks[k].host];
    if (ssa_align_load(g->paths[i], &probe) != 0) return NULL;
    ssa_align_rank_free(&probe);
    for (size_t h = 0; probe.host_name[0] && h < a->n_hosts; h++)
        if (!strcmp(a->ranks[a->hosts[h].first].host_name, probe.host_name)) return &a->hosts[h];
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

/* Each trace's place; the common zero: the earliest first record on the common clock. */
static int place_all(struct merged *g)
{
    g->m = calloc(g->n, sizeof *g->m), g->labels = calloc(g->n, sizeof *g->labels);
    if (!g->m || !g->labels) return cli_error(g->verb, g->dir, "out of memory"), -1;
    double t0 = INFINITY;
    for (size_t i = 0; i < g->n; i++) {
        place(g, i);
        const struct ssi_merge *m = &g->m[i];
        double first = (double)g->rs[i]->first_ns + m->offset_ns +
                       (double)(int64_t)(g->rs[i]->first_ns - m->at_ns) * m->drift_ppm / 1e6;
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

static int write_db(const char *path, void *ctx)
{
    struct merged *g = ctx;
    char err[512] = "";
    int rc = ssi_nsys_write_merged(g->ins, g->n, g->dir, path, err, sizeof err);
    if (rc) cli_error(g->verb, g->dir, "%s", err[0] ? err : ss_strerror(rc));
    return rc ? -1 : 0;
}

/* Opens every trace (one reader each while writing) and writes the document. */
static int write_all(struct merged *g, const char *out, unsigned flags)
{
    size_t opened = 0;
    int rc = CLI_EXIT_FAIL;
    g->t = calloc(g->n, sizeof *g->t), g->ins = calloc(g->n, sizeof *g->ins);
    if (!g->t || !g->ins) return cli_error(g->verb, g->dir, "out of memory"), rc;
    for (; opened < g->n; opened++) {
        if (cli_trace_open(&g->t[opened], g->verb, g->paths[opened], NULL, NULL) != 0) break;
        g->ins[opened] = (struct ssi_export_in){g->t[opened].r, g->rs[opened], g->paths[opened],
                                                0, NULL, NULL, &g->m[opened]};
    }
    if (opened == g->n)
        rc = g->fmt->to_path ? cli_write_path(g->verb, out, "export", flags, write_db, g)
                             : cli_write_output(g->verb, out, "export", flags, write_doc, g);
    for (size_t i = 0; i < opened; i++)
        cli_trace_close(&g->t[i]);
    return rc;
}

static void merged_free(struct merged *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->paths ? g->paths[i] : NULL);
        if (g->rs) ssa_result_free(g->rs[i]);
    }
    free(g->paths), free(g->rs), free(g->m), free(g->labels), free(g->t), free(g->ins);
    ssa_job_free(&g->job);
}

int export_merged(const char *verb, const struct ssi_exporter *fmt, const char *dir,
                  const char *out, unsigned out_flags, int accept_damage)
{
    struct merged g = {.verb = verb, .dir = dir, .fmt = fmt};
    int rc = CLI_EXIT_FAIL;
    if (list_traces(&g) == 0 && analyse_all(&g, accept_damage) == 0 && place_all(&g) == 0)
        rc = write_all(&g, out, out_flags);
    merged_free(&g);
    return rc;
}
