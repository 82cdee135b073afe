/*
 * ssa.c — the analysis entry point: two passes over one trace, then warm-up and names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssa_internal.h"
#include "trace/sst_ahead.h"
#include "util/ss_error.h"

static void on_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    struct ssa_result *res = ctx;
    (void)offset;
    if (err == SS_ETRUNC) return; /* the state line says it */
    if (res->problems++ == 0) snprintf(res->first_problem, sizeof res->first_problem, "%s", msg);
}

static void keep_reader_state(struct sst_reader *r, struct ssa_result *res)
{
    const struct sst_read_status *st = sst_reader_status(r);
    res->records = st->records;
    res->truncated = st->truncated;
    res->closed = st->closed;
    res->bad_chunks = st->bad_chunks;
    sst_reader_damage(r, &res->damage);
    snprintf(res->state_line, sizeof res->state_line, "%s", sst_reader_state_line(r));
    /* an imported capture that was itself cut short: the import's trace is whole, the run not */
    const char *cut = ssa_env_value(&res->env, "import.truncated_at");
    if (cut) {
        res->truncated = 1;
        snprintf(res->state_line, sizeof res->state_line,
                 "truncated: the imported capture ends inside its document at byte %s (its "
                 "events up to there were read)", cut);
    }
    /* an import made before its DAMAGE record said so (issue #41): the one damage model too */
    if (cut && !res->damage.count[SST_DAMAGE_TRUNCATED]) {
        res->damage.count[SST_DAMAGE_TRUNCATED] = 1, res->damage.any = 1;
        snprintf(res->damage.detail[SST_DAMAGE_TRUNCATED], SST_DAMAGE_DETAIL,
                 "the imported capture ends inside its document at byte %.40s", cut);
    }
}

static int cmp_kname(const void *x, const void *y)
{
    const struct ssa_kname *a = x, *b = y;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

/* Copies the per-name totals, sorted by time, with their text, into the result. */
static int keep_knames(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res)
{
    size_t n = sc->n_kn;
    res->knames = calloc(n ? n : 1, sizeof *res->knames);
    res->kname_text = calloc(n ? n : 1, sizeof *res->kname_text);
    if (!res->knames || !res->kname_text) return SS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        res->knames[i] = (struct ssa_kname){sc->kn[i].name_id, sc->kn[i].kclass, sc->kn[i].count,
                                            sc->kn[i].total_ns};
    qsort(res->knames, n, sizeof *res->knames, cmp_kname);
    res->n_knames = n;
    for (size_t i = 0; i < n; i++) {
        struct ssa_knstat *kn = ssa_kn_find(sc, res->knames[i].name_id);
        if (kn) kn->rank = (uint32_t)i; /* the timeline names its kernels by it */
        uint32_t len;
        const char *s = sst_reader_string(r, res->knames[i].name_id, &len);
        if (!s) s = "", len = 0;
        res->kname_text[i] = malloc((size_t)len + 1);
        if (!res->kname_text[i]) return SS_ENOMEM;
        memcpy(res->kname_text[i], s, len);
        res->kname_text[i][len] = 0;
    }
    return 0;
}

/* Two passes over r (from its first chunk), problems counted into res; r is rewound after. */
/* Sorts the names again after pass 2 took the durations CUPTI wrote at a capture's close out
 * of their totals (ssa_attr.c), and renames the timelines' kernels to match. */
struct kname_at {
    struct ssa_kname k; /* first: cmp_kname compares it */
    uint32_t old;       /* its index before */
};

static int resort_knames(struct ssa_scan *sc, struct ssa_result *res)
{
    size_t n = res->n_knames;
    struct kname_at *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t *to = malloc((n ? n : 1) * sizeof *to);
    char **text = malloc((n ? n : 1) * sizeof *text);
    if (!v || !to || !text) return free(v), free(to), free(text), SS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = (struct kname_at){res->knames[i], (uint32_t)i};
    qsort(v, n, sizeof *v, cmp_kname);
    for (size_t i = 0; i < n; i++) {
        to[v[i].old] = (uint32_t)i;
        text[i] = res->kname_text[v[i].old];
        res->knames[i] = v[i].k;
    }
    memcpy(res->kname_text, text, n * sizeof *text);
    for (size_t i = 0; i < sc->n_kn; i++)
        sc->kn[i].rank = to[sc->kn[i].rank];
    for (size_t w = 0; w < res->n_tl; w++)
        for (size_t i = 0; i < res->tl[w].n; i++)
            if (res->tl[w].items[i].name_kind == SSA_TLN_KERNEL)
                res->tl[w].items[i].name = to[res->tl[w].items[i].name];
    free(v), free(to), free(text);
    return 0;
}

/* What pass 1 collected for aligning the ranks of a job (SSA_ALIGN_KEEP), into the result. */
static int keep_align(struct ssa_scan *sc, struct sst_reader *r, struct ssa_result *res)
{
    res->align_rank = calloc(1, sizeof *res->align_rank);
    if (!res->align_rank) return SS_ENOMEM;
    ssa_align_collect_end(sc->align, r, res->align_rank);
    sc->align = NULL;
    return 0;
}

/* The steady steps' numbers, once: what every report of the result says. */
static int keep_summary(struct ssa_result *res)
{
    res->summary = malloc(sizeof *res->summary);
    if (!res->summary) return SS_ENOMEM;
    ssa_summarize(res, res->summary);
    return 0;
}

/* Decompressed chunk bytes a trace's first pass keeps for its second, per trace analysed at
 * once (report -j N: N times this at most). */
#define SSA_RAW_KEEP ((size_t)32 << 20)

/* The threads of r's pool: the decoding threads of opts, but one for a raw trace, whose chunks
 * are only summed (and mapped) there: one thread keeps about level with this one (pass 1 of
 * 10 M records: ~0.09 s of CPU each, half of the pool's the checksums), and a second one only
 * took turns on the cores with this thread (report -j 2 on 2 cores: pass 1 0.124 -> 0.095 s). */
static unsigned pool_workers(const struct sst_reader *r, const struct ssa_opts *opts)
{
    return sst_reader_header(r)->features & SST_FEAT_ZSTD ? opts->decode_threads : 1;
}

static int analyze(struct sst_reader *r, const struct ssa_opts *opts, struct ssa_result *res,
                   struct ssa_scan *sc, unsigned flags)
{
    sst_problem_fn old_fn;
    void *old_ctx;
    sst_reader_set_problem(r, on_problem, res, &old_fn, &old_ctx);
    /* a pool that cannot start (a stream, no thread) leaves the reading to this thread */
    if (opts && opts->decode_threads) (void)sst_ahead_attach(r, pool_workers(r, opts));
    /* pass 2 takes pass 1's decompressed chunks (without a pool, zstd was most of a report
     * over many small traces), a bounded number of them */
    sst_reader_keep_raw(r, SSA_RAW_KEEP);
    int rc = sst_reader_rewind(r);
    sc->reader = r;
    sc->msgs.marker = &sc->marker;
    if (opts) sc->host_from_ns = opts->host_from_ns, sc->host_to_ns = opts->host_to_ns;
    /* threads to spare: pass 2's sweep takes one (the result is the same) */
    sc->sweep_thread = opts && opts->decode_threads > 0;
    if (rc == 0) rc = ssa_marker_init(&sc->marker, opts ? opts->step_marker : NULL);
    if (rc == 0 && (flags & SSA_ALIGN_KEEP) && !(sc->align = ssa_align_collect_new()))
        rc = SS_ENOMEM;
    if (rc == 0) rc = ssa_scan_run(r, sc, res);
    if (rc == 0 && sc->align) rc = keep_align(sc, r, res);
    keep_reader_state(r, res);
    if (rc == 0) rc = ssa_steps_build(sc, res, opts);
    if (rc == 0) rc = ssa_steps_warmup_plan(sc, res, opts);
    if (rc == 0 && (flags & SSA_TIMELINE)) rc = ssa_steps_pick_timeline(sc, res);
    if (rc == 0 && (flags & SSA_STEP_BINS)) rc = ssa_steps_bins_alloc(res);
    if (rc == 0) rc = keep_knames(sc, r, res);
    if (rc == 0) ssa_program_facts(res);
    /* a raw trace's pool only sums its chunks, which pass 2 does not do again: there it would
     * only make the reader wait on its threads for the next chunk (~0.03 s in 10 M records) */
    if (!(sst_reader_header(r)->features & SST_FEAT_ZSTD)) sst_reader_set_ahead(r, NULL, NULL);
    uint64_t problems = res->problems; /* pass 2 meets the same damage again */
    /* pass 2 reads the same bytes: chunks whose checksum passed are not summed again */
    if (rc == 0) rc = sst_reader_rewind(r);
    if (rc == 0) rc = ssa_attr_run(r, sc, res);
    if (rc == 0 && res->gpu_ends_at_close) rc = resort_knames(sc, res);
    sst_reader_set_problem(r, old_fn, old_ctx, NULL, NULL);
    sst_reader_rewind(r); /* the caller may read it again (an export) */
    sst_reader_set_ahead(r, NULL, NULL); /* its threads stop with the analysis */
    sst_reader_keep_raw(r, 0);           /* and its copies of the chunks go */
    res->problems = problems;
    if (rc == 0) ssa_steps_warmup(sc, res, opts);
    if (rc == 0) rc = ssa_host_finish(&sc->host, res);
    if (rc == 0) rc = ssa_run_finish(&sc->run, res);
    if (rc == 0) rc = keep_summary(res);
    return rc;
}

int ssa_analyze_file(const char *path, const struct ssa_opts *opts, struct ssa_result **out)
{
    return ssa_analyze_file_ex(path, opts, 0, out);
}

int ssa_analyze_file_ex(const char *path, const struct ssa_opts *opts, unsigned flags,
                        struct ssa_result **out)
{
    *out = NULL;
    struct sst_reader *r = NULL;
    int rc = sst_reader_open_ex(path, NULL, SST_READ_MAP, &r);
    if (rc) return rc;
    rc = ssa_analyze_reader(r, path, opts, flags, out);
    sst_reader_close(r);
    return rc;
}

int ssa_analyze_reader(struct sst_reader *r, const char *name, const struct ssa_opts *opts,
                       unsigned flags, struct ssa_result **out)
{
    *out = NULL;
    struct ssa_result *res = calloc(1, sizeof *res);
    struct ssa_scan sc;
    memset(&sc, 0, sizeof sc);
    if (!res) return SS_ENOMEM;
    res->rank = res->world_size = -1;
    res->compact = (flags & SSA_COMPACT) != 0;
    if (opts) res->rec_cost_given = opts->rec_cost_given, res->rec_cost_us = opts->rec_cost_us;
    res->path = strdup(name);
    int rc = res->path ? analyze(r, opts, res, &sc, flags) : SS_ENOMEM;
    ssa_scan_free(&sc);
    if (rc) {
        ssa_result_free(res);
        return rc;
    }
    *out = res;
    return 0;
}

void ssa_result_free(struct ssa_result *r)
{
    if (!r) return;
    free(r->path);
    free(r->cmdline);
    free(r->device_name);
    free(r->steps);
    free(r->briefs);
    if (r->kname_text)
        for (size_t i = 0; i < r->n_knames; i++)
            free(r->kname_text[i]);
    free(r->kname_text);
    free(r->knames);
    for (size_t t = 0; t < r->n_tl; t++)
        free(r->tl[t].items);
    free(r->tl);
    free(r->tl_index);
    for (size_t i = 0; i < r->n_tl_names; i++)
        free(r->tl_names[i]);
    free(r->bins.cat_ns);
    ssa_env_record_free(&r->env);
    ssa_host_free(&r->host);
    ssa_run_free(&r->run);
    free(r->summary);
    if (r->align_rank) ssa_align_rank_free(r->align_rank);
    free(r->align_rank);
    free(r);
}
