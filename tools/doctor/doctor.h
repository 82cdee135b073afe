/*
 * doctor.h — the checks of `stepscope doctor` (tools/doctor_checks.c) and what they share
 * with the verb (tools/doctor/cmd_doctor.c).
 *
 * One table of checks, dr_checks[]: each check is a small function that looks at one thing
 * on this machine and fills its verdict (status, what it saw, and for warn/fail the fix in
 * one line). Checks never fail the program: whatever they cannot read becomes a skip or a
 * fail with the reason in the value. docs/doctor.md lists them. The checks that a trace's
 * environment record can answer too are rows of SSA_ENV_CHECKS (src/analysis/ssa_env.h),
 * judged by src/analysis/ssa_env_checks.c for both doctor and `stepscope report`; doctor's
 * table names them by number (DR_SHARED). Doctor's own checks and the shared ones say their
 * verdict alike: struct ssa_env_verdict, enum ssa_env_status (ssa_env.h), the one verdict type
 * of doctor and the report.
 */
#ifndef DOCTOR_H
#define DOCTOR_H

#include <stddef.h>

#include "analysis/ssa_env.h"

#define DR_MAX_CHECKS 32 /* room in cmd_doctor's verdict array */

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

/* A row of the table: doctor's own check (DR_OWN), or one that a trace can answer too, a row
 * of SSA_ENV_CHECKS (src/analysis/ssa_env.h) named here by its number (DR_SHARED): its id and
 * title come from there and it is judged there, on this machine's facts (doctor_env.c), unless
 * the row gives its own title or run (driver_runtime's words for a skip; cudnn, which here
 * asks whether cuDNN loads). */
struct dr_check {
    const char *id;    /* stable, for --json and scripts: "cuda_driver"; NULL: shared's */
    const char *title; /* for people; NULL: shared's */
    void (*run)(struct dr_ctx *c, struct ssa_env_verdict *r); /* NULL: shared's judge, live */
    int shared;        /* enum ssa_env_check_id, or DR_NOT_SHARED */
};
#define DR_NOT_SHARED (-1)
#define DR_OWN(id, title, run) {id, title, run, DR_NOT_SHARED}
#define DR_SHARED(ID) {NULL, NULL, NULL, SSA_ENV_CHECK_##ID}

extern const struct dr_check dr_checks[];
extern const size_t dr_n_checks;

/* A row's id and title (its own, else its shared check's), and running it into r. */
const char *dr_check_id(const struct dr_check *k);
const char *dr_check_title(const struct dr_check *k);
void dr_check_run(const struct dr_check *k, struct dr_ctx *c, struct ssa_env_verdict *r);

/* Sets r: status (enum ssa_env_status), the fix (NULL for none) and the value from fmt. */
void dr_set(struct ssa_env_verdict *r, int status, const char *fix, const char *fmt, ...)
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

/* A shared check (enum ssa_env_check_id) judged on this machine's facts gathered live
 * (doctor_env.c). */
void dr_judge_shared(struct dr_ctx *c, struct ssa_env_verdict *r, int shared);
/* driver_runtime: the shared judge, with doctor's words for a skip. */
void dr_check_driver_runtime(struct dr_ctx *c, struct ssa_env_verdict *r);

#endif
