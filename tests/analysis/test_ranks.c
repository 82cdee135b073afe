/*
 * test_ranks.c — the ranks of a multi-GPU job compared (src/analysis/ssa_ranks.c) and the
 * comm_not_overlapped finding with and without that comparison.
 *
 * On the real fixture cnn_dp-none (DDP over 2 H200s, launched by torchrun): the launcher is
 * not a rank; rank 1 is the straggler, for host work; rank 0's exposed comm (13.1 ms/step) is
 * waiting for it, so rank 0's comm finding, given its peer, does not price it again. On synthetic
 * jobs (bench/gen/sst_gen_ranks.c): a planted straggler is found and priced at the extra host
 * time planted; a balanced job has none; missing, repeated and foreign ranks are counted.
 * Usage: test_ranks FIXTURE_DIR
 */
#include <math.h>

#include "analysis/ssa.h"
#include "ss_test.h"
#include "sst_gen_ranks.h"

#define NEAR(a, b, tol) (fabs((double)(a) - (double)(b)) <= (tol))

static struct ssa_result *analyse(const char *path)
{
    struct ssa_result *r = NULL;
    CHECK_EQ(ssa_analyze_file_ex(path, NULL, SSA_COMPACT, &r), 0);
    REQUIRE(r);
    return r;
}

static const struct ssa_finding *finding(const struct ssa_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].id, id) == 0) return &f->v[i];
    return NULL;
}

static const struct ssa_finding *comm_finding(const struct ssa_result *r, const struct ssa_peer *peer,
                                             struct ssa_findings *f)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    ssa_find(r, &s, peer, f);
    return finding(f, "comm_not_overlapped");
}

/* ---- the real fixture ---- */

static void check_fixture_alone(struct ssa_result *r0)
{
    struct ssa_findings f;
    const struct ssa_finding *c = comm_finding(r0, NULL, &f); /* reported alone */
    REQUIRE(c);
    CHECK_EQ(c->confidence, SSA_LOW);
    CHECK_CONTAINS(c->evidence, "may be waiting for a slower rank");
    CHECK(c->saving_ms > 0 && c->saving_ms < 4); /* bounded by the spare compute (~1.7) */
}

static void check_fixture(const char *fx)
{
    static const char *const names[] = {"vm-14436", "vm-14579-r0", "vm-14580-r1"};
    struct ssa_result *rs[3];
    char path[1024];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/workloads/traces/cnn_dp-none/%s.sstrace", fx, names[i]);
        rs[i] = analyse(path);
    }
    check_fixture_alone(rs[1]);
    struct ssa_job job;
    REQUIRE(ssa_ranks_analyze((const struct ssa_result *const *)rs, 3, &job) == 0);
    CHECK_EQ(job.n, 2); /* the torchrun launcher (rank -1, no GPU) is not a rank */
    CHECK_EQ(job.world_size, 2);
    CHECK_EQ(job.n_usable, 2);
    REQUIRE(job.has_straggler);
    const struct ssa_rank *s = &job.ranks[job.straggler], *m = &job.ranks[job.reference];
    CHECK_EQ(s->rank, 1);
    CHECK_EQ(m->rank, 0);
    CHECK_EQ(job.why_cat, SSA_CAT_HOST); /* 11.7 ms host against 1.3 */
    CHECK(job.price_ms > 12 && job.price_ms < 16);
    CHECK(m->comm_ms > 12 && m->comm_ms < 14.5);
    CHECK(m->wait_ms > 0.95 * m->comm_ms); /* rank 0's exposed comm is waiting */
    CHECK_EQ(s->wait_ms, 0);
    printf("cnn_dp-none: straggler rank %d (%s +%.2f ms), price %.2f ms/step, rank 0 comm %.2f "
           "waiting %.2f\n",
           s->rank, ssa_cat_name(job.why_cat), job.why_ms, job.price_ms, m->comm_ms, m->wait_ms);
    struct ssa_peer p[3] = {ssa_ranks_peer(&job, 0), ssa_ranks_peer(&job, 1), ssa_ranks_peer(&job, 2)};
    CHECK(!p[0].known);
    CHECK(p[1].known && p[1].straggler == 1);
    struct ssa_findings f;
    const struct ssa_finding *c = comm_finding(rs[1], &p[1], &f);
    CHECK(!c || c->saving_pct < SSA_FINDING_MIN_PCT); /* not counted twice */
    c = comm_finding(rs[2], &p[2], &f);
    if (c) CHECK_CONTAINS(c->evidence, "this rank is the straggler");
    ssa_job_free(&job);
    for (int i = 0; i < 3; i++)
        ssa_result_free(rs[i]);
}

/* ---- synthetic jobs ---- */

struct gen_set {
    struct ssa_result *r[16];
    size_t n;
};

static void gen_rank(struct gen_set *g, const struct sst_gen_job *job, uint32_t rank,
                     const char *tag)
{
    char name[64];
    snprintf(name, sizeof name, "%s-r%u-%zu.sstrace", tag, rank, g->n);
    const char *path = ss_test_path(name);
    REQUIRE(sst_gen_job_write_rank(job, rank, path) == 0);
    REQUIRE(g->n < 16);
    g->r[g->n++] = analyse(path);
}

static void gen_free(struct gen_set *g)
{
    for (size_t i = 0; i < g->n; i++)
        ssa_result_free(g->r[i]);
    g->n = 0;
}

static struct sst_gen_job *plan(uint32_t world, int32_t straggler, double extra_ms)
{
    struct sst_gen_job_opts o = {world, 20, 16, straggler, (uint64_t)(extra_ms * 1e6), 7};
    struct sst_gen_job *j;
    REQUIRE(sst_gen_job_plan(&o, &j) == 0);
    return j;
}

static void check_planted(void)
{
    struct sst_gen_job *job = plan(8, 5, 3.0);
    struct gen_set g = {.n = 0};
    for (uint32_t r = 0; r < 8; r++)
        gen_rank(&g, job, r, "planted");
    struct ssa_job j;
    REQUIRE(ssa_ranks_analyze((const struct ssa_result *const *)g.r, g.n, &j) == 0);
    CHECK_EQ(j.n, 8);
    CHECK_EQ(j.missing, 0);
    REQUIRE(j.has_straggler);
    CHECK_EQ(j.ranks[j.straggler].rank, 5);
    CHECK_EQ(j.why_cat, SSA_CAT_HOST);
    CHECK(NEAR(j.price_ms, 3.0, 0.5));
    CHECK(NEAR(j.step_ms.p10, j.step_ms.p90, 0.05)); /* synchronous: the same step time */
    for (size_t i = 0; i < j.n; i++)
        if (i != j.straggler) CHECK(NEAR(j.ranks[i].wait_ms, j.price_ms, 0.5));
    struct ssa_peer p0 = ssa_ranks_peer(&j, 0);
    struct ssa_findings f;
    const struct ssa_finding *c = comm_finding(g.r[0], &p0, &f);
    REQUIRE(c);
    CHECK_EQ(c->own_confidence, SSA_MEDIUM);
    CHECK_CONTAINS(c->fix, "waiting for rank 5");
    CHECK(c->saving_ms < 0.5); /* the last bucket's transfer (0.3 ms), not the wait */
    ssa_job_free(&j);
    gen_free(&g);
    sst_gen_job_free(job);
}

static void check_balanced(void)
{
    struct sst_gen_job *job = plan(4, -1, 0);
    struct gen_set g = {.n = 0};
    for (uint32_t r = 0; r < 4; r++)
        gen_rank(&g, job, r, "balanced");
    struct ssa_job j;
    REQUIRE(ssa_ranks_analyze((const struct ssa_result *const *)g.r, g.n, &j) == 0);
    CHECK_EQ(j.n, 4);
    CHECK(!j.has_straggler);
    for (size_t i = 0; i < j.n; i++)
        CHECK_EQ(j.ranks[i].wait_ms, 0);
    struct ssa_peer p0 = ssa_ranks_peer(&j, 0);
    CHECK(p0.known && p0.straggler == -1);
    ssa_job_free(&j);
    gen_free(&g);
    sst_gen_job_free(job);
}

/* World size 4 with rank 2 missing and rank 1 twice, a rank of a 2-rank job, a failed load
 * (NULL) and the launcher: 3 ranks compared, each oddity counted. */
static void check_odd_sets(void)
{
    struct sst_gen_job *job = plan(4, 3, 2.0), *other = plan(2, -1, 0);
    struct gen_set g = {.n = 0};
    gen_rank(&g, job, 1, "odd");
    gen_rank(&g, job, 0, "odd");
    gen_rank(&g, job, 1, "odd");
    gen_rank(&g, job, 3, "odd");
    gen_rank(&g, other, 0, "other");
    REQUIRE(sst_gen_job_write_launcher(job, ss_test_path("launcher.sstrace")) == 0);
    g.r[g.n++] = analyse(ss_test_path("launcher.sstrace"));
    g.r[g.n++] = NULL; /* a trace that could not be read */
    struct ssa_job j;
    REQUIRE(ssa_ranks_analyze((const struct ssa_result *const *)g.r, g.n, &j) == 0);
    CHECK_EQ(j.world_size, 4);
    CHECK_EQ(j.n, 3);
    CHECK_EQ(j.missing, 1);
    CHECK_EQ(j.duplicates, 1);
    CHECK_EQ(j.other_jobs, 1);
    CHECK_EQ(j.ranks[1].input, 0); /* the first trace of rank 1 is the one compared */
    CHECK(j.has_straggler && j.ranks[j.straggler].rank == 3);
    ssa_job_free(&j);
    g.n--; /* the NULL */
    gen_free(&g);
    sst_gen_job_free(job);
    sst_gen_job_free(other);
}

/* A rank without step markers is listed, not compared, and has no peer. */
static void check_unusable(void)
{
    struct sst_gen_job *job = plan(3, 2, 3.0);
    struct gen_set g = {.n = 0};
    for (uint32_t r = 0; r < 3; r++)
        gen_rank(&g, job, r, "unusable");
    g.r[0]->step_source = SSA_STEPS_NONE; /* as if it had no markers */
    struct ssa_job j;
    REQUIRE(ssa_ranks_analyze((const struct ssa_result *const *)g.r, g.n, &j) == 0);
    CHECK_EQ(j.n, 3);
    CHECK_EQ(j.n_usable, 2);
    CHECK(!j.ranks[0].usable);
    CHECK(j.has_straggler && j.ranks[j.straggler].rank == 2 && j.ranks[j.reference].rank == 1);
    CHECK(!ssa_ranks_peer(&j, 0).known && ssa_ranks_peer(&j, 1).known);
    ssa_job_free(&j);
    gen_free(&g);
    sst_gen_job_free(job);
}

static void check_not_a_job(void)
{
    struct sst_gen_job *job = plan(2, -1, 0);
    struct gen_set g = {.n = 0};
    gen_rank(&g, job, 0, "single");
    REQUIRE(sst_gen_job_write_launcher(job, ss_test_path("launcher1.sstrace")) == 0);
    g.r[g.n++] = analyse(ss_test_path("launcher1.sstrace"));
    struct ssa_job j;
    REQUIRE(ssa_ranks_analyze((const struct ssa_result *const *)g.r, g.n, &j) == 0);
    CHECK_EQ(j.n, 1); /* one rank: nothing to compare */
    CHECK(!ssa_ranks_peer(&j, 0).known);
    ssa_job_free(&j);
    REQUIRE(ssa_ranks_analyze(NULL, 0, &j) == 0);
    CHECK_EQ(j.n, 0);
    ssa_job_free(&j);
    gen_free(&g);
    sst_gen_job_free(job);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    check_fixture(argv[1]);
    check_planted();
    check_balanced();
    check_odd_sets();
    check_unusable();
    check_not_a_job();
    return ss_test_result();
}
