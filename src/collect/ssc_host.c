/*
 * ssc_host.c — what the collector learns about the process and its host: the PROCESS record,
 * the environment record (ENV key/value pairs) and periodic host samples. Writer thread only.
 *
 * GPU facts (DEVICE records: name, SMs, memory, compute capability) come from the CUPTI part,
 * which sees the devices; this file only reads versions of CUDA libraries already loaded in
 * the process (it never loads or initialises CUDA itself).
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collect/ssc_core.h"

extern char **environ;

/* Reads a small /proc file into buf (NUL-terminated); returns bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

static const char *snapshot_get(const char *name);

/* A variable from the snapshot (RANK, LOCAL_RANK, WORLD_SIZE are among the kept ones). */
static int env_int(const char *name)
{
    const char *v = snapshot_get(name);
    return v && *v ? atoi(v) : -1;
}

/* The launcher's word for the process's place in the job: torchrun (and most launchers) set
 * RANK, LOCAL_RANK, WORLD_SIZE; srun without torchrun sets only SLURM_PROCID, SLURM_LOCALID and
 * SLURM_NTASKS. */
static int job_int(const char *torch_name, const char *slurm_name)
{
    int v = env_int(torch_name);
    return v >= 0 ? v : env_int(slurm_name);
}

static uint32_t intern_cstr(const char *s)
{
    return s ? ssc_intern(s, strlen(s)) : SST_NO_STRING;
}

void ssc_host_trace_name(char *buf, size_t cap, int attempt)
{
    char host[256] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; p++) /* a hostile hostname must not make a path */
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_') *p = '_';
    int rank = job_int("RANK", "SLURM_PROCID");
    int restart = env_int("TORCHELASTIC_RESTART_COUNT");
    char r[48] = "", a[24] = "";
    /* torchrun gives ranks anew at each restart: a restarted job's traces keep apart */
    if (rank >= 0 && restart > 0)
        snprintf(r, sizeof r, "-r%d-restart%d", rank, restart);
    else if (rank >= 0)
        snprintf(r, sizeof r, "-r%d", rank);
    if (attempt > 0) /* the pid was used before in this folder (containers restart at 1) */
        snprintf(a, sizeof a, ".%d", attempt);
    snprintf(buf, cap, "%s-%d%s%s.sstrace", host, (int)getpid(), r, a);
}

void ssc_host_write_process(void)
{
    char host[256] = "", cmd[4096], exe[4096];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    ssize_t n = read_small("/proc/self/cmdline", cmd, sizeof cmd);
    for (ssize_t i = 0; i + 1 < n; i++) /* argv is NUL-separated: join with spaces */
        if (cmd[i] == '\0') cmd[i] = ' ';
    ssize_t e = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[e > 0 ? e : 0] = '\0';
    uint32_t h = intern_cstr(host), c = intern_cstr(n > 0 ? cmd : ""), x = intern_cstr(exe);
    struct sst_rec_process *r = ssc_writer_rec(SST_REC_PROCESS, sizeof *r);
    if (!r) return;
    r->pid = (uint32_t)getpid();
    r->ppid = (uint32_t)getppid();
    r->rank = job_int("RANK", "SLURM_PROCID");
    r->local_rank = job_int("LOCAL_RANK", "SLURM_LOCALID");
    r->world_size = job_int("WORLD_SIZE", "SLURM_NTASKS");
    r->hostname = h;
    r->cmdline = c;
    r->exe = x;
    r->start_ns = ssc_start_ns();
}

static void env_kv(const char *key, const char *value)
{
    uint32_t k = intern_cstr(key), v = intern_cstr(value);
    struct sst_rec_env *r = ssc_writer_rec(SST_REC_ENV, sizeof *r);
    if (!r) return;
    r->key = k;
    r->value = v;
}

static void env_kv_u64(const char *key, unsigned long long value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", value);
    env_kv(key, buf);
}

/* Variables that change how training runs: the named ones and every NCCL_* / TORCH_*. */
static int env_selected(const char *kv)
{
    static const char *const names[] = {"CUDA_LAUNCH_BLOCKING=",
                                        "PYTORCH_CUDA_ALLOC_CONF=",
                                        "OMP_NUM_THREADS=",
                                        "CUDA_VISIBLE_DEVICES=",
                                        "RANK=",
                                        "LOCAL_RANK=",
                                        "WORLD_SIZE=",
                                        "LOCAL_WORLD_SIZE=",
                                        "GROUP_RANK=",
                                        "TORCHELASTIC_RESTART_COUNT=",
                                        "SLURM_PROCID=",
                                        "SLURM_LOCALID=",
                                        "SLURM_NODEID=",
                                        "SLURM_NTASKS=",
                                        "SLURM_JOB_ID=",
                                        "PYTORCH_NO_CUDA_MEMORY_CACHING=",
                                        "MKL_NUM_THREADS=",
                                        "CUDA_MODULE_LOADING=",
                                        "PYTHONPATH="};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strncmp(kv, names[i], strlen(names[i])) == 0) return 1;
    return strncmp(kv, "NCCL_", 5) == 0 || strncmp(kv, "TORCH_", 6) == 0;
}

/* The variables the trace keeps ("K=V\0K=V\0..."), copied on a thread of the program's by
 * ssc_host_snapshot_env: the writer thread never reads environ, which the program's setenv
 * (Python's os.environ[k] = v) may reallocate under it at any time. What does not fit is left
 * out. */
static char g_env[16384];
static size_t g_env_len;

void ssc_host_snapshot_env(void)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++) {
        size_t k = strlen(*e) + 1;
        if (!strchr(*e, '=') || !env_selected(*e) || k > sizeof g_env - n) continue;
        memcpy(g_env + n, *e, k);
        n += k;
    }
    g_env_len = n;
}

static const char *snapshot_get(const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < g_env_len; i += strlen(g_env + i) + 1)
        if (strncmp(g_env + i, name, len) == 0 && g_env[i + len] == '=') return g_env + i + len + 1;
    return NULL;
}

static void env_variables(void)
{
    for (size_t i = 0; i < g_env_len; i += strlen(g_env + i) + 1) {
        const char *kv = g_env + i, *eq = strchr(kv, '=');
        char key[256];
        snprintf(key, sizeof key, "env.%.*s", (int)(eq - kv), kv);
        env_kv(key, eq + 1);
    }
}

static void env_cpu(void)
{
    char buf[8192];
    if (read_small("/proc/cpuinfo", buf, sizeof buf) > 0) {
        char *m = strstr(buf, "model name");
        char *colon = m ? strchr(m, ':') : NULL;
        if (colon) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = '\0';
            env_kv("cpu_model", colon);
        }
    }
    env_kv_u64("cpu_count", (unsigned long long)sysconf(_SC_NPROCESSORS_ONLN));
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        env_kv_u64("cpu_affinity_count", (unsigned long long)CPU_COUNT(&set));
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        env_kv_u64("rlimit_nofile", (unsigned long long)rl.rlim_cur);
        env_kv_u64("rlimit_nofile_max", (unsigned long long)rl.rlim_max);
    }
}

/* The configuration, as the table's SST_S_ENV rows say (mode, capture, the window auto came
 * to, memory cap, sample rate, launch sampling, and the libraries another tool kept: for the
 * report, GPU activity or NVTX was left to it, not absent). */
static void env_collector(void)
{
    ssc_config_env(SST_S_ENV, env_kv);
}

/* ---- versions of CUDA libraries already in the process ---------------------------------- */

struct lib_find {
    const char *prefix; /* "libcudnn.so" */
    char path[1024];
};

static int find_lib_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct lib_find *f = arg;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (base && strncmp(base, f->prefix, strlen(f->prefix)) == 0) {
        snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

/* Calls `int fn(int *)` (or `size_t fn(void)` when no_arg) from a loaded library. */
static int loaded_version(const char *prefix, const char *fn, int no_arg, long *out)
{
    struct lib_find f = {prefix, ""};
    if (!dl_iterate_phdr(find_lib_cb, &f)) return 0;
    void *h = dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD); /* never loads anything new */
    void *sym = h ? dlsym(h, fn) : NULL;
    int ok = 0;
    if (sym && no_arg) {
        *out = (long)((size_t(*)(void))sym)();
        ok = 1;
    } else if (sym) {
        int v = 0;
        ok = ((int (*)(int *))sym)(&v) == 0;
        *out = v;
    }
    if (h) dlclose(h);
    return ok;
}

static void env_versions(void)
{
    static int done_driver, done_runtime, done_cudnn;
    long v;
    if (!done_driver && loaded_version("libcuda.so", "cuDriverGetVersion", 0, &v))
        env_kv_u64("driver_version", (unsigned long long)v), done_driver = 1;
    if (!done_runtime && loaded_version("libcudart.so", "cudaRuntimeGetVersion", 0, &v))
        env_kv_u64("runtime_version", (unsigned long long)v), done_runtime = 1;
    if (!done_cudnn && loaded_version("libcudnn.so", "cudnnGetVersion", 1, &v))
        env_kv_u64("cudnn_version", (unsigned long long)v), done_cudnn = 1;
}

void ssc_host_write_env(void)
{
    env_variables();
    env_cpu();
    env_collector();
    env_versions();
}

void ssc_host_write_late_env(void)
{
    env_versions(); /* torch loads cuDNN and the runtime long after the collector starts */
    env_kv("program.kind", ssc_program_kind()); /* libtorch too: at the end, once */
}

/* ---- host samples ----------------------------------------------------------------------- */

/* utime and stime (clock ticks) from a /proc/PID/stat line: fields 14 and 15. */
static int stat_cpu(const char *path, uint64_t *ut, uint64_t *st, uint32_t *threads)
{
    char buf[1024];
    if (read_small(path, buf, sizeof buf) <= 0) return -1;
    char *p = strrchr(buf, ')'); /* the command name may contain spaces and parens */
    unsigned long long u = 0, s = 0;
    long nthreads = 0;
    if (!p || sscanf(p + 2,
                     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d "
                     "%*d %ld",
                     &u, &s, &nthreads) != 3)
        return -1;
    *ut = u;
    *st = s;
    if (threads) *threads = (uint32_t)nthreads;
    return 0;
}

static void read_io(const char *path, uint64_t *read_bytes, uint64_t *rchar)
{
    char buf[512];
    if (read_small(path, buf, sizeof buf) <= 0) return;
    char *p = strstr(buf, "rchar:");
    if (p) *rchar += strtoull(p + 6, NULL, 10);
    p = strstr(buf, "\nread_bytes:");
    if (p) *read_bytes += strtoull(p + 12, NULL, 10);
}

/* Sums CPU time and reads of the live children (DataLoader workers). */
static void sample_children(struct sst_rec_host_sample *r, uint64_t tick_ns)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[96], list[4096];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/children", de->d_name);
        if (read_small(path, list, sizeof list) <= 0) continue;
        char *save = NULL; /* strtok_r: the program may be using strtok's hidden state */
        for (char *tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
            uint64_t u, s;
            snprintf(path, sizeof path, "/proc/%.20s/stat", tok);
            if (stat_cpu(path, &u, &s, NULL) != 0) continue;
            r->children++;
            r->child_user_ns += u * tick_ns;
            r->child_sys_ns += s * tick_ns;
            snprintf(path, sizeof path, "/proc/%.20s/io", tok);
            read_io(path, &r->read_bytes, &r->rchar);
        }
    }
    closedir(d);
}

void ssc_host_sample(void)
{
    uint64_t tick_ns = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t u, s;
    uint32_t threads = 0;
    stat_cpu("/proc/self/stat", &u, &s, &threads);
    char statm[128];
    unsigned long long size = 0, resident = 0;
    if (read_small("/proc/self/statm", statm, sizeof statm) > 0)
        sscanf(statm, "%llu %llu", &size, &resident);
    struct sst_rec_host_sample r;
    memset(&r, 0, sizeof r);
    r.threads = threads;
    r.cpu_user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull;
    r.cpu_sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
    r.vol_ctxsw = (uint64_t)ru.ru_nvcsw;
    r.invol_ctxsw = (uint64_t)ru.ru_nivcsw;
    r.rss_bytes = resident * (uint64_t)sysconf(_SC_PAGESIZE);
    read_io("/proc/self/io", &r.read_bytes, &r.rchar);
    sample_children(&r, tick_ns);
    r.ts_ns = sst_now_ns();
    struct sst_rec_host_sample *out = ssc_writer_rec(SST_REC_HOST_SAMPLE, sizeof r);
    if (out) memcpy((char *)out + sizeof r.h, (char *)&r + sizeof r.h, sizeof r - sizeof r.h);
}
