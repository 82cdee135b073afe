/*
 * sst_gen_ranks.h — synthetic traces of a synchronous data-parallel job (DDP under torchrun):
 * one trace per rank, with NCCL all-reduce kernels that end together on every rank, so a rank
 * that reaches a collective early waits in it (exposed comm), and an optional launcher trace
 * (rank -1, no GPU). One planted straggler does extra host work each step. The timings are a
 * pure function of (seed, rank, step), so every rank's trace is written on its own and the
 * same options always give the same bytes. Used by build/sst-gen-ranks, the ranks tests
 * (tests/analysis) and bench/analysis/bench_ranks.sh.
 */
#ifndef SST_GEN_RANKS_H
#define SST_GEN_RANKS_H

#include <stdint.h>

struct sst_gen_job_opts {
    uint32_t world_size;    /* ranks (>= 1) */
    uint32_t steps;         /* per rank (>= 1) */
    uint32_t kernels;       /* compute kernels per step, forward + backward (>= 4) */
    int32_t straggler;      /* rank with extra host work; -1: none */
    uint64_t extra_host_ns; /* its extra host time per step */
    uint64_t seed;
};

/* Per-step times every rank shares (the collectives' ends), computed once for the job. */
struct sst_gen_job;

/* Plans the job (O(world_size x steps x kernels)). 0 with *out owned by the caller
 * (sst_gen_job_free), SS_EINVAL for options out of range, or SS_ENOMEM. */
int sst_gen_job_plan(const struct sst_gen_job_opts *o, struct sst_gen_job **out);
void sst_gen_job_free(struct sst_gen_job *j);

/* Writes the trace of one rank (creating path; it must not exist). 0 or an ss_error code. */
int sst_gen_job_write_rank(const struct sst_gen_job *j, uint32_t rank, const char *path);

/* Writes the launcher's trace: a process with rank -1 and no GPU activity. */
int sst_gen_job_write_launcher(const struct sst_gen_job *j, const char *path);

#endif
