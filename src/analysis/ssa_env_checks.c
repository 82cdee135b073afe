/*
 * ssa_env_checks.c — the ONE table of environment checks and their judges (ssa_env.h).
 *
 * Each judge reads key/value facts and sets pass, warn or fail with the evidence and, for
 * warn and fail, the fix; a fact that is absent or unreadable is a skip saying so, never a
 * failure. Thresholds are the ones `stepscope doctor` has always used; each warning names
 * why it costs time. docs/doctor.md lists the checks and which facts each reads.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ssa_env.h"

#define NOFILE_LOW 4096 /* soft limit below which DataLoader workers run out of descriptors */
#define CORES_LOW 4     /* fewer usable CPUs leave no room for DataLoader workers */

static void say(struct ssa_env_verdict *v, int status, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(struct ssa_env_verdict *v, int status, const char *fix, const char *fmt, ...)
{
    va_list ap;
    v->status = status;
    snprintf(v->fix, sizeof v->fix, "%s", fix ? fix : "");
    va_start(ap, fmt);
    vsnprintf(v->value, sizeof v->value, fmt, ap);
    va_end(ap);
}

/* A skip for a missing fact, in the words of whoever gathered the facts. */
static void not_recorded(const struct ssa_env_facts *f, struct ssa_env_verdict *v, const char *what)
{
    say(v, SSA_ENV_SKIP, NULL, "%s (%s)", f->missing ? f->missing : "not recorded", what);
}

/* A whole decimal number, blanks around it allowed. 0, or -1. */
static int parse_num(const char *s, unsigned long long *out)
{
    if (!s) return -1;
    s += strspn(s, " \t");
    if (*s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    if (end[strspn(end, " \t")]) return -1;
    *out = v;
    return 0;
}

/* A variable's value through *value (NULL: unset). 0 when the facts cannot tell. */
static int variable(const struct ssa_env_facts *f, const char *name, const char **value)
{
    char key[96];
    snprintf(key, sizeof key, "env.%s", name);
    *value = ssa_env_get(f, key);
    return *value != NULL || f->variables;
}

#define CPUS_MAX (1u << 20) /* a larger count is not a machine's: unknown */

/* CPUs the process may run on: its affinity mask, else the online count; -1 unknown. */
static long usable_cpus(const struct ssa_env_facts *f)
{
    unsigned long long n;
    if (parse_num(ssa_env_get(f, "cpu_affinity_count"), &n) == 0 && n > 0 && n <= CPUS_MAX)
        return (long)n;
    if (parse_num(ssa_env_get(f, "cpu_count"), &n) == 0 && n > 0 && n <= CPUS_MAX) return (long)n;
    return -1;
}

/* ---- CUDA ---- */

int ssa_env_launch_blocking(const char *value)
{
    unsigned long long n;
    if (!value || !*value) return SSA_ENV_PASS;
    if (parse_num(value, &n) != 0) return SSA_ENV_WARN;
    return n ? SSA_ENV_FAIL : SSA_ENV_PASS;
}

static void judge_launch_blocking(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *val;
    if (!variable(f, "CUDA_LAUNCH_BLOCKING", &val)) {
        not_recorded(f, v, "env.CUDA_LAUNCH_BLOCKING");
        return;
    }
    int st = ssa_env_launch_blocking(val);
    if (!val)
        say(v, SSA_ENV_PASS, NULL, "not set");
    else if (st == SSA_ENV_FAIL)
        say(v, st, "unset CUDA_LAUNCH_BLOCKING (a debugging switch)",
            "CUDA_LAUNCH_BLOCKING=%.32s: every kernel launch waits for the kernel", val);
    else if (st == SSA_ENV_WARN)
        say(v, st, "unset CUDA_LAUNCH_BLOCKING, or set it to 0",
            "CUDA_LAUNCH_BLOCKING='%.32s' is not a number (CUDA reads 0 or 1)", val);
    else
        say(v, st, NULL, "CUDA_LAUNCH_BLOCKING='%.32s' (only a non-zero number blocks)", val);
}

/* CUDA encodes versions as 1000*major + 10*minor. 0, or -1 when s is not one. */
static int cuda_version(const char *s, unsigned long long *v)
{
    return parse_num(s, v) == 0 && *v >= 1000 && *v < 1000000 ? 0 : -1;
}

static void judge_driver_runtime(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *ds = ssa_env_get(f, "driver_version"), *rs = ssa_env_get(f, "runtime_version");
    unsigned long long d, r;
    if (!ds || !rs) {
        not_recorded(f, v,
                     !ds && !rs ? "driver_version, runtime_version"
                     : !ds      ? "driver_version"
                                : "runtime_version");
        return;
    }
    if (cuda_version(ds, &d) != 0 || cuda_version(rs, &r) != 0) {
        say(v, SSA_ENV_SKIP, NULL,
            "driver_version '%.24s', runtime_version '%.24s': not CUDA versions", ds, rs);
        return;
    }
    unsigned dM = (unsigned)(d / 1000), dm = (unsigned)(d % 1000 / 10);
    unsigned rM = (unsigned)(r / 1000), rm = (unsigned)(r % 1000 / 10);
    char fix[SSA_ENV_FIX_MAX];
    snprintf(fix, sizeof fix, "update the NVIDIA driver to one that supports CUDA %u.%u", rM, rm);
    if (rM > dM)
        say(v, SSA_ENV_FAIL, fix,
            "CUDA runtime %u.%u needs a newer driver than this one (CUDA %u.%u): CUDA calls "
            "fail with 'driver version is insufficient'",
            rM, rm, dM, dm);
    else if (r > d)
        say(v, SSA_ENV_WARN, fix,
            "CUDA runtime %u.%u on a driver for CUDA %u.%u: runs through minor version "
            "compatibility, but PTX compiled for the newer version cannot be JIT-compiled",
            rM, rm, dM, dm);
    else
        say(v, SSA_ENV_PASS, NULL, "driver supports CUDA %u.%u, runtime %u.%u", dM, dm, rM, rm);
}

void ssa_env_cudnn_text(unsigned long v, char *buf, size_t cap)
{
    if (v >= 10000) /* cuDNN 9: major*10000 + minor*100 + patch */
        snprintf(buf, cap, "%lu.%lu.%lu", v / 10000, v % 10000 / 100, v % 100);
    else /* cuDNN 8: major*1000 + minor*100 + patch */
        snprintf(buf, cap, "%lu.%lu.%lu", v / 1000, v % 1000 / 100, v % 100);
}

static void judge_cudnn(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *s = ssa_env_get(f, "cudnn_version");
    unsigned long long n = 0;
    char ver[48] = "";
    int have = parse_num(s, &n) == 0 && n > 0;
    if (have) ssa_env_cudnn_text((unsigned long)n, ver, sizeof ver);
    if (s && !have) /* a damaged record: whether cuDNN was there cannot be told */
        say(v, SSA_ENV_SKIP, NULL, "cudnn_version '%.24s' is not a cuDNN version", s);
    else if (f->native_conv > 0 && have)
        say(v, SSA_ENV_WARN,
            "torch.backends.cudnn.enabled = True (the default); cudnn.benchmark = True for "
            "fixed input shapes",
            "cuDNN %s is loaded, yet %ld convolution kernels ran as im2col/col2im + GEMM "
            "(PyTorch's fallback without cuDNN)",
            ver, f->native_conv);
    else if (f->native_conv > 0)
        say(v, SSA_ENV_WARN,
            "use a torch build with cuDNN (the pip wheels bundle it); keep "
            "torch.backends.cudnn.enabled = True",
            "%ld convolution kernels ran as im2col/col2im + GEMM and no cuDNN was loaded",
            f->native_conv);
    else if (have)
        say(v, SSA_ENV_PASS, NULL, "cuDNN %s%s", ver,
            f->native_conv == 0 ? "; no convolution ran without it" : "");
    else
        not_recorded(f, v, "cudnn_version: cuDNN not loaded, or loaded after the lookup");
}

/* ---- limits and CPUs ---- */

static void judge_open_files(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *s = ssa_env_get(f, "rlimit_nofile"), *hs = ssa_env_get(f, "rlimit_nofile_max");
    unsigned long long soft, hard;
    char htext[32] = "?";
    if (!s) {
        not_recorded(f, v, "rlimit_nofile");
        return;
    }
    if (parse_num(s, &soft) != 0) {
        say(v, SSA_ENV_SKIP, NULL, "rlimit_nofile '%.24s' is not a number", s);
        return;
    }
    if (parse_num(hs, &hard) == 0) snprintf(htext, sizeof htext, "%llu", hard);
    if (soft >= NOFILE_LOW)
        say(v, SSA_ENV_PASS, NULL, "open files soft limit %llu (hard %s)", soft, htext);
    else if (f->children == 0)
        say(v, SSA_ENV_PASS, NULL,
            "open files soft limit %llu (hard %s): low, but no DataLoader worker ran", soft, htext);
    else
        say(v, SSA_ENV_WARN,
            "ulimit -n 65536 (raise the hard limit in /etc/security/limits.conf if needed)",
            "open files soft limit %llu (hard %s): DataLoader workers with many files run out",
            soft, htext);
}

static void judge_cpu_cores(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    long usable = usable_cpus(f);
    const char *online = ssa_env_get(f, "cpu_count");
    if (usable < 0) {
        not_recorded(f, v, "cpu_count, cpu_affinity_count");
        return;
    }
    if (usable < CORES_LOW)
        say(v, SSA_ENV_WARN, "give the job more cores: DataLoader num_workers needs one core each",
            "%.16s CPUs online, %ld usable by the process: room for %ld DataLoader worker%s",
            online ? online : "?", usable, usable > 1 ? usable - 1 : 0, usable == 2 ? "" : "s");
    else
        say(v, SSA_ENV_PASS, NULL,
            "%.16s CPUs online, %ld usable by the process (DataLoader num_workers <= %ld per "
            "GPU process, split across GPUs)",
            online ? online : "?", usable, usable - 1);
}

static void judge_dataloader_workers(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    long usable = usable_cpus(f), n = f->children;
    char fix[SSA_ENV_FIX_MAX];
    if (n < 0 || usable < 0) {
        not_recorded(f, v, n < 0 ? "host samples" : "cpu_count, cpu_affinity_count");
        return;
    }
    if (n == 0) {
        say(v, SSA_ENV_PASS, NULL, "no child process (no DataLoader worker)");
        return;
    }
    snprintf(fix, sizeof fix,
             "DataLoader(num_workers=%ld) or fewer: one core each, one for the training process; "
             "with several GPU processes per machine, split the cores among them",
             usable - 1);
    if (n + 1 > usable)
        say(v, SSA_ENV_WARN, fix,
            "%ld child processes (DataLoader workers) and the training process on %ld usable "
            "CPUs: they compete for cores",
            n, usable);
    else
        say(v, SSA_ENV_PASS, NULL,
            "%ld child process%s (in a training process: DataLoader workers) on %ld usable CPUs", n,
            n == 1 ? "" : "es", usable);
}

static void judge_omp_threads(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *val;
    char first[32], fix[SSA_ENV_FIX_MAX];
    unsigned long long n;
    long usable = usable_cpus(f);
    if (!variable(f, "OMP_NUM_THREADS", &val)) {
        not_recorded(f, v, "env.OMP_NUM_THREADS");
        return;
    }
    if (!val) {
        say(v, SSA_ENV_PASS, NULL, "not set");
        return;
    }
    snprintf(first, sizeof first, "%.*s", (int)strcspn(val, ","), val); /* "4,2": nested levels */
    if (parse_num(first, &n) != 0 || n == 0) {
        say(v, SSA_ENV_WARN, "set OMP_NUM_THREADS to a positive number, or unset it",
            "OMP_NUM_THREADS='%.32s' is not a positive number", val);
        return;
    }
    snprintf(fix, sizeof fix,
             "OMP_NUM_THREADS=%ld or less (the usable CPUs divided by the processes per machine)",
             usable);
    if (usable > 0 && n > (unsigned long long)usable)
        say(v, SSA_ENV_WARN, fix,
            "OMP_NUM_THREADS=%llu, more than the %ld usable CPUs: threads contend for cores", n,
            usable);
    else if (usable > 0)
        say(v, SSA_ENV_PASS, NULL, "OMP_NUM_THREADS=%llu (%ld usable CPUs)", n, usable);
    else
        say(v, SSA_ENV_PASS, NULL, "OMP_NUM_THREADS=%llu", n);
}

/* ---- variables ---- */

/* 1 when an entry of CUDA_VISIBLE_DEVICES names a device: an ordinal or a GPU-/MIG- UUID. */
static int device_entry_ok(const char *s, size_t n)
{
    while (n && *s == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    if (n > 4 && (strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0)) return 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return n > 0;
}

static void judge_visible_devices(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *val, *bad = NULL;
    size_t ok = 0, badn = 0;
    if (!variable(f, "CUDA_VISIBLE_DEVICES", &val)) {
        not_recorded(f, v, "env.CUDA_VISIBLE_DEVICES");
        return;
    }
    if (!val) {
        say(v, SSA_ENV_PASS, NULL, "not set: every GPU is visible");
        return;
    }
    for (const char *p = val;; p++) { /* CUDA stops at the first entry that is not a device */
        size_t n = strcspn(p, ",");
        if (!device_entry_ok(p, n)) {
            if (n || p[n]) bad = p, badn = n; /* a trailing comma ends the list */
            break;
        }
        ok++;
        p += n;
        if (!*p) break;
    }
    if (!ok)
        say(v, SSA_ENV_FAIL,
            "set CUDA_VISIBLE_DEVICES to the GPUs the job should use (0,1,...) or unset it",
            "CUDA_VISIBLE_DEVICES='%.32s': no GPU is visible to the process", val);
    else if (bad)
        say(v, SSA_ENV_WARN, "remove the entry that is not a GPU from CUDA_VISIBLE_DEVICES",
            "CUDA_VISIBLE_DEVICES='%.48s': CUDA stops at '%.*s', only %zu GPU%s visible", val,
            (int)(badn > 16 ? 16 : badn), bad, ok, ok == 1 ? "" : "s");
    else
        say(v, SSA_ENV_PASS, NULL, "CUDA_VISIBLE_DEVICES=%.64s: %zu GPU%s visible", val, ok,
            ok == 1 ? "" : "s");
}

/* Appends sep (when buf is not empty) and the formatted text to buf, cut at cap. */
static void append(char *buf, size_t cap, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t cap, const char *sep, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len && len < cap) len += (size_t)snprintf(buf + len, cap - len, "%s", sep);
    if (len >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

static int nonzero(const char *s)
{
    unsigned long long n;
    return parse_num(s, &n) == 0 && n != 0;
}

/* One NCCL_* variable: raises v to warn with the reason and the fix when it slows NCCL. */
static void nccl_variable(const struct ssa_env_facts *f, const char *name, const char *val,
                          struct ssa_env_verdict *v)
{
    const char *why = NULL, *fix = NULL;
    if (strcmp(name, "NCCL_DEBUG") == 0 && strcasecmp(val, "TRACE") == 0) {
        why = "logs every NCCL call";
        fix = "NCCL_DEBUG=WARN (or unset it) outside debugging";
    } else if (strcmp(name, "NCCL_P2P_DISABLE") == 0 && nonzero(val) && f->nccl_kernels != 0) {
        why = "GPU-to-GPU traffic goes through host memory instead of NVLink/PCIe peer access";
        fix = "unset NCCL_P2P_DISABLE (meant for machines where GPU peer access is broken)";
    } else if (strcmp(name, "NCCL_IB_DISABLE") == 0 && nonzero(val) && f->multi_node == 1) {
        why = "traffic between the machines of this multi-node job goes over TCP sockets "
              "instead of InfiniBand/RoCE";
        fix = "unset NCCL_IB_DISABLE";
    }
    if (!why) return;
    if (v->status == SSA_ENV_PASS) v->value[0] = v->fix[0] = '\0'; /* drop the list so far */
    v->status = SSA_ENV_WARN;
    append(v->value, sizeof v->value, "; ", "%s=%.16s: %s", name, val, why);
    append(v->fix, sizeof v->fix, "; ", "%s", fix);
}

static void judge_nccl_env(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    size_t set = 0;
    if (!f->variables) {
        not_recorded(f, v, "env.NCCL_*");
        return;
    }
    say(v, SSA_ENV_PASS, NULL, "%s", "");
    for (size_t i = 0; i < f->n; i++) {
        const char *key = f->kv[i].key, *val = f->kv[i].value;
        if (strncmp(key, "env.NCCL_", 9) != 0) continue;
        set++;
        if (v->status == SSA_ENV_PASS)
            append(v->value, sizeof v->value, ", ", "%.32s=%.24s", key + 4, val);
        nccl_variable(f, key + 4, val, v);
    }
    if (v->status != SSA_ENV_PASS) return;
    if (!set)
        say(v, SSA_ENV_PASS, NULL, "no NCCL_* variable set");
    else
        append(v->value, sizeof v->value, ": ", "none known to slow communication");
}

static void judge_alloc_conf(const struct ssa_env_facts *f, struct ssa_env_verdict *v)
{
    const char *conf, *nocache = ssa_env_get(f, "env.PYTORCH_NO_CUDA_MEMORY_CACHING");
    if (!variable(f, "PYTORCH_CUDA_ALLOC_CONF", &conf) && !nocache) {
        not_recorded(f, v, "env.PYTORCH_CUDA_ALLOC_CONF");
        return;
    }
    if (nocache) /* PyTorch asks only whether it is set: even 0 turns caching off */
        say(v, SSA_ENV_WARN, "unset PYTORCH_NO_CUDA_MEMORY_CACHING (a switch for memory checkers)",
            "PYTORCH_NO_CUDA_MEMORY_CACHING=%.16s: the caching allocator is off, every tensor "
            "allocation is a cudaMalloc/cudaFree",
            nocache);
    else if (conf && strstr(conf, "max_split_size_mb"))
        say(v, SSA_ENV_WARN,
            "drop max_split_size_mb unless the job needs it to fit in memory "
            "(expandable_segments:True also fights fragmentation)",
            "PYTORCH_CUDA_ALLOC_CONF=%.96s: max_split_size_mb keeps large cached blocks from "
            "being split (PyTorch: a cost from zero to substantial)",
            conf);
    else if (conf)
        say(v, SSA_ENV_PASS, NULL, "PYTORCH_CUDA_ALLOC_CONF=%.128s", conf);
    else
        say(v, SSA_ENV_PASS, NULL, "PYTORCH_CUDA_ALLOC_CONF not set");
}

const struct ssa_env_check ssa_env_checks[SSA_ENV_N_CHECKS] = {
#define SSA_X_CHECK(ID, id, title) [SSA_ENV_CHECK_##ID] = {#id, title, judge_##id},
    SSA_ENV_CHECKS(SSA_X_CHECK)
#undef SSA_X_CHECK
};
const size_t ssa_env_n_checks = SSA_ENV_N_CHECKS;

const struct ssa_env_check *ssa_env_check_find(const char *id)
{
    for (size_t i = 0; i < ssa_env_n_checks; i++)
        if (strcmp(ssa_env_checks[i].id, id) == 0) return &ssa_env_checks[i];
    return NULL;
}
