/*
 * doctor.h — the checks of `stepscope doctor` (tools/doctor_checks.c) and what they share
 * with the verb (tools/doctor/cmd_doctor.c).
 *
 * One table of checks, dr_checks[]: each check is a small function that looks at one thing
 * on this machine and fills a dr_result (status, what it saw, and for warn/fail the fix in
 * one line). Checks never fail the program: whatever they cannot read becomes a skip or a
 * fail with the reason in the value. docs/doctor.md lists them. The checks that a trace's
 * environment record can answer too are judged by src/analysis/ssa_env_checks.c, for both
 * doctor and `stepscope report`.
 */
#ifndef DOCTOR_H
#define DOCTOR_H

#include <stddef.h>

enum dr_status { DR_PASS, DR_WARN, DR_FAIL, DR_SKIP, DR_N_STATUS };

#define DR_VALUE_MAX 512
#define DR_FIX_MAX 256
#define DR_MAX_CHECKS 32 /* room in cmd_doctor's result array */

struct dr_result {
    int status;               /* enum dr_status */
    char value[DR_VALUE_MAX]; /* what the check saw, or why it was skipped */
    char fix[DR_FIX_MAX];     /* one line for warn/fail; empty otherwise */
};

/* What the checks share: the options, and results one check passes to a later one (the
 * torch probe runs python once; two checks read it). Lives on cmd_doctor's stack. */
struct dr_ctx {
    const char *data_dir; /* --data DIR, or NULL */
    int multi_node;       /* --multi-node, or the launcher's environment says so */
    int torch_probed;     /* the python probe ran (whatever it found) */
    int torch_rc;         /* its dr_run_capture status */
    char torch_out[2048]; /* its key=value lines */
    long driver_version;  /* cuDriverGetVersion, cudaRuntimeGetVersion as the driver and */
    long runtime_version; /* runtime checks found them (0: none) for driver_runtime */
};

struct dr_check {
    const char *id;    /* stable, for --json and scripts: "cuda_driver" */
    const char *title; /* for people */
    void (*run)(struct dr_ctx *c, struct dr_result *r);
};

extern const struct dr_check dr_checks[];
extern const size_t dr_n_checks;

/* "pass", "warn", "fail", "skip". */
const char *dr_status_name(int status);

/* Sets r: status, the fix (NULL for none) and the value from fmt. */
void dr_set(struct dr_result *r, int status, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Runs argv (argv[0] a path) with stdin and stderr on /dev/null and collects up to cap-1
 * bytes of its stdout into out (NUL-terminated). Kills its process group after timeout_ms.
 * Returns its exit status (0..255), -1 when it could not be started, -2 when it timed out
 * or died of a signal. Never runs a shell. */
int dr_run_capture(char *const argv[], int timeout_ms, char *out, size_t cap);

/* The time limit for a helper program: default_ms, or STEPSCOPE_DOCTOR_TIMEOUT_S seconds
 * (1..600) when that is set (slow imports on network filesystems; tests). */
int dr_timeout_ms(int default_ms);

/* Finds an executable on PATH into buf. Returns 0, or -1 when there is none. */
int dr_which(const char *name, char *buf, size_t cap);

/* torchrun (WORLD_SIZE > LOCAL_WORLD_SIZE) or SLURM (SLURM_NNODES > 1) says the job spans
 * several machines. */
int dr_env_says_multi_node(void);

/* The checks shared with `stepscope report` (src/analysis/ssa_env.h), judged on this
 * machine's facts gathered live (tools/doctor_env.c): one per id of ssa_env_checks[]. */
void dr_check_launch_blocking(struct dr_ctx *c, struct dr_result *r);
void dr_check_driver_runtime(struct dr_ctx *c, struct dr_result *r);
void dr_check_open_files(struct dr_ctx *c, struct dr_result *r);
void dr_check_cpu_cores(struct dr_ctx *c, struct dr_result *r);
void dr_check_omp_threads(struct dr_ctx *c, struct dr_result *r);
void dr_check_visible_devices(struct dr_ctx *c, struct dr_result *r);
void dr_check_nccl_env(struct dr_ctx *c, struct dr_result *r);
void dr_check_alloc_conf(struct dr_ctx *c, struct dr_result *r);

#endif
