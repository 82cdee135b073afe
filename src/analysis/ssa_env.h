/*
 * ssa_env.h — the environment checks: key/value facts in, pass/warn/fail and the fix out.
 *
 * One table of checks (SSA_ENV_CHECKS below, ssa_env_checks.c) judged by pure functions: no
 * I/O, no getenv. The facts are the keys of the trace's ENV records (docs/trace-format.md:
 * "env.CUDA_LAUNCH_BLOCKING", "rlimit_nofile", "driver_version"...) plus a few numbers read
 * off the rest of the trace (child processes, kernels). Two gatherers feed the same table:
 * `stepscope report` from a trace (ssa_env_facts_of) and `stepscope doctor` from the live
 * machine (tools/doctor_env.c), so a report made elsewhere still shows what doctor would
 * have said. A fact that is missing never fails a check: the check is skipped as "not
 * recorded". docs/doctor.md lists the checks.
 */
#ifndef SSA_ENV_H
#define SSA_ENV_H

#include <stddef.h>
#include <stdint.h>

struct ssa_result;

/* A check's verdict, the report's and `stepscope doctor`'s alike: doctor's own checks
 * (tools/doctor/) say theirs with the same type. */
enum ssa_env_status { SSA_ENV_PASS, SSA_ENV_WARN, SSA_ENV_FAIL, SSA_ENV_SKIP, SSA_ENV_N_STATUS };
const char *ssa_env_status_name(int status); /* "pass", "warn", "fail", "skip" */

struct ssa_env_kv {
    char *key, *value; /* owned by whoever filled the array (const for the judges) */
};

/* The trace's environment record as pass 1 keeps it (struct ssa_result.env): every ENV
 * key/value (a key seen again replaces its value: the collector looks versions up again at
 * exit) and what host samples say about child processes. */
#define SSA_ENV_MAX_KEYS 256  /* more distinct keys are counted in dropped, not kept */
#define SSA_ENV_MAX_TEXT 1024 /* longer keys and values are cut */
struct ssa_env_record {
    size_t n, cap;
    struct ssa_env_kv *kv; /* owned: ssa_env_record_free */
    uint32_t dropped;
    uint64_t host_samples;
    uint32_t children_max; /* most live child processes in one host sample */
};
/* Keeps key=value (lengths given, any bytes; cut at SSA_ENV_MAX_TEXT). 0, or SS_ENOMEM
 * (the record stays as it was; past SSA_ENV_MAX_KEYS the pair is counted, 0 returned). */
int ssa_env_record_add(struct ssa_env_record *e, const char *key, size_t klen, const char *value,
                       size_t vlen);
void ssa_env_record_free(struct ssa_env_record *e); /* frees what add allocated; e stays valid */
/* The value of key in e (a key given again replaced its value), or NULL. Borrowed from e. */
const char *ssa_env_value(const struct ssa_env_record *e, const char *key);
/* 1 for a light recording (ENV collector.mode "light"): API calls and copies, no kernel. */
int ssa_env_light(const struct ssa_env_record *e);

/* What the judges read. kv is borrowed. Unknown numbers are -1. */
struct ssa_env_facts {
    const struct ssa_env_kv *kv;
    size_t n;
    int variables;     /* 1: the variables were captured, so an absent env.NAME is unset */
    long children;     /* most child processes (DataLoader workers) alive at once */
    long native_conv;  /* kernels of convolutions run without cuDNN (im2col/col2im) */
    long nccl_kernels; /* NCCL kernels that ran */
    int multi_node;    /* 1 the job spans machines, 0 it does not, -1 unknown */
    /* How a missing fact reads in a skip's value: NULL for a trace's ("not recorded"), or the
     * gatherer's words ("not readable here": doctor, on the live machine) */
    const char *missing;
};
/* The value of key (the last one given), or NULL when it is not among the facts. */
const char *ssa_env_get(const struct ssa_env_facts *f, const char *key);

/* The facts of an analysed trace: its ENV records, host samples and kernel names. f borrows
 * r's strings: use it while r lives. */
void ssa_env_facts_of(const struct ssa_result *r, struct ssa_env_facts *f);

/* The verdict of one check: this table's judges fill it, and doctor's own checks do (whose
 * values name paths: a deep checkout's are long). */
#define SSA_ENV_VALUE_MAX 4096
#define SSA_ENV_FIX_MAX 256
struct ssa_env_verdict {
    int status;                    /* enum ssa_env_status */
    char value[SSA_ENV_VALUE_MAX]; /* evidence (may quote the trace: escape it) or why skipped */
    char fix[SSA_ENV_FIX_MAX];     /* one line for warn and fail; empty otherwise */
};

/* The checks, one row each: X(ID, id, "title"). id is stable (the report's JSON, doctor's
 * --json, scripts); its judge is judge_<id> in ssa_env_checks.c (a row without one does not
 * build). The report judges every row on the trace's facts; doctor runs the rows it names by
 * SSA_ENV_CHECK_ID on this machine's facts (tools/doctor/doctor_checks.c), so neither spells
 * an id of the other. docs/doctor.md lists them. */
#define SSA_ENV_CHECKS(X)                                                                          \
    X(LAUNCH_BLOCKING, launch_blocking, "CUDA_LAUNCH_BLOCKING not left on")                        \
    X(DRIVER_RUNTIME, driver_runtime, "CUDA runtime not newer than the driver")                    \
    X(CUDNN, cudnn, "cuDNN loaded and used for convolutions")                                      \
    X(OPEN_FILES, open_files, "ulimit -n for DataLoader workers")                                  \
    X(CPU_CORES, cpu_cores, "CPU cores for DataLoader workers")                                    \
    X(DATALOADER_WORKERS, dataloader_workers, "DataLoader worker processes vs usable CPUs")        \
    X(OMP_THREADS, omp_threads, "OMP_NUM_THREADS within the usable CPUs")                          \
    X(VISIBLE_DEVICES, visible_devices, "CUDA_VISIBLE_DEVICES leaves GPUs visible")                \
    X(NCCL_ENV, nccl_env, "NCCL_* settings that slow communication")                               \
    X(ALLOC_CONF, alloc_conf, "PyTorch CUDA allocator settings")

enum ssa_env_check_id {
#define SSA_X_CHECK_ID(ID, id, title) SSA_ENV_CHECK_##ID,
    SSA_ENV_CHECKS(SSA_X_CHECK_ID)
#undef SSA_X_CHECK_ID
        SSA_ENV_N_CHECKS
};

struct ssa_env_check {
    const char *id;    /* the row's id: "launch_blocking", "open_files"... */
    const char *title; /* for people */
    void (*judge)(const struct ssa_env_facts *f, struct ssa_env_verdict *v);
};
#define SSA_ENV_MAX_CHECKS 16 /* room callers may reserve for one verdict per check */
_Static_assert(SSA_ENV_N_CHECKS <= SSA_ENV_MAX_CHECKS, "room for every check");
extern const struct ssa_env_check ssa_env_checks[SSA_ENV_N_CHECKS]; /* in enum order */
extern const size_t ssa_env_n_checks;
/* The check with this id, or NULL. */
const struct ssa_env_check *ssa_env_check_find(const char *id);

/* The judgement of CUDA_LAUNCH_BLOCKING's value alone (NULL: unset): fail when it is a
 * non-zero number (launches block), warn when it is not a number, else pass. The analysis's
 * launch_blocking finding fires exactly on fail. */
int ssa_env_launch_blocking(const char *value);

/* "9.19.0" from cudnnGetVersion()'s number (cuDNN 9: M*10000+m*100+p, 8: M*1000+m*100+p). */
void ssa_env_cudnn_text(unsigned long v, char *buf, size_t cap);

/* A kernel of a convolution run without cuDNN: PyTorch's im2col/col2im (2-D) and
 * vol2col/col2vol (3-D) fallbacks, not cuDNN's own im2col kernels. */
int ssa_env_native_conv_kernel(const char *name);

#endif
