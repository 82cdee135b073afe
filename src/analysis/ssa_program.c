/*
 * ssa_program.c — what kind of program ran, and what it already does, so that a finding's
 * fix is written in its terms and never recommends what the trace shows it does already
 * (issues #19, #21).
 *
 * The kind comes from the collector's ENV program.kind (python, cxx, c, cuda: what it saw
 * loaded in the process at exit, src/collect/ssc_host.c). Traces without it are read for
 * signs: the Python shim's ENV keys or a Python interpreter as the command (python), a
 * Kineto import (torch.profiler: python), libtorch's own kernels in a native executable
 * (native: C or C++ over libtorch), else a CUDA program. torch.compile shows as the shim's
 * compile marks (counted in ssa_scan.c) or as Triton kernels, which only Inductor generates.
 */
#include <string.h>

#include "analysis/ssa_env.h"
#include "ssa_host.h"
#include "ssa_internal.h"

#define SSA_TRITON_COMPILED_PCT 10.0

const char *ssa_program_kind_name(int kind)
{
    static const char *const names[] = {"unknown", "python", "cxx", "c", "native", "cuda"};
    return kind >= 0 && kind < SSA_PROG_COUNT ? names[kind] : "unknown";
}

static int kind_by_name(const char *v)
{
    for (int k = 0; k < SSA_PROG_COUNT; k++)
        if (strcmp(v, ssa_program_kind_name(k)) == 0) return k;
    return SSA_PROG_UNKNOWN;
}

/* The command's program is a Python interpreter (python, python3, python3.12, ...). */
static int runs_python(const char *cmdline)
{
    if (!cmdline) return 0;
    size_t n = strcspn(cmdline, " ");
    const char *base = cmdline;
    for (size_t i = 0; i < n; i++)
        if (cmdline[i] == '/') base = cmdline + i + 1;
    return strncmp(base, "python", 6) == 0;
}

/* libtorch's own kernels (at::native::...), mangled or not. */
static int has_libtorch_kernels(const struct ssa_result *r)
{
    for (size_t i = 0; i < r->n_knames && r->kname_text; i++) {
        const char *n = r->kname_text[i];
        if (n && (strstr(n, "at6native") || strstr(n, "at::native"))) return 1;
    }
    return 0;
}

static int infer_kind(const struct ssa_result *r)
{
    const char *fmt = ssa_env_value(&r->env, "import.format");
    if (ssa_env_value(&r->env, "python.version") || ssa_env_value(&r->env, "pyshim.host_samples_hz") ||
        (fmt && strcmp(fmt, "kineto-json") == 0) || runs_python(r->cmdline))
        return SSA_PROG_PYTHON;
    if (fmt) return SSA_PROG_UNKNOWN; /* an nsys export of some other program */
    if (!r->cmdline) return SSA_PROG_UNKNOWN;
    return has_libtorch_kernels(r) ? SSA_PROG_NATIVE : SSA_PROG_CUDA;
}

static double triton_pct(const struct ssa_result *r)
{
    uint64_t all = 0, triton = 0;
    for (size_t i = 0; i < r->n_knames; i++) {
        all += r->knames[i].total_ns;
        const char *n = r->kname_text ? r->kname_text[i] : NULL;
        if (n && strncmp(n, "triton_", 7) == 0) triton += r->knames[i].total_ns;
    }
    return all ? 100.0 * (double)triton / (double)all : 0;
}

/* Training FLOPs per parameter and token: a forward and a backward pass of a dense model
 * (each weight a multiply-add forward, two backward: Kaplan et al. 2020, "Scaling Laws for
 * Neural Language Models", section 2.1; PaLM's MFU, Chowdhery et al. 2022, appendix B).
 * Attention's own FLOPs (its sequence-length term) are left out: an estimate from below. */
#define SSA_FLOPS_PER_PARAM_TOKEN 6.0

/* Without batch marks of the program's own, the batch the shim saw the DataLoader give: its
 * samples and tokens a step (throughput without hand-written marks) and, for token inputs
 * with the optimizer's parameter count, FLOPs as 6 x parameters x tokens (images: unknown,
 * their FLOPs depend on the convolutions' shapes). */
static void batch_from_loader(struct ssa_result *r)
{
    const struct ssa_loader *l = &r->loader;
    if (r->batch.marks || !l->marks || l->samples <= 0) return;
    r->batch.samples = l->samples;
    r->batch.tokens = l->tokens;
    r->batch.from_loader = 1;
    if (l->tokens > 0 && l->params > 0) {
        r->batch.params = l->params;
        r->batch.flops = SSA_FLOPS_PER_PARAM_TOKEN * l->params * l->tokens;
    }
}

void ssa_program_facts(struct ssa_result *r)
{
    struct ssa_program *p = &r->program;
    const char *v = ssa_env_value(&r->env, "program.kind");
    p->kind_recorded = v && kind_by_name(v) != SSA_PROG_UNKNOWN;
    p->kind = p->kind_recorded ? kind_by_name(v) : infer_kind(r);
    p->triton_pct = triton_pct(r);
    p->compiled = p->compiles > 0 || p->triton_pct >= SSA_TRITON_COMPILED_PCT;
    batch_from_loader(r);
}

/* A framework is known by the file of its trainer's loop among the sampled frames. */
static const struct {
    const char *path;
    int framework;
} k_frameworks[] = {
    {"/transformers/trainer.py", SSA_FW_HF_TRAINER},
    {"/lightning/pytorch/trainer/", SSA_FW_LIGHTNING},
    {"/pytorch_lightning/trainer/", SSA_FW_LIGHTNING},
};

int ssa_program_framework(const struct ssa_result *r)
{
    const struct ssa_pytab *t = &r->host.tab;
    for (size_t i = 0; i < t->n_frames; i++)
        for (size_t k = 0; t->frames[i].file && k < sizeof k_frameworks / sizeof *k_frameworks; k++)
            if (strstr(t->frames[i].file, k_frameworks[k].path)) return k_frameworks[k].framework;
    return SSA_FW_NONE;
}
