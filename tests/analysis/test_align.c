/*
 * test_align.c — the ranks of a job on one timeline and the waits of each collective
 * (src/analysis/ssa_align.c, issue #44).
 *
 * The real fixture cnn_dp-none (DDP over 2 H200s of one host): one host, so one clock; the
 * collectives match (85 all-reduce and all-gather kernels on two streams) and their ends meet
 * within microseconds; rank 1 (the straggler of test_ranks.c) arrives last at most of them and
 * rank 0 does the waiting. Synthetic copies of it (bench/multihost): 3 hosts x 2 ranks whose
 * MONOTONIC clocks are seconds apart and drift by tens of ppm, whose wall clocks NTP left a
 * millisecond or so off, and whose collectives jitter by +-3 us: every host's clock is recovered within 20 us over the whole trace,
 * though the REALTIME pairs alone are off by the NTP error; and a copy whose host 1 arrives
 * 2 ms late at every collective: host 1 is named. Made-up jobs: names that disagree, a rank
 * without collectives, ranks without hostnames, a host whose ranks are late together (named,
 * though which of its ranks was last is not). What the analysis collects in its own pass for
 * the alignment (SSA_ALIGN_KEEP) is checked against ssa_align_load on the fixture and copies.
 * Usage: test_align FIXTURE_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "analysis/ssa_align.h"
#include "trace/sst_reader.h"
#include "ss_test.h"
#include "sst_multihost.h"

static char r0[512], r1[512];

static struct ssa_align *align_paths(const char *const *paths, size_t n)
{
    struct ssa_align_rank *v = calloc(n, sizeof *v);
    REQUIRE(v);
    for (size_t i = 0; i < n; i++) {
        REQUIRE(ssa_align_load(paths[i], &v[i]) == 0);
        v[i].input = i;
    }
    struct ssa_align *a = NULL;
    REQUIRE(ssa_align_ranks(v, n, &a) == 0 && a);
    return a;
}

/* What the analysis keeps for alignment in its first pass (SSA_ALIGN_KEEP: the report reads
 * each trace once) is what ssa_align_load reads on its own, field for field; without the flag
 * it keeps nothing. */
static void check_folded(const char *path)
{
    struct ssa_align_rank want;
    struct ssa_result *res = NULL, *plain = NULL;
    REQUIRE(ssa_align_load(path, &want) == 0);
    REQUIRE(ssa_analyze_file_ex(path, NULL, SSA_COMPACT | SSA_ALIGN_KEEP, &res) == 0);
    REQUIRE(ssa_analyze_file_ex(path, NULL, SSA_COMPACT, &plain) == 0);
    const struct ssa_align_rank *got = res->align_rank;
    CHECK(got && !plain->align_rank);
    if (got) {
        CHECK(got->rank == want.rank && got->world_size == want.world_size);
        CHECK_STR(got->host_name, want.host_name);
        CHECK(got->wall_ns == want.wall_ns && got->n_pairs == want.n_pairs);
        CHECK(!memcmp(got->soff, want.soff, sizeof want.soff));
        CHECK_EQ(got->n_coll, want.n_coll);
        CHECK(got->n_coll == want.n_coll &&
              (!want.n_coll || !memcmp(got->coll, want.coll, want.n_coll * sizeof *want.coll)));
    }
    ssa_align_rank_free(&want);
    ssa_result_free(res);
    ssa_result_free(plain);
}

static void test_collective_names(void)
{
    const char *ar = "_Z31ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
    CHECK_EQ(ssa_align_collective(ar, strlen(ar)), 1);
    CHECK_EQ(ssa_align_collective("ncclKernel_ReduceScatter_RING", 29), 3);
    /* a broadcast's ranks do not leave together; a model's own all-reduce is no NCCL kernel */
    CHECK_EQ(ssa_align_collective("ncclDevKernel_Broadcast_RING_LL", 31), 0);
    CHECK_EQ(ssa_align_collective("my_AllReduce_kernel", 19), 0);
    CHECK_EQ(ssa_align_collective(NULL, 0), 0);
}

static void test_fixture(void)
{
    const char *paths[] = {r1, r0}; /* any order: ranks come out by number */
    check_folded(r0), check_folded(r1);
    struct ssa_align *a = align_paths(paths, 2);
    CHECK_EQ(a->n_hosts, 1);
    CHECK_EQ(a->ranks[0].rank, 0);
    CHECK_EQ(a->n_coll, 85);
    CHECK_EQ(a->n_unmatched, 0);
    printf("fixture: %zu collectives, ends spread p50 %.2f us p90 %.2f us max %.2f us\n",
           a->n_coll, a->resid_p50_ns / 1e3, a->resid_p90_ns / 1e3, a->resid_max_ns / 1e3);
    CHECK(a->resid_p50_ns < 5000 && a->resid_p90_ns < 20000);
    printf("fixture: rank 1 last at %zu, rank 0 at %zu, undetermined %zu; waits %.2f / %.2f ms\n",
           a->ranks[1].last, a->ranks[0].last, a->n_undetermined, a->ranks[0].wait_ns / 1e6,
           a->ranks[1].wait_ns / 1e6);
    CHECK(a->ranks[1].last > 2 * a->ranks[0].last);
    CHECK(a->ranks[0].wait_ns > 4 * a->ranks[1].wait_ns);
    ssa_align_free(a);
}

static const struct smh_host clocks[3] = {{0, 0, 0}, {3.5, 20, 1500}, {-120, -15, -800}};

/* A copy reads whole: no damage (its times all inside its recording), closed. */
static void check_whole(const char *path)
{
    struct sst_reader *r;
    const struct sst_rec_header *h;
    struct sst_damage d;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    while (sst_reader_next(r, &h) == 1) continue;
    sst_reader_damage(r, &d);
    CHECK(!d.any && sst_reader_status(r)->closed);
    sst_reader_close(r);
}

/* Writes hosts x 2 copies into a fresh folder; the paths into out. */
static void make_copies(const char *dir, long slow, double delay_us, char paths[][512])
{
    const char *in[] = {r0, r1};
    struct smh_opts o = {in, 2, 3, 2, clocks, dir, NULL, slow, delay_us, 3};
    REQUIRE(smh_write_all(&o) == 0);
    for (size_t i = 0; i < 6; i++) {
        snprintf(paths[i], 512, "%s/node%02zu-r%zu.sstrace", dir, i / 2, i);
        check_whole(paths[i]);
    }
}

/* The worst distance, over the trace's span, between host h's recovered clock and truth. */
static double worst_error_ns(const struct ssa_align *a, size_t h, uint64_t anchor, int coarse)
{
    double worst = 0;
    for (int k = 0; k <= 20; k++) {
        uint64_t t = anchor + (uint64_t)k * 500000000u; /* 10 s from the first start */
        uint64_t local = smh_local_ns(&clocks[h], anchor, t);
        double truth = (double)smh_local_ns(&clocks[0], anchor, t);
        double got = coarse ? (double)local + a->hosts[h].coarse_ns : ssa_align_map(a, h, local);
        if (fabs(got - truth) > worst) worst = fabs(got - truth);
    }
    return worst;
}

static void test_offsets(void)
{
    char paths[6][512];
    const char *p[6];
    make_copies(ss_test_path("offsets"), -1, 0, paths);
    for (size_t i = 0; i < 6; i++)
        p[i] = paths[i], check_folded(p[i]);
    struct ssa_align *a = align_paths(p, 6);
    struct smh_opts o = {.inputs = p, .n_inputs = 1};
    uint64_t anchor = smh_anchor(&o);
    CHECK_EQ(a->n_hosts, 3);
    CHECK_STR(a->ranks[a->hosts[2].first].host_name, "node02");
    CHECK(a->hosts[2].rank_lo == 4 && a->hosts[2].rank_hi == 5 && a->hosts[2].contiguous);
    for (size_t h = 1; h < 3; h++) {
        double fine = worst_error_ns(a, h, anchor, 0), coarse = worst_error_ns(a, h, anchor, 1);
        printf("host %zu: offset error %.2f us (REALTIME pairs alone %.1f us), drift %.3f ppm, "
               "fit rms %.2f us over %zu\n", h, fine / 1e3, coarse / 1e3, a->hosts[h].drift_ppm,
               a->hosts[h].fit_rms_ns / 1e3, a->hosts[h].n_fit);
        CHECK(fine < 20000);
        CHECK(coarse > 500000); /* the NTP error: what refining had to remove */
    }
    printf("3 hosts: ends spread p50 %.2f us p90 %.2f us (REALTIME pairs alone: p50 %.1f us)\n",
           a->resid_p50_ns / 1e3, a->resid_p90_ns / 1e3, a->coarse_p50_ns / 1e3);
    CHECK(a->resid_p90_ns < 20000 && a->coarse_p50_ns > 500000);
    ssa_align_free(a);
}

static void test_slow_host(void)
{
    char paths[6][512];
    const char *p[6];
    make_copies(ss_test_path("slow"), 1, 2000, paths);
    for (size_t i = 0; i < 6; i++)
        p[i] = paths[i];
    struct ssa_align *a = align_paths(p, 6);
    for (size_t h = 0; h < a->n_hosts; h++)
        printf("slow: host %zu last at %zu of %zu, caused %.2f ms\n", h, a->hosts[h].last,
               a->n_coll, a->hosts[h].caused_ns / 1e6);
    CHECK(a->hosts[1].last * 10 >= a->n_coll * 7);
    CHECK(a->hosts[1].caused_ns > 2 * (a->hosts[0].caused_ns + a->hosts[2].caused_ns));
    ssa_align_free(a);
}

/* A rank made up in memory: its collectives' names (hashes) on stream 0, 1 ms apart, each
 * ending 100 us after it starts plus `late` (it started that much later, ended together). */
static void made_up(struct ssa_align_rank *r, int32_t rank, const char *host,
                    const uint32_t *names, size_t n, uint64_t late)
{
    memset(r, 0, sizeof *r);
    r->rank = rank, r->world_size = 2, r->input = (size_t)rank;
    snprintf(r->host_name, sizeof r->host_name, "%s", host);
    r->coll = calloc(n ? n : 1, sizeof *r->coll);
    REQUIRE(r->coll);
    for (size_t i = 0; i < n; i++)
        r->coll[i] = (struct ssa_align_coll){1000000 * (i + 1) + late, 1000000 * (i + 1) + 100000,
                                             names[i], 0};
    r->n_coll = n;
    for (size_t s = 1; s <= SSA_ALIGN_STREAMS; s++)
        r->soff[s] = n;
}

/* Hostile and odd jobs: names that disagree end the matching there; a rank without
 * collectives leaves nothing matched and nothing priced; ranks without a hostname are hosts of
 * their own (not one clock). None crashes. */
static void test_odd_jobs(void)
{
    static const uint32_t abc[] = {1, 2, 3}, axc[] = {1, 9, 3};
    struct ssa_align *a;
    struct ssa_align_rank *v = calloc(2, sizeof *v);
    made_up(&v[0], 0, "h", abc, 3, 0), made_up(&v[1], 1, "h", axc, 3, 50000);
    REQUIRE(ssa_align_ranks(v, 2, &a) == 0);
    CHECK_EQ(a->n_coll, 1);
    CHECK_EQ(a->n_unmatched, 4);
    CHECK(a->ranks[1].last == 1 && fabs(a->ranks[0].wait_ns - 50000) < 1);
    ssa_align_free(a);
    v = calloc(2, sizeof *v);
    made_up(&v[0], 0, "h", abc, 3, 0), made_up(&v[1], 1, "h", abc, 0, 0);
    REQUIRE(ssa_align_ranks(v, 2, &a) == 0);
    CHECK(a->n_coll == 0 && a->n_priced == 0 && a->n_unmatched == 3);
    ssa_align_free(a);
    v = calloc(2, sizeof *v);
    made_up(&v[0], 0, "", abc, 3, 0), made_up(&v[1], 1, "", abc, 3, 0);
    REQUIRE(ssa_align_ranks(v, 2, &a) == 0);
    CHECK_EQ(a->n_hosts, 2);
    CHECK_EQ(a->n_undetermined, 3); /* the same starts: who was last cannot be told */
    ssa_align_free(a);
    /* host b's two ranks 50 us late together: which of them is not known, the host is */
    v = calloc(4, sizeof *v);
    made_up(&v[0], 0, "a", abc, 3, 0), made_up(&v[1], 1, "a", abc, 3, 0);
    made_up(&v[2], 2, "b", abc, 3, 50000), made_up(&v[3], 3, "b", abc, 3, 50000);
    REQUIRE(ssa_align_ranks(v, 4, &a) == 0);
    CHECK(a->n_hosts == 2 && a->n_undetermined == 3);
    CHECK(a->hosts[1].last == 3 && a->hosts[0].last == 0);
    CHECK(fabs(a->hosts[1].caused_ns - 3 * 2 * 50000) < 1);
    CHECK(a->ranks[2].last == 0 && a->ranks[3].last == 0);
    ssa_align_free(a);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    snprintf(r0, sizeof r0, "%s/workloads/traces/cnn_dp-none/vm-14579-r0.sstrace", argv[1]);
    snprintf(r1, sizeof r1, "%s/workloads/traces/cnn_dp-none/vm-14580-r1.sstrace", argv[1]);
    test_collective_names();
    test_odd_jobs();
    test_fixture();
    test_offsets();
    test_slow_host();
    return ss_test_result();
}
