/*
 * test_throughput.c — the step's throughput (issue #31, ssa_device.c): the device peak table
 * by the names CUDA reports, and the batch mark "batch: samples=N tokens=N flops=N" read into
 * samples, tokens and FLOP/s against the peak of the math the GEMMs ran in.
 * Usage: test_throughput FIXTURE_DIR (unused)
 */
#include <string.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 100
#define STEP_NS (10 * MS)
#define NVJET "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"

static double absd(double x)
{
    return x < 0 ? -x : x;
}

/* The names CUDA gives the devices of the table, and ones it has no row for. */
static void test_peak_table(void)
{
    static const struct {
        const char *device, *row;
    } names[] = {
        {"NVIDIA H200", "H200 SXM"},         {"NVIDIA H200 NVL", "H200 NVL"},
        {"NVIDIA H100 80GB HBM3", "H100 SXM5"}, {"NVIDIA H100 PCIe", "H100 PCIe"},
        {"NVIDIA H100 NVL", "H100 NVL"},     {"NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"},
        {"NVIDIA A100-SXM4-40GB", "A100 40GB"}, {"NVIDIA A100 80GB PCIe", "A100 PCIe"},
        {"NVIDIA L40S", "L40S"},             {"NVIDIA B200", "B200 (HGX)"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct ssa_device_peak *p = ssa_device_peak(names[i].device);
        REQUIRE(p != NULL);
        CHECK_STR(p->name, names[i].row);
        CHECK(p->bf16_tflops > p->tf32_tflops && p->tf32_tflops > p->fp32_tflops);
    }
    CHECK(absd(ssa_device_peak("NVIDIA H200")->bf16_tflops - 989.5) < 1e-9);
    CHECK(ssa_device_peak("NVIDIA GeForce RTX 4090") == NULL);
    CHECK(ssa_device_peak(NULL) == NULL);
}

/* 10 ms steps on an H200: a bf16 GEMM [0, 8); the program marks its batch once (mark_text:
 * NULL for none). 256 samples, 65536 tokens and 5e12 FLOPs a step: 25600 samples/s, 6.55 M
 * tokens/s, 500 TFLOP/s (50.5 % of the bf16 peak), the GEMM kernels 625 TFLOP/s (63.2 %). */
static void write_marked(const char *path, const char *mark_text)
{
    struct synth s;
    synth_open(&s, path);
    synth_device(&s, 0, "NVIDIA H200", 132);
    if (mark_text) {
        uint32_t msg = sst_writer_intern_cstr(s.w, mark_text);
        synth_nvtx(&s, SST_REC_NVTX_MARK, T0, TID, s.domain, msg, 0, 0);
    }
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t o = T0 + k * STEP_NS;
        synth_step(&s, SST_STEP_BEGIN, o, k, TID);
        synth_kernel(&s, NVJET, o, o + 8 * MS);
        synth_step(&s, SST_STEP_END, o + STEP_NS, k, TID);
    }
    synth_close(&s);
}

static void throughput_of(const char *path, struct ssa_result **r, struct ssa_throughput *t)
{
    struct ssa_opts o = {.window_ns = 0, .no_warmup = 1};
    struct ssa_summary s;
    CHECK_EQ(ssa_analyze_file(path, &o, r), 0);
    REQUIRE(*r != NULL);
    ssa_summarize(*r, &s);
    ssa_throughput(*r, &s, t);
}

static void test_batch_mark(void)
{
    const char *path = ss_test_path("batch-marked.sstrace");
    write_marked(path, "batch: samples=256 tokens=65536 flops=5e12");
    struct ssa_result *r;
    struct ssa_throughput t;
    throughput_of(path, &r, &t);
    CHECK_EQ(r->batch.marks, 1);
    CHECK(absd(t.steps_per_s - 100) < 1e-6);
    CHECK(absd(t.samples_per_s - 25600) < 1e-6);
    CHECK(absd(t.tokens_per_s - 6553600) < 1e-3);
    CHECK(absd(t.flops_per_s - 5e14) < 1);
    CHECK(absd(t.gemm_flops_per_s - 6.25e14) < 1);
    REQUIRE(t.peak_basis != NULL);
    CHECK_STR(t.peak_basis, "bf16");
    CHECK(absd(t.mfu_pct - 100 * 5e14 / 989.5e12) < 1e-6);
    CHECK(absd(t.gemm_peak_pct - 100 * 6.25e14 / 989.5e12) < 1e-6);
    ssa_result_free(r);

    /* only samples, a malformed value skipped */
    path = ss_test_path("batch-samples.sstrace");
    write_marked(path, "batch: samples=32 tokens=lots");
    throughput_of(path, &r, &t);
    CHECK(absd(t.samples_per_s - 3200) < 1e-6);
    CHECK(t.tokens_per_s == 0 && t.flops_per_s == 0 && t.peak_basis == NULL);
    ssa_result_free(r);

    /* no mark: the rate of steps only, the device's peaks still known */
    path = ss_test_path("batch-none.sstrace");
    write_marked(path, NULL);
    throughput_of(path, &r, &t);
    CHECK_EQ(r->batch.marks, 0);
    CHECK(t.samples_per_s == 0 && t.peak != NULL);
    ssa_result_free(r);
}

/* The Python shim's DataLoader mark (docs/markers.md): without batch marks its samples and
 * tokens a step are the batch (2 batches of 64 a step: 12800 samples/s); the program's own
 * batch mark wins over it. */
static void test_loader_mark(void)
{
    const char *path = ss_test_path("batch-loader.sstrace");
    write_marked(path, "dataloader: workers=2 batch_size=64 pin_memory=1 persistent_workers=0 "
                       "samples=128 tokens=4096 batches_per_step=2");
    struct ssa_result *r;
    struct ssa_throughput t;
    throughput_of(path, &r, &t);
    CHECK_EQ(r->batch.marks, 0);
    CHECK_EQ(r->batch.from_loader, 1);
    CHECK_EQ(r->loader.marks, 1);
    CHECK(absd(r->loader.workers - 2) < 1e-9 && absd(r->loader.per_step - 2) < 1e-9);
    CHECK(absd(r->loader.pin_memory - 1) < 1e-9 && r->loader.persistent == 0);
    CHECK(absd(t.samples_per_s - 12800) < 1e-6);
    CHECK(absd(t.tokens_per_s - 409600) < 1e-6);
    CHECK(t.flops_per_s == 0);
    ssa_result_free(r);

    /* with the optimizer's parameters and token inputs: FLOPs as 6 x 124 M x 4096 a step,
     * 3.05 PFLOP in 10 ms: 305 TFLOP/s, 30.8 % of the H200's bf16 peak (989.5) */
    path = ss_test_path("batch-loader-params.sstrace");
    write_marked(path, "dataloader: workers=2 batch_size=64 pin_memory=1 persistent_workers=0 "
                       "samples=128 tokens=4096 batches_per_step=2 params=124000000");
    throughput_of(path, &r, &t);
    CHECK(absd(r->batch.flops - 6.0 * 124e6 * 4096) < 1);
    CHECK(absd(r->batch.params - 124e6) < 1e-6);
    CHECK(absd(t.flops_per_s - 6.0 * 124e6 * 4096 / 0.01) < 1e3);
    CHECK(absd(t.mfu_pct - 100 * 6.0 * 124e6 * 4096 / 0.01 / 989.5e12) < 1e-9);
    ssa_result_free(r);

    /* parameters without tokens (images): FLOPs stay unknown */
    path = ss_test_path("batch-loader-images.sstrace");
    write_marked(path, "dataloader: workers=2 batch_size=64 pin_memory=1 persistent_workers=0 "
                       "samples=64 tokens=0 batches_per_step=1 params=11689512");
    throughput_of(path, &r, &t);
    CHECK(r->batch.flops == 0 && t.mfu_pct == 0 && r->batch.params == 0);
    ssa_result_free(r);

    /* a batch mark of the program's own, then the loader's: the program's stands */
    path = ss_test_path("batch-both.sstrace");
    {
        struct synth s;
        synth_open(&s, path);
        synth_device(&s, 0, "NVIDIA H200", 132);
        const char *texts[] = {"batch: samples=256", "dataloader: workers=0 samples=8"};
        for (int i = 0; i < 2; i++)
            synth_nvtx(&s, SST_REC_NVTX_MARK, T0 + (uint64_t)i, TID, s.domain,
                       sst_writer_intern_cstr(s.w, texts[i]), 0, 0);
        for (uint64_t k = 0; k < 4; k++) {
            synth_step(&s, SST_STEP_BEGIN, T0 + k * STEP_NS, k, TID);
            synth_kernel(&s, NVJET, T0 + k * STEP_NS, T0 + k * STEP_NS + 8 * MS);
            synth_step(&s, SST_STEP_END, T0 + (k + 1) * STEP_NS, k, TID);
        }
        synth_close(&s);
    }
    throughput_of(path, &r, &t);
    CHECK_EQ(r->batch.from_loader, 0);
    CHECK(absd(t.samples_per_s - 25600) < 1e-6);
    ssa_result_free(r);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_peak_table();
    test_batch_mark();
    test_loader_mark();
    return ss_test_result();
}
