/*
 * mk_env_trace.c — writes one of the environment-check test traces (env_trace.h) for the CLI
 * cases of env_cases.sh. Usage: env-mk-trace bad|hostile|bare OUT
 *   bad      every check that a trace can fail or warn on does (CUDA_LAUNCH_BLOCKING=1,
 *            ulimit -n 1024 with workers, 6 workers on 4 CPUs, runtime newer than the
 *            driver, im2col convolutions without cuDNN, NCCL_P2P_DISABLE...)
 *   hostile  values and keys that are hostile to HTML, Markdown and terminals
 *   bare     no environment record, no host sample and no kernel that tells (an imported
 *            trace)
 */
#include <stdio.h>
#include <string.h>

#include "env_trace.h"

static const char *const k_kernels[] = {"_ZN2at6native12_GLOBAL__N_112im2col_kernelIfEEvl",
                                        "ncclDevKernel_AllReduce_Sum_f32_RING_LL", NULL};
static const char *const k_plain_kernels[] = {"sm90_xmma_gemm_bf16bf16_bf16f32", NULL};

static const char *const k_bad_env[][2] = {{"collector.mode", "full"},
                                           {"env.CUDA_LAUNCH_BLOCKING", "1"},
                                           {"env.OMP_NUM_THREADS", "32"},
                                           {"env.CUDA_VISIBLE_DEVICES", "0"},
                                           {"env.NCCL_P2P_DISABLE", "1"},
                                           {"env.NCCL_DEBUG", "TRACE"},
                                           {"cpu_count", "8"},
                                           {"env.PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:128"},
                                           {"cpu_affinity_count", "4"},
                                           {"rlimit_nofile", "1024"},
                                           {"rlimit_nofile_max", "4096"},
                                           {"driver_version", "12020"},
                                           {"runtime_version", "12040"}};
static const uint32_t k_bad_children[] = {0, 6, 5};

#define EVIL "<script>alert('x')</script>\"&amp;|*_`[a](javascript:alert(1))\x1b[31m\xff"
static const char *const k_hostile_env[][2] = {
    {"collector.mode", "full"},
    {"env.OMP_NUM_THREADS", EVIL},
    {"env.CUDA_VISIBLE_DEVICES", EVIL},
    {"env.NCCL_<img src=x onerror=alert(1)>", EVIL},
    {"env.PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:" EVIL},
    {"cudnn_version", EVIL},
    {"rlimit_nofile", EVIL}};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: env-mk-trace bad|hostile|bare OUT\n");
        return 2;
    }
    struct env_trace t = {.kernels = k_kernels};
    if (strcmp(argv[1], "bad") == 0) {
        t.env = k_bad_env, t.n_env = sizeof k_bad_env / sizeof k_bad_env[0];
        t.children = k_bad_children;
        t.n_children = sizeof k_bad_children / sizeof k_bad_children[0];
    } else if (strcmp(argv[1], "hostile") == 0) {
        t.env = k_hostile_env, t.n_env = sizeof k_hostile_env / sizeof k_hostile_env[0];
    } else if (strcmp(argv[1], "bare") == 0) {
        t.kernels = k_plain_kernels; /* nothing for any check to judge */
    } else {
        fprintf(stderr, "env-mk-trace: unknown kind %s\n", argv[1]);
        return 2;
    }
    return env_trace_write(argv[2], &t) == 0 ? 0 : 1;
}
