/*
 * sst_gen_ranks.c — the synthetic DDP job behind sst-gen-ranks (see sst_gen_ranks.h).
 *
 * The model of one step on rank r, all ranks starting it at the same time T:
 *   host work (GPU idle) for about HOST_NS, plus extra_host_ns on the straggler; then the host
 *   launches the step's compute kernels (forward, then backward) far faster than they run, so
 *   they run back to back on the compute stream. Two gradient buckets are all-reduced on the
 *   NCCL stream: one from the middle of backward, one after its last kernel. A collective
 *   starts on a rank when that rank's compute stream reaches it (DDP's event wait) and ends on
 *   every rank TRANSFER_NS after the LAST rank reached it, so the ranks that got there first
 *   wait inside it. The optimizer kernel waits for the last all-reduce; loss.item() syncs;
 *   the next step starts at the same time everywhere.
 * Writer options come from sst_gen_lib (synthetic clock, fixed start times).
 */
#include "sst_gen_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sst_gen_lib.h"
#include "trace/sst_writer.h"
#include "util/ss_error.h"

#define HOST_NS 2000000ull /* host work per step, +- HOST_JITTER_NS / 2 */
#define HOST_JITTER_NS 400000ull
#define LAUNCH_NS 5000ull       /* one cudaLaunchKernel */
#define LAUNCH_EVERY_NS 7000ull /* the host's pace between launches */
#define GPU_GAP_NS 1000ull      /* between back-to-back kernels */
#define GEMM_NS 400000ull       /* even kernels: tensor-core GEMM, +- 10 % */
#define ELEMWISE_NS 60000ull    /* odd kernels: elementwise, +- 10 % */
#define TRANSFER_NS 300000ull   /* an all-reduce once every rank is in it */
#define OPTIMIZER_NS 150000ull
#define TAIL_NS 60000ull /* after the optimizer: the sync returns, the loop turns */
#define BUCKETS 2
#define CBID_LAUNCH_KERNEL 211 /* cudaLaunchKernel_v7000 */
#define CBID_STREAM_SYNC 131
#define COMPUTE_STREAM 7
#define NCCL_STREAM 13
#define LAUNCHER_PID 4999u

static const char *const K_GEMM = "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNN";
static const char *const K_ELEM =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::"
    "BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul>)";
static const char *const K_NCCL =
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *const K_ADAM =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor"
    "<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, "
    "double, bool, float*, float*>";

struct sst_gen_job {
    struct sst_gen_job_opts o;
    uint64_t *begin;          /* steps + 1: when each step begins on every rank */
    uint64_t (*end)[BUCKETS]; /* steps: when each all-reduce ends on every rank */
};

/* ---- the timings: pure functions of (seed, rank, step, item) ---- */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* mean +- spread/2, from the hash of (seed, rank, step, item) */
static uint64_t jit(const struct sst_gen_job_opts *o, uint32_t r, uint32_t s, uint32_t item,
                    uint64_t mean, uint64_t spread)
{
    uint64_t h = mix(o->seed * 0x9E3779B97F4A7C15ull ^ mix(((uint64_t)r << 32 | s) + item));
    return mean - spread / 2 + (spread ? h % spread : 0);
}

static uint64_t host_ns(const struct sst_gen_job_opts *o, uint32_t r, uint32_t s)
{
    uint64_t h = jit(o, r, s, 0, HOST_NS, HOST_JITTER_NS);
    return h + ((int64_t)r == o->straggler ? o->extra_host_ns : 0);
}

static uint64_t kernel_ns(const struct sst_gen_job_opts *o, uint32_t r, uint32_t s, uint32_t k)
{
    uint64_t mean = k % 2 ? ELEMWISE_NS : GEMM_NS;
    return jit(o, r, s, 1 + k, mean, mean / 5);
}

/* After which compute kernel each bucket's all-reduce starts: mid-backward, end of it. */
static uint32_t bucket_after(const struct sst_gen_job_opts *o, int b)
{
    uint32_t fwd = o->kernels / 2, bwd = o->kernels - fwd;
    return b == 0 ? fwd + bwd / 2 - 1 : o->kernels - 1;
}

/* When compute kernel k starts on rank r in the step that begins at t0 (launches keep ahead
 * of the GPU, so the kernels run back to back after the first launch). ends[k] gets each
 * kernel's end. */
static void compute_schedule(const struct sst_gen_job_opts *o, uint32_t r, uint32_t s, uint64_t t0,
                             uint64_t *starts, uint64_t *ends)
{
    uint64_t t = t0 + host_ns(o, r, s) + LAUNCH_NS + GPU_GAP_NS;
    for (uint32_t k = 0; k < o->kernels; k++) {
        starts[k] = t;
        ends[k] = t + kernel_ns(o, r, s, k);
        t = ends[k] + GPU_GAP_NS;
    }
}

/* ---- planning: the collectives' ends, from every rank's arrival ---- */

static void plan_step(struct sst_gen_job *j, uint32_t s, uint64_t *starts, uint64_t *ends)
{
    const struct sst_gen_job_opts *o = &j->o;
    uint64_t last[BUCKETS] = {0};
    for (uint32_t r = 0; r < o->world_size; r++) {
        compute_schedule(o, r, s, j->begin[s], starts, ends);
        for (int b = 0; b < BUCKETS; b++)
            if (ends[bucket_after(o, b)] > last[b]) last[b] = ends[bucket_after(o, b)];
    }
    j->end[s][0] = last[0] + TRANSFER_NS;
    uint64_t ready = last[1] > j->end[s][0] ? last[1] : j->end[s][0]; /* one NCCL stream */
    j->end[s][1] = ready + TRANSFER_NS;
    j->begin[s + 1] = j->end[s][1] + GPU_GAP_NS + OPTIMIZER_NS + TAIL_NS;
}

int sst_gen_job_plan(const struct sst_gen_job_opts *o, struct sst_gen_job **out)
{
    *out = NULL;
    if (o->world_size < 1 || o->steps < 1 || o->kernels < 4 || o->kernels > 100000)
        return SS_EINVAL;
    struct sst_gen_job *j = calloc(1, sizeof *j);
    uint64_t *starts = malloc(o->kernels * sizeof *starts);
    uint64_t *ends = malloc(o->kernels * sizeof *ends);
    if (j) j->begin = malloc(((size_t)o->steps + 1) * sizeof *j->begin);
    if (j) j->end = malloc((size_t)o->steps * sizeof *j->end);
    if (!j || !starts || !ends || !j->begin || !j->end) {
        free(starts), free(ends), sst_gen_job_free(j);
        return SS_ENOMEM;
    }
    j->o = *o;
    j->begin[0] = SST_GEN_START_MONO_NS + 1000000;
    for (uint32_t s = 0; s < o->steps; s++)
        plan_step(j, s, starts, ends);
    free(starts), free(ends);
    *out = j;
    return 0;
}

void sst_gen_job_free(struct sst_gen_job *j)
{
    if (!j) return;
    free(j->begin);
    free(j->end);
    free(j);
}

/* ---- writing one rank ---- */

struct rw {
    struct sst_writer *w;
    uint32_t tid, corr, device;
    uint32_t k_gemm, k_elem, k_nccl, k_adam;
};

static void api(struct rw *x, uint32_t cbid, uint64_t t0, uint64_t t1)
{
    struct sst_rec_api *a = sst_writer_reserve(x->w, SST_REC_API, sizeof *a);
    if (a)
        a->domain = SST_API_RUNTIME, a->cbid = cbid, a->start_ns = t0, a->end_ns = t1,
        a->tid = x->tid, a->correlation = ++x->corr;
}

/* A launch at host time t0 and its kernel [k0, k1) on stream. */
static void launch(struct rw *x, uint64_t t0, uint32_t name, uint64_t k0, uint64_t k1,
                   uint32_t stream)
{
    api(x, CBID_LAUNCH_KERNEL, t0, t0 + LAUNCH_NS);
    struct sst_rec_kernel *k = sst_writer_reserve(x->w, SST_REC_KERNEL, sizeof *k);
    if (!k) return;
    k->name = name, k->start_ns = k0, k->end_ns = k1, k->correlation = x->corr;
    k->stream = stream, k->device = (uint16_t)x->device;
    k->grid[0] = 132, k->grid[1] = k->grid[2] = 1, k->block[0] = 256, k->block[1] = 1;
    k->block[2] = 1;
}

static void step_rec(struct rw *x, uint8_t phase, uint64_t ts, uint32_t s)
{
    struct sst_rec_step *r = sst_writer_reserve(x->w, SST_REC_STEP, sizeof *r);
    if (r)
        r->phase = phase, r->source = SST_STEPSRC_API, r->ts_ns = ts, r->step = s, r->tid = x->tid;
}

/* The NCCL kernel of bucket b: from when this rank's compute reached it (or the NCCL stream
 * got free) to when the collective ends on every rank. */
static void all_reduce(struct rw *x, const struct sst_gen_job *j, uint32_t s, int b,
                       uint64_t host_t, uint64_t reached)
{
    uint64_t free_at = b ? j->end[s][b - 1] : 0;
    uint64_t k0 = reached > free_at ? reached : free_at;
    launch(x, host_t, x->k_nccl, k0 + GPU_GAP_NS, j->end[s][b], NCCL_STREAM);
}

static void write_step(struct rw *x, const struct sst_gen_job *j, uint32_t r, uint32_t s,
                       uint64_t *starts, uint64_t *ends)
{
    const struct sst_gen_job_opts *o = &j->o;
    uint64_t t0 = j->begin[s], t = t0 + host_ns(o, r, s);
    step_rec(x, SST_STEP_BEGIN, t0, s);
    compute_schedule(o, r, s, t0, starts, ends);
    for (uint32_t k = 0; k < o->kernels; k++, t += LAUNCH_EVERY_NS) {
        launch(x, t, k % 2 ? x->k_elem : x->k_gemm, starts[k], ends[k], COMPUTE_STREAM);
        for (int b = 0; b < BUCKETS; b++)
            if (k == bucket_after(o, b)) all_reduce(x, j, s, b, t += LAUNCH_EVERY_NS, ends[k]);
    }
    uint64_t opt0 = j->end[s][BUCKETS - 1] + GPU_GAP_NS;
    launch(x, t, x->k_adam, opt0, opt0 + OPTIMIZER_NS, COMPUTE_STREAM);
    t += LAUNCH_EVERY_NS;
    api(x, CBID_STREAM_SYNC, t, opt0 + OPTIMIZER_NS + TAIL_NS / 2); /* loss.item() */
    step_rec(x, SST_STEP_END, j->begin[s + 1], s);
}

static void prologue(struct rw *x, const struct sst_gen_job *j, int32_t rank, uint32_t pid)
{
    char host[32];
    snprintf(host, sizeof host, "gpu-node-%02d", rank < 0 ? 0 : rank / 8);
    uint32_t h = sst_writer_intern_cstr(x->w, host);
    uint32_t cmd = sst_writer_intern_cstr(x->w, rank < 0 ? "torchrun --nproc_per_node=8 train.py"
                                                         : "python -u train.py --ddp");
    struct sst_rec_process *p = sst_writer_reserve(x->w, SST_REC_PROCESS, sizeof *p);
    if (!p) return;
    p->pid = pid, p->ppid = rank < 0 ? 1 : LAUNCHER_PID, p->rank = rank;
    p->local_rank = rank < 0 ? -1 : rank % 8,
    p->world_size = rank < 0 ? -1 : (int32_t)j->o.world_size;
    p->hostname = h, p->cmdline = cmd, p->start_ns = j->begin[0] - 500000;
}

static void device_rec(struct rw *x)
{
    uint32_t name = sst_writer_intern_cstr(x->w, "NVIDIA H200");
    struct sst_rec_device *d = sst_writer_reserve(x->w, SST_REC_DEVICE, sizeof *d);
    if (d)
        d->device = x->device, d->name = name, d->sm_count = 132, d->cc_major = 9,
        d->global_mem = 150754820096ull;
}

static int open_writer(struct rw *x, const char *path, uint32_t pid)
{
    struct sst_writer_opts wo;
    sst_gen_writer_opts(&wo);
    wo.pid = pid;
    memset(x, 0, sizeof *x);
    x->tid = pid;
    return sst_writer_open(path, &wo, &x->w);
}

static int close_writer(struct rw *x, uint64_t end_ns)
{
    int err = sst_writer_error(x->w);
    int rc = sst_writer_close(x->w, end_ns);
    return err ? err : rc;
}

int sst_gen_job_write_rank(const struct sst_gen_job *j, uint32_t rank, const char *path)
{
    struct rw x;
    if (rank >= j->o.world_size) return SS_EINVAL;
    uint64_t *starts = malloc(j->o.kernels * sizeof *starts);
    uint64_t *ends = malloc(j->o.kernels * sizeof *ends);
    int rc = starts && ends ? open_writer(&x, path, 5000 + rank) : SS_ENOMEM;
    if (!rc) {
        x.device = rank % 8;
        prologue(&x, j, (int32_t)rank, 5000 + rank);
        device_rec(&x);
        x.k_gemm = sst_writer_intern_cstr(x.w, K_GEMM),
        x.k_elem = sst_writer_intern_cstr(x.w, K_ELEM);
        x.k_nccl = sst_writer_intern_cstr(x.w, K_NCCL),
        x.k_adam = sst_writer_intern_cstr(x.w, K_ADAM);
        for (uint32_t s = 0; s < j->o.steps; s++)
            write_step(&x, j, rank, s, starts, ends);
        rc = close_writer(&x, j->begin[j->o.steps] + 1000000);
    }
    free(starts), free(ends);
    return rc;
}

int sst_gen_job_write_launcher(const struct sst_gen_job *j, const char *path)
{
    struct rw x;
    int rc = open_writer(&x, path, LAUNCHER_PID);
    if (rc) return rc;
    prologue(&x, j, -1, LAUNCHER_PID);
    return close_writer(&x, j->begin[j->o.steps] + 2000000);
}
