/*
 * ssa_kernel_class.c — the one table that puts a kernel name in a class.
 *
 * Rows are tried in order; a row matches when the name contains every one of its
 * substrings (case-sensitive: mangled names are). Order matters: NCCL, attention and the
 * optimizer first (their kernels also say "gemm" or "elementwise" inside template
 * arguments), then the GEMM/conv rows that recognise fp32/tf32 by their type tokens, then
 * the tensor-core GEMM/conv rows, then reductions before elementwise. The names the rows
 * were written against are real H200 names (cuBLASLt nvjet_*, cuDNN sm90_xmma_*, cutlass,
 * at::native, cudnn legacy engines): tests/analysis/test_kernel_class.c holds them.
 * A name is classified once per trace (per string id), so the cost of the scan is nothing.
 */
#include <string.h>

#include "ssa.h"

struct kc_rule {
    const char *all[3]; /* substrings that must all occur; unused slots NULL */
    enum ssa_kclass kc;
};

static const struct kc_rule kc_rules[] = {
    /* communication */
    {{"nccl"}, SSA_KC_NCCL},
    {{"Nccl"}, SSA_KC_NCCL},
    /* attention: FlashAttention 2/3, xformers/PyTorch mem-efficient, cuDNN SDPA, fmha */
    {{"flash"}, SSA_KC_ATTENTION},
    {{"Flash"}, SSA_KC_ATTENTION},
    {{"fmha"}, SSA_KC_ATTENTION},
    {{"attention"}, SSA_KC_ATTENTION},
    {{"Attention"}, SSA_KC_ATTENTION},
    {{"sdpa"}, SSA_KC_ATTENTION},
    /* optimizer: foreach (multi_tensor_apply), fused Adam/SGD, apex */
    {{"multi_tensor_apply"}, SSA_KC_OPTIMIZER},
    {{"fused_adam"}, SSA_KC_OPTIMIZER},
    {{"FusedAdam"}, SSA_KC_OPTIMIZER},
    {{"fused_sgd"}, SSA_KC_OPTIMIZER},
    {{"_adam_"}, SSA_KC_OPTIMIZER},
    /* an optimizer stepping one parameter tensor at a time (foreach=False, libtorch's C++
     * optimizers): its ops are plain elementwise kernels, but these three are only ever the
     * Adam family's update (exp_avg.lerp_, exp_avg_sq.addcmul_, param.addcdiv_) */
    {{"lerp_scalar_kernel"}, SSA_KC_OPTIMIZER},
    {{"lerp_tensor_kernel"}, SSA_KC_OPTIMIZER},
    {{"addcmul_cuda_kernel"}, SSA_KC_OPTIMIZER},
    {{"addcdiv_cuda_kernel"}, SSA_KC_OPTIMIZER},
    /* GEMM/conv without reduced-precision tensor cores: fp32 (ffma, sgemm) and tf32 */
    {{"tf32"}, SSA_KC_GEMM_FP32},
    {{"f32f32_f32f32"}, SSA_KC_GEMM_FP32},
    {{"_ffma_"}, SSA_KC_GEMM_FP32},
    {{"sgemm"}, SSA_KC_GEMM_FP32},
    {{"dgemm"}, SSA_KC_GEMM_FP32},
    {{"winograd"}, SSA_KC_GEMM_FP32},
    {{"_alg0_engine"}, SSA_KC_GEMM_FP32},
    {{"_alg1_engine"}, SSA_KC_GEMM_FP32},
    {{"dgrad_engine"}, SSA_KC_GEMM_FP32},
    {{"gemv"}, SSA_KC_GEMM_FP32},
    /* cuBLASLt helper kernels take the GEMM's type: reduced precision means tensor cores */
    {{"cublasLt", "bfloat16"}, SSA_KC_GEMM_TC},
    {{"cublasLt", "half"}, SSA_KC_GEMM_TC},
    {{"cublasLt"}, SSA_KC_GEMM_FP32},
    /* tensor-core GEMM/conv: Hopper cuBLASLt (nvjet), cuDNN/cuBLAS xmma, cutlass, MMA ops */
    {{"nvjet"}, SSA_KC_GEMM_TC},
    {{"xmma"}, SSA_KC_GEMM_TC},
    {{"cutlass"}, SSA_KC_GEMM_TC},
    {{"wgmma"}, SSA_KC_GEMM_TC},
    {{"hmma"}, SSA_KC_GEMM_TC},
    {{"s16816"}, SSA_KC_GEMM_TC},
    {{"h16816"}, SSA_KC_GEMM_TC},
    {{"h1688"}, SSA_KC_GEMM_TC},
    {{"h884"}, SSA_KC_GEMM_TC},
    {{"i8816"}, SSA_KC_GEMM_TC},
    {{"gemm", "bf16"}, SSA_KC_GEMM_TC},
    {{"gemm", "f16"}, SSA_KC_GEMM_TC},
    {{"gemm", "bfloat16"}, SSA_KC_GEMM_TC},
    {{"gemm", "e4m3"}, SSA_KC_GEMM_TC},
    {{"triton_tem"}, SSA_KC_GEMM_TC}, /* Inductor templates: matmul/conv */
    {{"gemm"}, SSA_KC_GEMM_FP32},     /* a GEMM that states no reduced type */
    {{"Gemm"}, SSA_KC_GEMM_FP32},
    /* layout transforms first: cuDNN's padding kernel names a "reduced_divisor" */
    {{"nchwToNhwc"}, SSA_KC_ELEMENTWISE},
    {{"nhwcToNchw"}, SSA_KC_ELEMENTWISE},
    {{"AddPadding"}, SSA_KC_ELEMENTWISE},
    /* reductions, normalisation, softmax, losses, pooling */
    {{"reduce"}, SSA_KC_REDUCTION},
    {{"Reduce"}, SSA_KC_REDUCTION},
    {{"collect_statistics"}, SSA_KC_REDUCTION},
    {{"batch_norm_backward_elemt"}, SSA_KC_ELEMENTWISE},
    {{"batch_norm_transform_input"}, SSA_KC_ELEMENTWISE},
    {{"bn_fw"}, SSA_KC_REDUCTION},
    {{"bn_bw"}, SSA_KC_REDUCTION},
    {{"layer_norm"}, SSA_KC_REDUCTION},
    {{"LayerNorm"}, SSA_KC_REDUCTION},
    {{"GammaBetaBackward"}, SSA_KC_REDUCTION}, /* layer norm's weight grads; Kineto demangles */
    {{"RowwiseMoments"}, SSA_KC_REDUCTION},
    {{"Welford"}, SSA_KC_REDUCTION},
    {{"softmax"}, SSA_KC_REDUCTION},
    {{"nll_loss"}, SSA_KC_REDUCTION},
    {{"cross_entropy"}, SSA_KC_REDUCTION},
    {{"max_pool"}, SSA_KC_REDUCTION},
    {{"avg_pool"}, SSA_KC_REDUCTION},
    {{"adaptive_"}, SSA_KC_REDUCTION},
    {{"DeviceScan"}, SSA_KC_REDUCTION},
    {{"triton_red"}, SSA_KC_REDUCTION},
    {{"triton_per"}, SSA_KC_REDUCTION},
    /* elementwise: at::native pointwise, fills, copies as kernels, layout transforms, RNG */
    {{"elementwise"}, SSA_KC_ELEMENTWISE},
    {{"Functor"}, SSA_KC_ELEMENTWISE},
    {{"copy_kernel"}, SSA_KC_ELEMENTWISE},
    {{"scal_kernel"}, SSA_KC_ELEMENTWISE},
    {{"CatArray"}, SSA_KC_ELEMENTWISE},
    {{"scatter"}, SSA_KC_ELEMENTWISE},
    {{"gather"}, SSA_KC_ELEMENTWISE},
    {{"index"}, SSA_KC_ELEMENTWISE},
    {{"transpose"}, SSA_KC_ELEMENTWISE},
    {{"triton_poi"}, SSA_KC_ELEMENTWISE},
};

static int rule_matches(const struct kc_rule *rule, const char *name)
{
    for (int i = 0; i < 3 && rule->all[i]; i++)
        if (!strstr(name, rule->all[i])) return 0;
    return 1;
}

enum ssa_kclass ssa_kernel_class(const char *name)
{
    if (!name || !*name) return SSA_KC_OTHER;
    for (size_t i = 0; i < sizeof kc_rules / sizeof kc_rules[0]; i++)
        if (rule_matches(&kc_rules[i], name)) return kc_rules[i].kc;
    return SSA_KC_OTHER;
}

/* A name table's row: the first row whose text the kernel's name holds gives its value. */
struct name_rule {
    const char *has;
    int value;
};
#define FIRST_RULE(rows, name, none)                                                          \
    first_rule((rows), sizeof(rows) / sizeof(rows)[0], (name), (none))

static int first_rule(const struct name_rule *rows, size_t n, const char *name, int none)
{
    for (size_t i = 0; name && i < n; i++)
        if (strstr(name, rows[i].has)) return rows[i].value;
    return none;
}

/* Kernels a compiler cannot fuse with their neighbours, first match. The statistics of a
 * training BatchNorm (PyTorch's native kernels: collect_statistics, backward_reduce; cuDNN's
 * NCHW kernels do statistics and normalisation in one kernel and stay OPEN) and GroupNorm
 * (RowwiseMoments) are a reduction over the batch that must end before the normalisation
 * starts: Inductor emits a reduction kernel and a pointwise one for them too. cuDNN's
 * transposes around an NHWC convolution on NCHW tensors are no part of a chain (DONE). */
static const struct name_rule fusion_rules[] = {
    {"triton_", SSA_FUSE_DONE},
    {"nchwToNhwcKernel", SSA_FUSE_DONE}, /* cuDNN's layout transposes: the nchw_layout    */
    {"nhwcToNchwKernel", SSA_FUSE_DONE}, /* what-if prices them, and fusing keeps no part */
    {"collect_statistics", SSA_FUSE_OWN_PASS},
    {"batch_norm_backward_reduce", SSA_FUSE_OWN_PASS},
    {"RowwiseMoments", SSA_FUSE_OWN_PASS},
};

enum ssa_fusion ssa_kernel_fusion(const char *name)
{
    return (enum ssa_fusion)FIRST_RULE(fusion_rules, name, SSA_FUSE_OPEN);
}

/* First match; the channels_last BatchNorm kernels name themselves "..._channels_last_kernel"
 * and so match none of the NCHW rows. */
static const struct name_rule layout_rules[] = {
    {"nchwToNhwcKernel", SSA_LAYOUT_TRANSPOSE},
    {"nhwcToNchwKernel", SSA_LAYOUT_TRANSPOSE},
    {"batch_norm_collect_statistics_kernel", SSA_LAYOUT_NCHW_NORM},
    {"batch_norm_transform_input_kernel", SSA_LAYOUT_NCHW_NORM},
    {"batch_norm_backward_kernel", SSA_LAYOUT_NCHW_NORM},
    {"batch_norm_backward_reduce_kernel", SSA_LAYOUT_NCHW_NORM},
    {"batch_norm_backward_elemt_kernel", SSA_LAYOUT_NCHW_NORM},
    {"conv_depthwise2d_", SSA_LAYOUT_DEPTHWISE},
    {"conv_depthwise3d_", SSA_LAYOUT_DEPTHWISE},
};

enum ssa_layout ssa_kernel_layout(const char *name)
{
    return (enum ssa_layout)FIRST_RULE(layout_rules, name, SSA_LAYOUT_NONE);
}

/* How an optimizer kernel was launched, first match: fused kernels name their functor
 * (FusedAdamMathFunctor, FusedSgdMathFunctor) or implementation (fused_adamw_impl, apex's
 * fused_adam); gradient clipping's norm and scaling (LpNormFunctor, BinaryOpScalarTensor) are
 * no part of the update; any other multi_tensor_apply kernel is a foreach op; an optimizer-class
 * kernel without it runs per parameter tensor. */
static const struct name_rule opt_rules[] = {
    {"Fused", SSA_OPT_FUSED},         {"fused_adam", SSA_OPT_FUSED},
    {"fused_sgd", SSA_OPT_FUSED},     {"LpNorm", SSA_OPT_NONE},
    {"ScalarTensor", SSA_OPT_NONE},   {"multi_tensor_apply", SSA_OPT_FOREACH},
};
/* The Adam family's ops (and its fused kernels): an SGD step (mul, add) names none of them. */
static const char *const adam_ops[] = {"Lerp", "lerp", "addcmul", "addcdiv", "Pointwise",
                                       "Sqrt", "Adam", "adam"};

enum ssa_opt_kind ssa_optimizer_kind(const char *name, int *adam)
{
    *adam = 0;
    if (!name || ssa_kernel_class(name) != SSA_KC_OPTIMIZER) return SSA_OPT_NONE;
    for (size_t i = 0; i < sizeof adam_ops / sizeof adam_ops[0]; i++)
        if (strstr(name, adam_ops[i])) *adam = 1;
    return (enum ssa_opt_kind)FIRST_RULE(opt_rules, name, SSA_OPT_SINGLE);
}
