/*
 * sst_gen_lib.c — the synthetic training loop behind sst-gen (see sst_gen_lib.h).
 *
 * The model: a host thread that, every step, waits in data loading (GPU idle), copies the
 * batch host-to-device (pageable memory on most steps, as with pin_memory=False), launches
 * a fixed sequence of forward/backward/optimizer kernels onto one stream (each kernel starts
 * when both its launch has reached the GPU and the previous kernel has finished) and reads
 * the loss back with .item() (a D2H copy and a stream synchronisation). API callback ids are
 * the real ones from cupti_runtime_cbid.h (CUDA 12/13).
 */
#include "sst_gen_lib.h"

#include <string.h>

#include "util/ss_error.h"

#define CBID_MALLOC 20
#define CBID_MEMCPY_ASYNC 41
#define CBID_STREAM_SYNC 131
#define CBID_LAUNCH_KERNEL 211 /* cudaLaunchKernel_v7000 */
#define STREAM 7
#define MAIN_TID 4242u
#define WORKER_TID 4300u

struct kdef {
    const char *name;
    uint32_t mean_ns;
    uint32_t grid, block;
};

/* Names in the forms CUPTI reports for a bf16 CNN/transformer on an sm90 GPU. */
static const struct kdef KERNELS[] = {
    {"nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNN", 182000, 132, 384},
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopB_TNT", 164000, 132, 384},
    {"nvjet_sm90_tst_128x128_64x5_2x1_v_bz_NTN", 95000, 264, 256},
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
     "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cudnn",
     210000, 396, 128},
    {"sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x256x64_"
     "warpgroupsize2x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
     240000, 264, 256},
    {"sm90_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x128x64_"
     "warpgroupsize1x1x1_execute_segment_k_on_kernel__5x_cudnn",
     260000, 528, 128},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
     "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
     "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::"
     "operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, "
     "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
     "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
     "const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, "
     "2ul>)",
     14000, 1024, 128},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::"
     "BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "std::array<char*, 3ul>)",
     11000, 2048, 128},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, "
     "float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> "
     ">(int, at::native::BUnaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)",
     6000, 512, 128},
    {"void at::native::(anonymous namespace)::batch_norm_collect_statistics_channels_last_"
     "kernel<c10::BFloat16, float, 4>(c10::BFloat16 const*, float*, float*, int, int, int*, "
     "float*, int*)",
     21000, 432, 256},
    {"void at::native::batch_norm_transform_input_channels_last_kernel<c10::BFloat16, float, "
     "float, 4>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, "
     "float const*, float const*, c10::BFloat16*, int, int, bool)",
     17000, 864, 256},
    {"void at::native::batch_norm_backward_reduce_channels_last_kernel<4, c10::BFloat16, "
     "float, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, "
     "float*, float*, float*, float*, int, int, int*, float*, int*)",
     26000, 432, 256},
    {"void at::native::(anonymous namespace)::max_pool_forward_nhwc<c10::BFloat16, float>("
     "c10::BFloat16 const*, int, long, long, long, long, int, int, int, int, int, int, int, "
     "int, int, int, int, int, c10::BFloat16*, long*)",
     31000, 1568, 256},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
     "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4> >("
     "at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned "
     "int, float, 4, 4>)",
     9000, 64, 512},
    {"void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, "
     "10, true, false>(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, "
     "bool)",
     8000, 128, 128},
    {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
     "float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, "
     "long, long)",
     5000, 1, 32},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
     "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor"
     "<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, "
     "double, bool, float*, float*>",
     48000, 320, 512},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
     "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::ZeroFunctor<float, "
     "1, 1>>",
     7000, 320, 512},
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
     "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
     "const::{lambda(float)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, "
     "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
     "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()"
     "() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>, "
     "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
     "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
     12000, 1024, 128},
    {"cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_void_bf16_128x128x64_2x1x1_0_tnn_"
     "align8_warpspecialized_cooperative_epi_tma",
     120000, 132, 384},
    {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_nn", 88000, 216, 128},
    {"void cudnn::ops::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, false, true, "
     "(cudnnKernelDataType_t)0>(cudnn::ops::nchw2nhwc_params_t<float>, __nv_bfloat16 const*, "
     "__nv_bfloat16*)",
     15000, 3136, 256},
    {"void cudnn::engines_precompiled::computeOffsetsKernel<false, false>("
     "cudnn::engines_precompiled::ComputeOffsetsParams)",
     3000, 8, 256},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, c10::BFloat16, float, "
     "c10::BFloat16, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>("
     "c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, long)",
     7000, 64, 256},
    {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
     "at::native::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, "
     "c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, c10::BFloat16)#1}>("
     "at::TensorIteratorBase&, at::native::threshold_kernel_impl<c10::BFloat16>("
     "at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, "
     "c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<"
     "at::native::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, "
     "c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, c10::BFloat16)#1}>("
     "at::TensorIteratorBase&, at::native::threshold_kernel_impl<c10::BFloat16>("
     "at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, "
     "c10::BFloat16)#1} const&)::{lambda(int)#1})",
     13000, 2048, 128},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 310000, 4,
     640},
};
#define NKDEF (sizeof KERNELS / sizeof KERNELS[0])

/* The per-step kernel sequence (indices into KERNELS): forward (conv/bn/relu blocks, head,
 * loss), backward (ending with the gradient all-reduce and clipping), optimizer. */
static const uint8_t FORWARD[] = {21, 22, 3, 9, 10, 24, 12, 3, 9, 10, 24, 3,
                                  9,  10, 24, 7, 13, 0, 7, 14, 15};
static const uint8_t BACKWARD[] = {23, 1, 2, 8, 24, 11, 4, 5, 24, 11, 4,
                                   5,  7, 24, 11, 4, 5, 20, 19, 25, 6};
static const uint8_t OPTIMIZER[] = {17, 16, 16, 18, 8};

struct gen {
    struct sst_writer *w;
    uint64_t rng;
    uint64_t t;        /* host clock of the training thread */
    uint64_t gpu_free; /* when the stream's last queued work ends */
    uint32_t corr;     /* CUPTI correlation ids */
    uint32_t kname[NKDEF];
    uint32_t dom, msg_step, msg_data, msg_fwd, msg_bwd, msg_opt;
    uint64_t kernels;
};

/* splitmix64: small, fast, and the same sequence everywhere for a seed. */
static uint64_t rnd(struct gen *g)
{
    uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* mean +- spread/2, uniformly. */
static uint64_t jitter(struct gen *g, uint64_t mean, uint64_t spread)
{
    return mean - spread / 2 + (spread ? rnd(g) % spread : 0);
}

static uint32_t str(struct gen *g, const char *s)
{
    return sst_writer_intern_cstr(g->w, s);
}

static void env(struct gen *g, const char *k, const char *v)
{
    uint32_t ks = str(g, k), vs = str(g, v);
    struct sst_rec_env *r = sst_writer_reserve(g->w, SST_REC_ENV, sizeof *r);
    if (r)
        r->key = ks, r->value = vs;
}

static void thread_rec(struct gen *g, uint32_t tid, const char *name)
{
    uint32_t n = str(g, name);
    struct sst_rec_thread *r = sst_writer_reserve(g->w, SST_REC_THREAD, sizeof *r);
    if (r)
        r->tid = tid, r->name = n, r->ts_ns = g->t;
}

static void process_rec(struct gen *g)
{
    uint32_t host = str(g, "gpu-node-07"), cmd = str(g, "python train.py --epochs 3 --bf16"),
             exe = str(g, "/usr/bin/python3.12");
    struct sst_rec_process *p = sst_writer_reserve(g->w, SST_REC_PROCESS, sizeof *p);
    if (!p)
        return;
    p->pid = SST_GEN_PID;
    p->ppid = 4200;
    p->rank = p->local_rank = p->world_size = -1;
    p->hostname = host, p->cmdline = cmd, p->exe = exe;
    p->start_ns = g->t;
}

static void device_rec(struct gen *g)
{
    uint32_t name = str(g, "NVIDIA H200");
    struct sst_rec_device *d = sst_writer_reserve(g->w, SST_REC_DEVICE, sizeof *d);
    if (!d)
        return;
    d->device = 0, d->name = name, d->sm_count = 132, d->cc_major = 9, d->cc_minor = 0;
    d->uuid_hi_crc = 0x5ca1ab1e, d->global_mem = 150754820096ull;
    d->mem_clock_khz = 3201000, d->mem_bus_width = 6144, d->pci_bus = 0x1b;
}

static void capture_rec(struct gen *g, uint8_t on, uint8_t reason)
{
    struct sst_rec_capture *c = sst_writer_reserve(g->w, SST_REC_CAPTURE, sizeof *c);
    if (c)
        c->on = on, c->reason = reason, c->what = 1 | 2 | 4, c->ts_ns = g->t;
}

/* The records a collector writes when it starts: who, where, what environment. */
static void write_prologue(struct gen *g)
{
    process_rec(g);
    thread_rec(g, MAIN_TID, "python");
    thread_rec(g, WORKER_TID, "pt_data_worker");
    env(g, "driver_version", "580.65.06");
    env(g, "cuda_runtime_version", "13.0");
    env(g, "torch_version", "2.11.0+cu130");
    env(g, "cudnn_version", "91200");
    env(g, "env.CUDA_LAUNCH_BLOCKING", "");
    env(g, "ulimit.nofile", "1048576");
    env(g, "cpu.model", "Intel(R) Xeon(R) Platinum 8480+");
    device_rec(g);
    g->dom = str(g, "stepscope");
    struct sst_rec_nvtx_domain *d = sst_writer_reserve(g->w, SST_REC_NVTX_DOMAIN, sizeof *d);
    if (d)
        d->name = g->dom, d->ts_ns = g->t;
    capture_rec(g, 1, SST_CAP_START);
    for (size_t i = 0; i < NKDEF; i++)
        g->kname[i] = str(g, KERNELS[i].name);
    g->msg_step = str(g, "step"), g->msg_data = str(g, "data");
    g->msg_fwd = str(g, "forward"), g->msg_bwd = str(g, "backward");
    g->msg_opt = str(g, "optimizer");
}

static void nvtx(struct gen *g, uint16_t type, uint32_t message, uint64_t payload, int has_pl)
{
    struct sst_rec_nvtx *n = sst_writer_reserve(g->w, type, sizeof *n);
    if (!n)
        return;
    n->tid = MAIN_TID, n->ts_ns = g->t, n->domain = g->dom, n->message = message;
    n->payload = payload;
    n->payload_type = has_pl ? SST_PAYLOAD_U64 : SST_PAYLOAD_NONE;
}

static void step_rec(struct gen *g, uint8_t phase, uint64_t step)
{
    struct sst_rec_step *s = sst_writer_reserve(g->w, SST_REC_STEP, sizeof *s);
    if (s)
        s->phase = phase, s->source = SST_STEPSRC_API, s->ts_ns = g->t, s->step = step,
        s->tid = MAIN_TID;
}

/* One runtime API call on the training thread from g->t lasting dur; advances g->t. */
static uint32_t api(struct gen *g, uint32_t cbid, uint64_t dur)
{
    struct sst_rec_api *a = sst_writer_reserve(g->w, SST_REC_API, sizeof *a);
    uint32_t corr = ++g->corr;
    if (a) {
        a->domain = SST_API_RUNTIME, a->start_ns = g->t, a->end_ns = g->t + dur;
        a->tid = MAIN_TID, a->cbid = cbid, a->correlation = corr;
    }
    g->t += dur;
    return corr;
}

/* Launch + kernel: the kernel starts once the launch reached the GPU and the stream is free. */
static void launch(struct gen *g, unsigned k)
{
    const struct kdef *d = &KERNELS[k];
    uint32_t corr = api(g, CBID_LAUNCH_KERNEL, jitter(g, 4200, 1600));
    uint64_t start = g->t + 1500 > g->gpu_free ? g->t + 1500 : g->gpu_free + 800;
    uint64_t end = start + jitter(g, d->mean_ns, d->mean_ns / 10);
    struct sst_rec_kernel *r = sst_writer_reserve(g->w, SST_REC_KERNEL, sizeof *r);
    if (r) {
        r->name = g->kname[k], r->start_ns = start, r->end_ns = end, r->correlation = corr;
        r->stream = STREAM, r->grid[0] = d->grid, r->grid[1] = r->grid[2] = 1;
        r->block[0] = (uint16_t)d->block, r->block[1] = r->block[2] = 1;
        r->registers = 128, r->shared_dynamic = d->block >= 256 ? 98304 : 0;
    }
    g->gpu_free = end;
    g->kernels++;
    g->t += jitter(g, 9000, 8000); /* Python and dispatcher time before the next launch */
}

/* A copy on the stream; synchronous copies (pageable, D2H) hold the host until they end. */
static void copy(struct gen *g, uint8_t kind, uint8_t src, uint8_t dst, uint64_t bytes,
                 double gb_per_s)
{
    uint64_t t0 = g->t;
    uint64_t start = (t0 + 2000 > g->gpu_free ? t0 + 2000 : g->gpu_free + 800);
    uint64_t end = start + 1500 + (uint64_t)((double)bytes / gb_per_s);
    int blocking = src == SST_MEM_PAGEABLE || dst == SST_MEM_PAGEABLE;
    uint32_t corr = api(g, CBID_MEMCPY_ASYNC, blocking ? end + 1200 - t0 : 3500);
    struct sst_rec_memcpy *m = sst_writer_reserve(g->w, SST_REC_MEMCPY, sizeof *m);
    if (m) {
        m->copy_kind = kind, m->src_kind = src, m->dst_kind = dst, m->flags = SST_CF_ASYNC;
        m->start_ns = start, m->end_ns = end, m->bytes = bytes, m->correlation = corr;
        m->stream = STREAM;
    }
    g->gpu_free = end;
}

/* loss.item(): a 4-byte D2H copy and a stream synchronisation that waits for the GPU. */
static void item_sync(struct gen *g)
{
    copy(g, SST_COPY_D2H, SST_MEM_DEVICE, SST_MEM_PAGEABLE, 4, 1.0);
    uint64_t t0 = g->t;
    uint64_t wait = g->gpu_free > t0 ? g->gpu_free - t0 : 0;
    uint32_t corr = api(g, CBID_STREAM_SYNC, wait + 2500);
    struct sst_rec_sync *s = sst_writer_reserve(g->w, SST_REC_SYNC, sizeof *s);
    if (s)
        s->kind = SST_SYNC_STREAM, s->start_ns = t0, s->end_ns = t0 + wait + 2000,
        s->correlation = corr, s->stream = STREAM;
}

/* Cumulative process counters, as the collector's sampler reads them. */
static void host_sample(struct gen *g, uint64_t step)
{
    struct sst_rec_host_sample *h = sst_writer_reserve(g->w, SST_REC_HOST_SAMPLE, sizeof *h);
    if (!h)
        return;
    uint64_t el = g->t - SST_GEN_START_MONO_NS;
    h->threads = 37, h->ts_ns = g->t, h->cpu_user_ns = el * 9 / 10, h->cpu_sys_ns = el / 20;
    h->child_user_ns = el * 3, h->child_sys_ns = el / 4;
    h->read_bytes = step * 9633792, h->rchar = step * 9700000 + 123456;
    h->vol_ctxsw = step * 41, h->invol_ctxsw = step * 3, h->rss_bytes = 6442450944ull;
    h->children = 4;
}

static void run_kernels(struct gen *g, const uint8_t *seq, size_t n, uint32_t msg)
{
    nvtx(g, SST_REC_NVTX_PUSH, msg, 0, 0);
    for (size_t i = 0; i < n; i++)
        launch(g, seq[i]);
    nvtx(g, SST_REC_NVTX_POP, SST_NO_STRING, 0, 0);
}

/* One training step: data loading, input copy, forward, backward, optimizer, loss.item(). */
static void write_step(struct gen *g, uint64_t step)
{
    step_rec(g, SST_STEP_BEGIN, step);
    nvtx(g, SST_REC_NVTX_PUSH, g->msg_step, step, 1);
    g->t += 15000;
    nvtx(g, SST_REC_NVTX_PUSH, g->msg_data, 0, 0);
    g->t += jitter(g, 3500000, 1500000); /* the DataLoader: GPU idle meanwhile */
    nvtx(g, SST_REC_NVTX_POP, SST_NO_STRING, 0, 0);
    int pinned = step % 8 == 7; /* mostly pageable: pin_memory=False */
    copy(g, SST_COPY_H2D, pinned ? SST_MEM_PINNED : SST_MEM_PAGEABLE, SST_MEM_DEVICE, 9633792,
         pinned ? 24.0 : 9.5);
    copy(g, SST_COPY_H2D, SST_MEM_PAGEABLE, SST_MEM_DEVICE, 512, 1.0);
    run_kernels(g, FORWARD, sizeof FORWARD, g->msg_fwd);
    run_kernels(g, BACKWARD, sizeof BACKWARD, g->msg_bwd);
    run_kernels(g, OPTIMIZER, sizeof OPTIMIZER, g->msg_opt);
    item_sync(g);
    nvtx(g, SST_REC_NVTX_POP, SST_NO_STRING, 0, 0);
    step_rec(g, SST_STEP_END, step);
    if (step % 10 == 0)
        host_sample(g, step);
    g->t += jitter(g, 30000, 20000);
}

static int done(const struct gen *g, const struct sst_gen_opts *o, uint64_t steps)
{
    struct sst_writer_stats st;
    sst_writer_get_stats(g->w, &st);
    /* file_bytes counts flushed chunks only: at most one chunk short of the target */
    return (o->steps && steps >= o->steps) || (o->max_records && st.records >= o->max_records) ||
           (o->max_bytes && st.file_bytes >= o->max_bytes) || sst_writer_error(g->w) != 0;
}

void sst_gen_writer_opts(struct sst_writer_opts *o)
{
    memset(o, 0, sizeof *o);
    o->clock = SST_CLOCK_SYNTHETIC;
    o->features = SST_FEAT_SYNTHETIC | SST_FEAT_CUPTI | SST_FEAT_NVTX | SST_FEAT_HOST_SAMPLES;
    o->pid = SST_GEN_PID;
    o->start_mono_ns = SST_GEN_START_MONO_NS;
    o->start_unix_ns = SST_GEN_START_UNIX_NS;
}

int sst_gen_write(struct sst_writer *w, const struct sst_gen_opts *o, struct sst_gen_result *res)
{
    if (!o->steps && !o->max_records && !o->max_bytes)
        return SS_EINVAL; /* no limit: it would never stop */
    struct gen g;
    memset(&g, 0, sizeof g);
    g.w = w;
    g.rng = o->seed;
    g.t = SST_GEN_START_MONO_NS + 50000;
    write_prologue(&g);
    uint64_t steps = 0;
    while (!done(&g, o, steps))
        write_step(&g, steps++);
    g.t += 100000;
    capture_rec(&g, 0, SST_CAP_EXIT);
    if (res) {
        res->steps = steps;
        res->kernels = g.kernels;
        res->end_ns = g.t;
    }
    return sst_writer_error(w);
}
