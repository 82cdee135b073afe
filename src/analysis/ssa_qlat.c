/*
 * ssa_qlat.c — how soon each kernel starts after its launch call (pass 2): the launch-bound
 * test that does not depend on how busy the GPU is.
 *
 * When the host launches faster than the GPU runs, kernels wait in the launch queue: a
 * kernel starts long after its call (the queue's length, milliseconds in a GPU-bound step).
 * When the GPU waits for the host, the queue is empty and each kernel starts within a few
 * microseconds of the call that launched it, however much of the step its kernels fill.
 * Pass 2 keeps (correlation id, time) of the kernel launch calls and of the kernels inside
 * steps; the two are joined by correlation id at the end (records come in file order, not in
 * time order: a kernel's record may come before its call's). Memory is bounded: past
 * a sample: the ids whose hash a power-of-two stride divides (both sides alike, so the pairs
 * kept are an unbiased sample of the kernels; a hash, not the id itself, so that a step that
 * makes the same number of calls each time does not keep the same call of every step). The
 * stride is chosen from pass 1's kernel count, and doubles if a side fills SSA_QLAT_CAP.
 */
#include <stdlib.h>

#include "ssa_internal.h"
#include "util/ss_error.h"

#define SSA_QLAT_CAP (1u << 17)    /* entries a side before the stride doubles (2 MiB) */
#define SSA_QLAT_TARGET (1u << 13) /* kernels a side the first stride aims at */

void ssa_qlat_init(struct ssa_qlat *q, uint64_t kernels)
{
    *q = (struct ssa_qlat){0};
    while ((kernels >> 1) > SSA_QLAT_TARGET) /* stride 2^k: kernels / stride <= 2 x target */
        kernels >>= 1, q->mask = q->mask << 1 | 1;
}

/* Drops the entries whose id the (doubled) stride no longer keeps. */
static void qside_thin(struct ssa_qside *s, uint32_t mask)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!(ssa_qlat_hash(s->v[i].corr) & mask)) s->v[k++] = s->v[i];
    s->n = k;
}

/* Past its cap a side keeps half the ids it kept, and the other side the same half. */
int ssa_qlat_add(struct ssa_qlat *q, int kernel, uint32_t corr, uint64_t t)
{
    struct ssa_qside *s = kernel ? &q->kernel : &q->launch;
    if (s->n == SSA_QLAT_CAP) {
        q->mask = q->mask << 1 | 1;
        qside_thin(&q->launch, q->mask), qside_thin(&q->kernel, q->mask);
        if (ssa_qlat_hash(corr) & q->mask) return 0;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        struct ssa_qpair *v = realloc(s->v, cap * sizeof *v);
        if (!v) return SS_ENOMEM;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = (struct ssa_qpair){corr, t};
    return 0;
}

static int cmp_qpair(const void *a, const void *b)
{
    const struct ssa_qpair *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/* Joins the two sides: *matched kernels found their call, *prompt of them started within
 * SSA_QLAT_PROMPT_NS of the call's start. Frees what q holds. */
void ssa_qlat_finish(struct ssa_qlat *q, uint64_t *matched, uint64_t *prompt)
{
    *matched = *prompt = 0;
    if (q->launch.n) qsort(q->launch.v, q->launch.n, sizeof *q->launch.v, cmp_qpair);
    if (q->kernel.n) qsort(q->kernel.v, q->kernel.n, sizeof *q->kernel.v, cmp_qpair);
    for (size_t i = 0, j = 0; i < q->kernel.n && j < q->launch.n;) {
        const struct ssa_qpair *k = &q->kernel.v[i], *l = &q->launch.v[j];
        if (l->corr < k->corr) {
            j++;
            continue;
        }
        if (l->corr == k->corr) {
            (*matched)++;
            *prompt += k->t >= l->t && k->t - l->t < SSA_QLAT_PROMPT_NS;
        }
        i++;
    }
    free(q->launch.v), free(q->kernel.v);
    *q = (struct ssa_qlat){0};
}
