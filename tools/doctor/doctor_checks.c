/*
 * doctor_checks.c — the machine checks of `stepscope doctor` and their table (see doctor.h).
 *
 * CUDA libraries are looked at with dlopen/dlsym only: stepscope has no link-time CUDA
 * dependency, and a machine without a driver must still get its report. Python is asked
 * about torch in a child process with a time limit (an import that hangs on a dead NFS
 * mount must not hang the doctor). The data-folder checks are in doctor_data.c.
 */
#include "doctor.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ssa_env.h"
#include "cmd.h"
#include "doctor_data.h"

#define MIB (1024.0 * 1024.0)

/* Reads a small text file into buf without its trailing newline. 0, or -1. */
int dr_read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

/* dlopen the first of names that loads. Returns the handle (dlclose it) or NULL. */
static void *open_first(const char *const *names, const char **which)
{
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            *which = *names;
            return h;
        }
    }
    return NULL;
}

/* The file a handle was loaded from, into buf ("?" when the loader does not say). */
static const char *loaded_path(void *h, char *buf, size_t cap)
{
    struct link_map *lm = NULL;
    snprintf(buf, cap, "%s",
             dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name ? lm->l_name : "?");
    return buf;
}

/* CUDA encodes versions as 1000*major + 10*minor. */
static void cuda_version_text(int v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The kernel module's version from its line: "NVRM version: NVIDIA UNIX x86_64 Kernel Module
 * 550.54.14  Thu Feb 22 ..." or, for the open modules, "... Open Kernel Module for x86_64
 * 580.95.05  Release Build ...": the first word after "Module" that starts with a digit. */
static void kernel_module_version(char *buf, size_t cap)
{
    char line[512];
    snprintf(buf, cap, "kernel module not loaded");
    if (dr_read_text("/proc/driver/nvidia/version", line, sizeof line) != 0) return;
    const char *m = strstr(line, "Module");
    if (!m) return;
    for (m += strlen("Module"); *m && *m != '\n'; m += strcspn(m, " \t\n")) {
        m += strspn(m, " \t");
        if (*m >= '0' && *m <= '9') {
            snprintf(buf, cap, "kernel module %.*s", (int)strcspn(m, " \t\n"), m);
            return;
        }
    }
    snprintf(buf, cap, "kernel module loaded, version not read");
}

static void check_cuda_driver(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    char mod[96], ver[32];
    kernel_module_version(mod, sizeof mod);
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    const char *which = NULL;
    void *h = open_first(names, &which);
    if (!h) {
        dr_set(r, SSA_ENV_FAIL, "install the NVIDIA driver (it provides libcuda.so.1), then reboot",
               "no libcuda.so.1 (%s)", mod);
        return;
    }
    int (*get)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int v = 0;
    if (!get || get(&v) != 0 || v <= 0) {
        dr_set(r, SSA_ENV_FAIL, "reinstall the NVIDIA driver: libcuda.so.1 does not answer",
               "libcuda.so.1 loads but cuDriverGetVersion fails (%s)", mod);
    } else {
        cuda_version_text(v, ver, sizeof ver);
        dr_set(r, SSA_ENV_PASS, NULL, "supports CUDA %s (%s)", ver, mod);
        c->driver_version = v; /* for driver_runtime */
    }
    dlclose(h);
}

static void check_cuda_runtime(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
                                        "libcudart.so", NULL};
    const char *which = NULL;
    char path[256], ver[32] = "unknown";
    void *h = open_first(names, &which);
    if (!h) {
        dr_set(r, SSA_ENV_WARN,
               "install the CUDA runtime or add its lib folder to LD_LIBRARY_PATH "
               "(PyTorch wheels bundle their own: see the torch line)",
               "no libcudart.so on the loader path");
        return;
    }
    int (*get)(int *) = (int (*)(int *))dlsym(h, "cudaRuntimeGetVersion");
    int v = 0;
    if (get && get(&v) == 0 && v > 0) {
        cuda_version_text(v, ver, sizeof ver);
        c->runtime_version = v; /* for driver_runtime */
    }
    dr_set(r, SSA_ENV_PASS, NULL, "CUDA runtime %s (%s)", ver, loaded_path(h, path, sizeof path));
    dlclose(h);
}

/* The collector with CUPTI, loaded in a child process as `record` does before it runs a
 * program (issue #29): a CUDA driver skips an injection library it cannot load, unsaid. */
static void check_collector(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    (void)c;
    char lib[4096], why[4096];
    if (cli_find_collector(lib, sizeof lib) != 0) {
        dr_set(r, SSA_ENV_SKIP, NULL,
               "no collector found (stepscope built without the CUDA toolkit, "
               "or STEPSCOPE_LIB names none)");
        return;
    }
    if (cli_collector_check(lib, why, sizeof why) != 0) {
        dr_set(r, SSA_ENV_FAIL,
               "add the folder of the CUPTI that stepscope was built with (CUDA 13: "
               "libcupti.so.13, in the CUDA toolkit's extras/CUPTI/lib64 or PyTorch's "
               "nvidia/cu13/lib) to LD_LIBRARY_PATH",
               "%s", why);
        return;
    }
    dr_set(r, SSA_ENV_PASS, NULL, "%s loads, with %s", lib, why[0] ? why : "its CUPTI");
}

static void check_cudnn(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    (void)c;
    static const char *const names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", NULL};
    const char *which = NULL;
    char path[256];
    void *h = open_first(names, &which);
    if (!h) {
        dr_set(r, SSA_ENV_WARN,
               "install cuDNN (apt/pip nvidia-cudnn) or add it to LD_LIBRARY_PATH "
               "(PyTorch wheels bundle their own: see the torch line)",
               "no libcudnn.so.9/.8 on the loader path");
        return;
    }
    size_t (*get)(void) = (size_t(*)(void))dlsym(h, "cudnnGetVersion");
    size_t v = get ? get() : 0;
    char ver[48];
    loaded_path(h, path, sizeof path);
    ssa_env_cudnn_text((unsigned long)v, ver, sizeof ver);
    if (v > 0)
        dr_set(r, SSA_ENV_PASS, NULL, "cuDNN %s (%s)", ver, path);
    else
        dr_set(r, SSA_ENV_WARN, "reinstall cuDNN", "%s loads but has no cudnnGetVersion", which);
    dlclose(h);
}

/* ---- python / torch ---- */

static const char torch_probe[] = "import sys\n"
                                  "try:\n"
                                  "    import torch\n"
                                  "except Exception as e:\n"
                                  "    print('missing=' + type(e).__name__); sys.exit(0)\n"
                                  "b = torch.backends\n"
                                  "def cudnn():\n"
                                  "    try: return b.cudnn.version()\n"
                                  "    except Exception: return None\n"
                                  "print('version=%s' % torch.__version__)\n"
                                  "print('cuda=%s' % torch.version.cuda)\n"
                                  "print('cudnn=%s' % cudnn())\n"
                                  "print('mkl=%d' % b.mkl.is_available())\n"
                                  "print('cuda_available=%d' % torch.cuda.is_available())\n"
                                  "print('cudnn_benchmark=%d' % b.cudnn.benchmark)\n"
                                  "print('tf32_matmul=%d' % b.cuda.matmul.allow_tf32)\n"
                                  "print('tf32_cudnn=%d' % b.cudnn.allow_tf32)\n"
                                  "print('threads=%d' % torch.get_num_threads())\n";

#define TORCH_TIMEOUT_MS 30000

/* The value of "key=" in the probe's output, into buf ("?" when absent). */
static const char *probe_get(const struct dr_ctx *c, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = c->torch_out; *p; p += strcspn(p, "\n"), p += *p == '\n') {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            const char *v = p + kl + 1;
            snprintf(buf, cap, "%.*s", (int)strcspn(v, "\n"), v);
            return buf;
        }
    }
    snprintf(buf, cap, "?");
    return buf;
}

/* Runs the probe once; returns its exit status as dr_run_capture does (-1: no python3). */
static int run_torch_probe(struct dr_ctx *c)
{
    char py[512];
    if (c->torch_probed) return c->torch_rc;
    c->torch_probed = 1;
    if (dr_which("python3", py, sizeof py) != 0) return c->torch_rc = -1;
    char *argv[] = {py, "-c", (char *)torch_probe, NULL};
    c->torch_rc =
        dr_run_capture(argv, dr_timeout_ms(TORCH_TIMEOUT_MS), c->torch_out, sizeof c->torch_out);
    return c->torch_rc;
}

/* Skips r unless the probe found torch. Returns 1 when torch is there. */
static int torch_present(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    char b[64];
    int rc = run_torch_probe(c);
    if (rc == -1)
        dr_set(r, SSA_ENV_SKIP, NULL, "no python3 on PATH");
    else if (rc == -2)
        dr_set(r, SSA_ENV_WARN, "check that 'python3 -c \"import torch\"' works quickly",
               "python3 -c 'import torch' did not finish in %d s",
               dr_timeout_ms(TORCH_TIMEOUT_MS) / 1000);
    else if (strncmp(c->torch_out, "missing=", 8) == 0)
        dr_set(r, SSA_ENV_SKIP, NULL, "python3 has no torch (%s)",
               probe_get(c, "missing", b, sizeof b));
    else if (rc != 0 || !strstr(c->torch_out, "version="))
        dr_set(r, SSA_ENV_WARN, "run python3 -c 'import torch' to see the error",
               "python3 torch probe failed (exit %d)", rc);
    else
        return 1;
    return 0;
}

static void check_torch(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    char v[64], cu[32], dnn[32], mkl[8];
    if (!torch_present(c, r)) return;
    probe_get(c, "version", v, sizeof v);
    probe_get(c, "cuda", cu, sizeof cu);
    probe_get(c, "cudnn", dnn, sizeof dnn);
    probe_get(c, "mkl", mkl, sizeof mkl);
    if (strcmp(cu, "None") == 0)
        dr_set(r, SSA_ENV_WARN,
               "install a CUDA build of torch (pip index https://download.pytorch.org)",
               "torch %s is a CPU-only build (mkl %s)", v, mkl[0] == '1' ? "yes" : "no");
    else
        dr_set(r, SSA_ENV_PASS, NULL, "torch %s, built for CUDA %s, cuDNN %s, MKL %s", v, cu, dnn,
               mkl[0] == '1' ? "yes" : "no");
}

/* The defaults a fresh interpreter has; a training script may change them. */
static void check_torch_settings(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    char bench[8], mm[8], dnn[8], thr[16], avail[8];
    if (!torch_present(c, r)) return;
    probe_get(c, "cudnn_benchmark", bench, sizeof bench);
    probe_get(c, "tf32_matmul", mm, sizeof mm);
    probe_get(c, "tf32_cudnn", dnn, sizeof dnn);
    probe_get(c, "threads", thr, sizeof thr);
    probe_get(c, "cuda_available", avail, sizeof avail);
    int tf32_off = mm[0] == '0' && avail[0] == '1';
    dr_set(r, tf32_off ? SSA_ENV_WARN : SSA_ENV_PASS,
           tf32_off ? "if fp32 precision allows: torch.backends.cuda.matmul.allow_tf32 = True "
                      "(or torch.set_float32_matmul_precision('high'))"
                    : NULL,
           "defaults: cudnn.benchmark=%s, matmul.allow_tf32=%s, cudnn.allow_tf32=%s, "
           "threads=%s, cuda.is_available=%s",
           bench, mm, dnn, thr, avail);
}

/* ---- process environment and limits ---- */

/* Reads the largest number in a /proc/sys file ("4096 131072 6291456" -> 6291456). */
static long long sysctl_max(const char *path)
{
    char buf[128];
    long long best = -1;
    if (dr_read_text(path, buf, sizeof buf) != 0) return -1;
    for (char *p = buf, *end; *p; p = end) {
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        if (v > best) best = v;
    }
    return best;
}

int dr_env_says_multi_node(void)
{
    const char *ws = getenv("WORLD_SIZE"), *lws = getenv("LOCAL_WORLD_SIZE");
    const char *nn = getenv("SLURM_NNODES");
    if (ws && lws && atoi(ws) > atoi(lws)) return 1;
    return nn && atoi(nn) > 1;
}

static void check_tcp_buffers(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    static const char *const files[] = {
        "/proc/sys/net/core/rmem_max", "/proc/sys/net/core/wmem_max", "/proc/sys/net/ipv4/tcp_rmem",
        "/proc/sys/net/ipv4/tcp_wmem"};
    long long v[4];
    int low = 0;
    for (int i = 0; i < 4; i++) {
        v[i] = sysctl_max(files[i]);
        if (v[i] < 0) {
            dr_set(r, SSA_ENV_SKIP, NULL, "%s not readable", files[i]);
            return;
        }
        low |= v[i] < 16LL * 1024 * 1024;
    }
    int multi = c->multi_node || dr_env_says_multi_node();
    int status = !low ? SSA_ENV_PASS : multi ? SSA_ENV_WARN : SSA_ENV_SKIP;
    const char *fix = "sysctl -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 "
                      "net.ipv4.tcp_rmem='4096 87380 67108864' "
                      "net.ipv4.tcp_wmem='4096 65536 67108864'";
    dr_set(r, status, status == SSA_ENV_WARN ? fix : NULL,
           "rmem_max %.1f MiB, wmem_max %.1f MiB, tcp_rmem max %.1f MiB, tcp_wmem max %.1f MiB%s",
           v[0] / MIB, v[1] / MIB, v[2] / MIB, v[3] / MIB,
           status == SSA_ENV_SKIP ? " (below 16 MiB; matters only for multi-node: --multi-node)"
                                  : "");
}

/* ---- CPU ---- */

static void check_cpu_governor(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    (void)c;
    char gov[64];
    if (dr_read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov, sizeof gov) !=
        0) {
        dr_set(r, SSA_ENV_SKIP, NULL, "no cpufreq governor exposed (virtual machine or container)");
        return;
    }
    if (strcmp(gov, "powersave") == 0)
        dr_set(r, SSA_ENV_WARN, "cpupower frequency-set -g performance",
               "governor powersave: the host side of each step runs at low clock");
    else
        dr_set(r, SSA_ENV_PASS, NULL, "governor %s", gov);
}

/* ---- GPU (nvidia-smi) ---- */

/* One CSV line of the query below, summarised into out; raises *status on a problem. */
static void gpu_line(int idx, char *line, char *out, size_t cap, int *status, char *fix,
                     size_t fcap)
{
    char *f[7] = {0};
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, ",", &save); t && n < 7;
         t = strtok_r(NULL, ",", &save))
        f[n++] = t + strspn(t, " ");
    if (n < 7) {
        snprintf(out, cap, "%d: unexpected nvidia-smi output", idx);
        return;
    }
    snprintf(out, cap, "%d: persistence %s, SM %s of %s, PCIe gen %s of %s x%s of x%s", idx, f[0],
             f[1], f[2], f[3], f[4], f[5], f[6]);
    if (strcmp(f[0], "Disabled") == 0) {
        *status = SSA_ENV_WARN;
        snprintf(fix, fcap, "sudo nvidia-smi -pm 1 (or run nvidia-persistenced)");
    }
    if (atoi(f[5]) > 0 && atoi(f[5]) < atoi(f[6])) { /* gen drops at idle; width must not */
        *status = SSA_ENV_WARN;
        snprintf(fix, fcap, "GPU %d runs x%d of x%d lanes: reseat it or move it to a full slot",
                 idx, atoi(f[5]), atoi(f[6]));
    }
}

static void check_gpu(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    (void)c;
    char smi[512], out[4096], fix[SSA_ENV_FIX_MAX] = "";
    if (dr_which("nvidia-smi", smi, sizeof smi) != 0) {
        dr_set(r, SSA_ENV_SKIP, NULL, "no nvidia-smi on PATH");
        return;
    }
    char *argv[] = {smi,
                    "--query-gpu=persistence_mode,clocks.sm,clocks.max.sm,pcie.link.gen.current,"
                    "pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max",
                    "--format=csv,noheader", NULL};
    int rc = dr_run_capture(argv, dr_timeout_ms(15000), out, sizeof out);
    if (rc != 0 || !out[0]) {
        dr_set(r, SSA_ENV_SKIP, NULL, "nvidia-smi %s (see the cuda_driver line)",
               rc == -2 ? "timed out" : "failed");
        return;
    }
    int status = SSA_ENV_PASS, idx = 0;
    size_t len = 0;
    char all[SSA_ENV_VALUE_MAX] = "", one[256];
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        gpu_line(idx++, l, one, sizeof one, &status, fix, sizeof fix);
        if (len < sizeof all)
            len += (size_t)snprintf(all + len, sizeof all - len, "%s%s", len ? "; " : "", one);
    }
    dr_set(r, status, status == SSA_ENV_PASS ? NULL : fix, "%s", all);
}

const struct dr_check dr_checks[] = {
    DR_OWN("cuda_driver", "NVIDIA driver (libcuda) and the CUDA version it supports",
           check_cuda_driver),
    DR_OWN("cuda_runtime", "CUDA runtime library (libcudart) on the loader path",
           check_cuda_runtime),
    {NULL, NULL, dr_check_driver_runtime, SSA_ENV_CHECK_DRIVER_RUNTIME},
    DR_OWN("collector", "stepscope's collector and CUPTI load (what record injects)",
           check_collector),
    /* the trace's cudnn check asks whether convolutions used it; here: can it be loaded */
    {NULL, "cuDNN loadable and its version", check_cudnn, SSA_ENV_CHECK_CUDNN},
    DR_OWN("torch", "python3's torch: version and CUDA/cuDNN/MKL build", check_torch),
    DR_OWN("torch_settings", "torch defaults: cudnn.benchmark, TF32, threads",
           check_torch_settings),
    DR_SHARED(LAUNCH_BLOCKING),
    DR_SHARED(OMP_THREADS),
    DR_SHARED(VISIBLE_DEVICES),
    DR_SHARED(NCCL_ENV),
    DR_SHARED(ALLOC_CONF),
    DR_SHARED(OPEN_FILES),
    DR_OWN("tcp_buffers", "TCP buffer sizes for multi-node training", check_tcp_buffers),
    DR_SHARED(CPU_CORES),
    DR_OWN("cpu_governor", "CPU frequency governor", check_cpu_governor),
    DR_OWN("gpu", "GPU persistence mode, clocks and PCIe link (nvidia-smi)", check_gpu),
    DR_OWN("data_fs", "data folder's filesystem", dr_check_data_fs),
    DR_OWN("data_free", "free space in the data folder", dr_check_data_free),
    DR_OWN("data_device", "data folder's disk: rotational or SSD/NVMe", dr_check_data_device),
    DR_OWN("data_read", "sequential read speed of the data folder's largest files",
           dr_check_data_read),
};
const size_t dr_n_checks = sizeof dr_checks / sizeof dr_checks[0];
_Static_assert(sizeof dr_checks / sizeof dr_checks[0] <= DR_MAX_CHECKS, "room for every check");
