/*
 * ssa_env.c — the trace's environment record as the analysis keeps it, and the facts the
 * environment checks (ssa_env_checks.c) read from an analysed trace. See ssa_env.h.
 */
#include "ssa_env.h"

#include <stdlib.h>
#include <string.h>

#include "ssa.h"
#include "util/ss_error.h"

const char *ssa_env_status_name(int status)
{
    static const char *const names[SSA_ENV_N_STATUS] = {"pass", "warn", "fail", "skip"};
    return status >= 0 && status < SSA_ENV_N_STATUS ? names[status] : "fail";
}

/* A NUL-terminated copy of s[0..n), cut at SSA_ENV_MAX_TEXT. Caller frees; NULL on ENOMEM. */
static char *copy_text(const char *s, size_t n)
{
    if (n > SSA_ENV_MAX_TEXT) n = SSA_ENV_MAX_TEXT;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static struct ssa_env_kv *find_key(struct ssa_env_record *e, const char *key, size_t klen)
{
    if (klen > SSA_ENV_MAX_TEXT) klen = SSA_ENV_MAX_TEXT;
    for (size_t i = 0; i < e->n; i++)
        if (strlen(e->kv[i].key) == klen && memcmp(e->kv[i].key, key, klen) == 0) return &e->kv[i];
    return NULL;
}

int ssa_env_record_add(struct ssa_env_record *e, const char *key, size_t klen, const char *value,
                       size_t vlen)
{
    struct ssa_env_kv *old = find_key(e, key, klen);
    if (!old && e->n >= SSA_ENV_MAX_KEYS) {
        e->dropped++;
        return 0;
    }
    char *v = copy_text(value, vlen);
    if (!v) return SS_ENOMEM;
    if (old) { /* looked up again later (versions at exit): the later value stands */
        free(old->value);
        old->value = v;
        return 0;
    }
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 32;
        struct ssa_env_kv *kv = realloc(e->kv, cap * sizeof *kv);
        if (!kv) return free(v), SS_ENOMEM;
        e->kv = kv, e->cap = cap;
    }
    char *k = copy_text(key, klen);
    if (!k) return free(v), SS_ENOMEM;
    e->kv[e->n++] = (struct ssa_env_kv){k, v};
    return 0;
}

void ssa_env_record_free(struct ssa_env_record *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->kv[i].key);
        free(e->kv[i].value);
    }
    free(e->kv);
    e->kv = NULL;
    e->n = e->cap = 0;
}

static const char *kv_value(const struct ssa_env_kv *kv, size_t n, const char *key)
{
    for (size_t i = n; i-- > 0;)
        if (strcmp(kv[i].key, key) == 0) return kv[i].value;
    return NULL;
}

const char *ssa_env_value(const struct ssa_env_record *e, const char *key)
{
    return kv_value(e->kv, e->n, key);
}

int ssa_env_light(const struct ssa_env_record *e)
{
    const char *mode = ssa_env_value(e, "collector.mode");
    return mode && strcmp(mode, "light") == 0;
}

const char *ssa_env_get(const struct ssa_env_facts *f, const char *key)
{
    return kv_value(f->kv, f->n, key);
}

int ssa_env_native_conv_kernel(const char *name)
{
    static const char *const fallbacks[] = {"im2col_kernel", "col2im_kernel", "vol2col_kernel",
                                            "col2vol_kernel"};
    if (!name || strstr(name, "cudnn")) return 0; /* cuDNN has im2col kernels of its own */
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
        if (strstr(name, fallbacks[i])) return 1;
    return 0;
}

/* The collector writes its configuration and every selected variable that is set, so with
 * its record (or any env.NAME at all) an absent variable was unset. */
static int variables_captured(const struct ssa_env_record *e)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->kv[i].key, "collector.mode") == 0 || strncmp(e->kv[i].key, "env.", 4) == 0)
            return 1;
    return 0;
}

void ssa_env_facts_of(const struct ssa_result *r, struct ssa_env_facts *f)
{
    memset(f, 0, sizeof *f);
    f->kv = r->env.kv;
    f->n = r->env.n;
    f->variables = variables_captured(&r->env);
    f->children = r->env.host_samples ? (long)r->env.children_max : -1;
    f->multi_node = -1; /* one process's trace does not say where the other ranks ran */
    if (!r->kernels) {  /* no kernel recorded (CUPTI held by another tool): unknown, not none */
        f->native_conv = f->nccl_kernels = -1;
        return;
    }
    for (size_t i = 0; i < r->n_knames; i++) {
        long count = (long)r->knames[i].count;
        if (r->knames[i].kclass == SSA_KC_NCCL) f->nccl_kernels += count;
        if (r->kname_text && ssa_env_native_conv_kernel(r->kname_text[i])) f->native_conv += count;
    }
}
