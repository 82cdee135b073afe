/*
 * doctor_env.c — the doctor checks that `stepscope report` also makes from a trace.
 *
 * The judging is src/analysis/ssa_env_checks.c's, shared with the report; here are only the
 * facts, gathered live under the same keys the collector writes into a trace's environment
 * record (docs/trace-format.md, "env"): the variables, RLIMIT_NOFILE, the CPU counts, and
 * the driver and runtime versions the cuda_driver and cuda_runtime checks found; and how a
 * row of doctor's table is run and named (its own check, or a shared one).
 */
#include "doctor.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/ssa_env.h"

extern char **environ;

#define FACTS_MAX 64
#define FACT_TEXT 256

struct live_facts {
    struct ssa_env_facts f;
    struct ssa_env_kv kv[FACTS_MAX];
    char text[FACTS_MAX][2][FACT_TEXT];
};

static void fact(struct live_facts *d, const char *key, const char *value)
{
    if (!value || d->f.n >= FACTS_MAX) return;
    size_t i = d->f.n++;
    snprintf(d->text[i][0], FACT_TEXT, "%s", key);
    snprintf(d->text[i][1], FACT_TEXT, "%s", value);
    d->kv[i] = (struct ssa_env_kv){d->text[i][0], d->text[i][1]};
}

static void fact_num(struct live_facts *d, const char *key, unsigned long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    fact(d, key, buf);
}

/* The variables the shared checks read, as the collector records them ("env.NAME"). */
static void live_variables(struct live_facts *d)
{
    static const char *const names[] = {"CUDA_LAUNCH_BLOCKING", "OMP_NUM_THREADS",
                                        "CUDA_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF",
                                        "PYTORCH_NO_CUDA_MEMORY_CACHING"};
    char key[FACT_TEXT];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(key, sizeof key, "env.%s", names[i]);
        fact(d, key, getenv(names[i]));
    }
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, "NCCL_", 5) != 0) continue;
        snprintf(key, sizeof key, "env.%.*s", (int)(eq - *e), *e);
        fact(d, key, eq + 1);
    }
}

static void live_limits(struct live_facts *d)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        fact_num(d, "rlimit_nofile", (unsigned long long)rl.rlim_cur);
        fact_num(d, "rlimit_nofile_max", (unsigned long long)rl.rlim_max);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0) fact_num(d, "cpu_count", (unsigned long long)online);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        fact_num(d, "cpu_affinity_count", (unsigned long long)CPU_COUNT(&set));
}

/* This machine's facts into d (which keeps the strings). */
static void live_facts(const struct dr_ctx *c, struct live_facts *d)
{
    memset(&d->f, 0, sizeof d->f);
    d->f.kv = d->kv;
    d->f.variables = 1; /* getenv answers for every variable */
    d->f.children = d->f.native_conv = d->f.nccl_kernels = -1; /* only a trace knows */
    d->f.multi_node = c->multi_node || dr_env_says_multi_node();
    d->f.missing = "not readable here"; /* this machine's facts, not a trace's record */
    live_variables(d);
    live_limits(d);
    if (c->driver_version > 0) fact_num(d, "driver_version", (unsigned long long)c->driver_version);
    if (c->runtime_version > 0)
        fact_num(d, "runtime_version", (unsigned long long)c->runtime_version);
}

void dr_judge_shared(struct dr_ctx *c, struct ssa_env_verdict *r, int shared)
{
    static struct live_facts d; /* 32 KiB: not on the stack */
    live_facts(c, &d);
    ssa_env_checks[shared].judge(&d.f, r);
}

void dr_check_driver_runtime(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    dr_judge_shared(c, r, SSA_ENV_CHECK_DRIVER_RUNTIME);
    if (r->status == SSA_ENV_SKIP)
        dr_set(r, SSA_ENV_SKIP, NULL,
               "no driver and runtime version to compare (see cuda_driver, "
               "cuda_runtime)");
}

const char *dr_check_id(const struct dr_check *k)
{
    return k->id ? k->id : ssa_env_checks[k->shared].id;
}

const char *dr_check_title(const struct dr_check *k)
{
    return k->title ? k->title : ssa_env_checks[k->shared].title;
}

void dr_check_run(const struct dr_check *k, struct dr_ctx *c, struct ssa_env_verdict *r)
{
    if (k->run)
        k->run(c, r);
    else
        dr_judge_shared(c, r, k->shared);
}
