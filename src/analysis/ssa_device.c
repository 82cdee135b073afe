/*
 * ssa_device.c — the ONE table of GPU peaks, keyed by the device's name, and the step's
 * achieved throughput against them (ssa_throughput).
 *
 * Peaks are the vendor's datasheet figures for dense math (the datasheets print tensor-core
 * figures with 2:4 structured sparsity, marked *: halved here), per GPU, at the boost clock:
 *   H100 SXM5, H100 PCIe, H100 NVL: NVIDIA H100 Tensor Core GPU datasheet
 *     (nvidia.com/en-us/data-center/h100/), FP32 67 / 51 / 60, TF32 989* / 756* / 835*,
 *     BF16 1979* / 1513* / 1671* TFLOPS; HBM 3.35 / 2.0 / 3.9 TB/s.
 *   H200 SXM, H200 NVL: NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/
 *     h200/), FP32 67 / 60, TF32 989* / 835*, BF16 1979* / 1671*; HBM3e 4.8 TB/s.
 *   A100 (SXM4 and PCIe, 40 and 80 GB): NVIDIA A100 Tensor Core GPU datasheet, FP32 19.5,
 *     TF32 156 (312*), BF16 312 (624*); HBM2e 2.039 TB/s (80 GB SXM; 1.935 PCIe, 1.555 40 GB).
 *   L40S: NVIDIA L40S datasheet, FP32 91.6, TF32 183 (366*), BF16 362.05 (733*); 864 GB/s.
 *   B200: NVIDIA HGX B200 specifications, per GPU: FP32 75, TF32 2.2 PF*, FP16/BF16 4.5 PF*;
 *     HBM3e 7.7 TB/s.
 * CUDA reports names such as "NVIDIA H100 80GB HBM3" (SXM), "NVIDIA H100 PCIe", "NVIDIA H200",
 * "NVIDIA A100-SXM4-80GB", "NVIDIA L40S", "NVIDIA B200": rows are tried in order, the first
 * whose substrings all occur wins (the specific variants before the family).
 */
#include <string.h>

#include "ssa.h"

struct peak_row {
    const char *all[2]; /* substrings that must all occur; unused slot NULL */
    struct ssa_device_peak peak;
};

static const struct peak_row peak_rows[] = {
    {{"H200", "NVL"}, {"H200 NVL", 835.5, 417.5, 60.0, 4800}},
    {{"H200"}, {"H200 SXM", 989.5, 494.5, 67.0, 4800}},
    {{"H100", "PCIe"}, {"H100 PCIe", 756.5, 378.0, 51.0, 2000}},
    {{"H100", "NVL"}, {"H100 NVL", 835.5, 417.5, 60.0, 3900}},
    {{"H100"}, {"H100 SXM5", 989.5, 494.5, 67.0, 3350}},
    {{"A100", "PCI"}, {"A100 PCIe", 312.0, 156.0, 19.5, 1935}},
    {{"A100", "40GB"}, {"A100 40GB", 312.0, 156.0, 19.5, 1555}},
    {{"A100"}, {"A100 SXM4 80GB", 312.0, 156.0, 19.5, 2039}},
    {{"L40S"}, {"L40S", 362.0, 183.0, 91.6, 864}},
    {{"B200"}, {"B200 (HGX)", 2250.0, 1100.0, 75.0, 7700}},
};

static int row_matches(const struct peak_row *row, const char *name)
{
    for (int i = 0; i < 2 && row->all[i]; i++)
        if (!strstr(name, row->all[i])) return 0;
    return 1;
}

const struct ssa_device_peak *ssa_device_peak(const char *device_name)
{
    if (!device_name) return NULL;
    for (size_t i = 0; i < sizeof peak_rows / sizeof peak_rows[0]; i++)
        if (row_matches(&peak_rows[i], device_name)) return &peak_rows[i].peak;
    return NULL;
}

/* The GEMM-like kernels' time per step (tensor-core and fp32 GEMM/conv, attention): where the
 * model's FLOPs are spent. */
static double gemm_ms(const struct ssa_summary *s)
{
    return s->kclass_ms[SSA_KC_GEMM_TC] + s->kclass_ms[SSA_KC_GEMM_FP32] +
           s->kclass_ms[SSA_KC_ATTENTION];
}

/* Of the fp32-class GEMM kernels' time, the share whose names say tf32 (tensor cores). */
static double tf32_share(const struct ssa_result *r)
{
    double tf32 = 0, all = 0;
    for (size_t i = 0; i < r->n_knames; i++) {
        if (r->knames[i].kclass != SSA_KC_GEMM_FP32) continue;
        all += (double)r->knames[i].total_ns;
        if (r->kname_text && r->kname_text[i] && strstr(r->kname_text[i], "tf32"))
            tf32 += (double)r->knames[i].total_ns;
    }
    return all > 0 ? tf32 / all : 0;
}

void ssa_throughput(const struct ssa_result *r, const struct ssa_summary *s,
                    struct ssa_throughput *t)
{
    memset(t, 0, sizeof *t);
    t->peak = ssa_device_peak(r->device_name);
    double step_s = (double)s->mean_ns / 1e9;
    if (!s->steps || step_s <= 0) return;
    t->steps_per_s = 1 / step_s;
    const struct ssa_batch *b = &r->batch;
    t->samples_per_s = b->samples / step_s;
    t->tokens_per_s = b->tokens / step_s;
    t->flops_per_s = b->flops / step_s;
    double gemm_s = gemm_ms(s) / 1e3;
    t->gemm_flops_per_s = b->flops > 0 && gemm_s > 0 ? b->flops / gemm_s : 0;
    if (!t->peak || b->flops <= 0) return;
    /* against the peak of the math most GEMM time ran in: bf16/fp16 tensor cores, tf32
     * tensor cores, or fp32 on CUDA cores (TF32 off) */
    double tf32 = tf32_share(r) * s->kclass_ms[SSA_KC_GEMM_FP32];
    double fp32 = s->kclass_ms[SSA_KC_GEMM_FP32] - tf32, bf16 = s->kclass_ms[SSA_KC_GEMM_TC];
    double peak = t->peak->bf16_tflops;
    t->peak_basis = "bf16";
    if (tf32 > bf16 && tf32 >= fp32) peak = t->peak->tf32_tflops, t->peak_basis = "tf32";
    if (fp32 > bf16 && fp32 > tf32) peak = t->peak->fp32_tflops, t->peak_basis = "fp32";
    peak *= 1e12;
    t->mfu_pct = 100 * t->flops_per_s / peak;
    t->gemm_peak_pct = 100 * t->gemm_flops_per_s / peak;
}
