/*
 * ssa_pipe.c — an ordered job ring with one worker thread (see ssa_pipe.h).
 *
 * Two counters, each moved by one side: jobs pushed (the caller) and jobs done (the worker).
 * A job is a slot handed over by the counter's release store and taken by the other side's
 * acquire load, so the slots themselves need no lock. A side that finds nothing to do spins a
 * little (a step's sweep takes about a microsecond: sleeping at each would cost more than the
 * work), then sleeps on its condition variable; the other side signals it only when its
 * `sleeping` flag says so. Both the flag and the counter are sequentially consistent: either
 * the sleeper sees the counter moved, or the mover sees the flag and takes the mutex, which
 * the sleeper holds until it waits.
 */
#include "ssa_pipe.h"

#include <stdlib.h>
#include <string.h>

#include "util/ss_error.h"

#define SSA_PIPE_SPIN 2000 /* tries before sleeping: ~ a few sweeps' time */

static void *slot_at(const struct ssa_pipe *p, size_t k)
{
    return p->slots + (k % p->n_slots) * p->job_size;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Waits until counter c reaches want; 0 when the pipe is stopping and it never will. */
static int pipe_wait(struct ssa_pipe *p, struct ssa_pipe_ctr *c, size_t want)
{
    for (int i = 0; i < SSA_PIPE_SPIN; i++) {
        if (atomic_load_explicit(&c->n, memory_order_acquire) >= want) return 1;
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    atomic_store(&c->sleeping, 1);
    while (atomic_load(&c->n) < want && !atomic_load(&p->quit))
        pthread_cond_wait(&c->cv, &p->mu);
    atomic_store(&c->sleeping, 0);
    pthread_mutex_unlock(&p->mu);
    return atomic_load(&c->n) >= want;
}

/* Moves counter c to n and wakes its waiter if it sleeps. */
static void pipe_post(struct ssa_pipe *p, struct ssa_pipe_ctr *c, size_t n)
{
    atomic_store(&c->n, n);
    if (!atomic_load(&c->sleeping)) return;
    pthread_mutex_lock(&p->mu);
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *pipe_main(void *arg)
{
    struct ssa_pipe *p = arg;
    for (size_t k = 0; pipe_wait(p, &p->pushed, k + 1); k++) {
        p->fn(p->ctx, slot_at(p, k));
        pipe_post(p, &p->swept, k + 1);
    }
    return NULL;
}

static void ctr_init(struct ssa_pipe_ctr *c)
{
    atomic_init(&c->n, 0);
    atomic_init(&c->sleeping, 0);
    pthread_cond_init(&c->cv, NULL);
}

int ssa_pipe_start(struct ssa_pipe *p, size_t job_size, size_t n_slots, ssa_pipe_fn fn,
                   void *ctx)
{
    *p = (struct ssa_pipe){.job_size = job_size, .n_slots = n_slots, .fn = fn, .ctx = ctx};
    /* each job on a cache line of its own when its size is a multiple of one: so the fields
     * one side writes can be kept off the lines the other side writes (ssa_pipe.h) */
    size_t bytes = (n_slots * job_size + 63) / 64 * 64;
    p->slots = aligned_alloc(64, bytes);
    if (!p->slots) return SS_ENOMEM;
    memset(p->slots, 0, bytes);
    ctr_init(&p->pushed), ctr_init(&p->swept);
    atomic_init(&p->quit, 0);
    pthread_mutex_init(&p->mu, NULL);
    if (pthread_create(&p->th, NULL, pipe_main, p) == 0) return 0;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->pushed.cv), pthread_cond_destroy(&p->swept.cv);
    free(p->slots);
    p->slots = NULL;
    return SS_EIO;
}

void *ssa_pipe_slot(struct ssa_pipe *p)
{
    size_t next = atomic_load_explicit(&p->pushed.n, memory_order_relaxed) + p->filled; /* ours */
    return next - p->retired < p->n_slots ? slot_at(p, next) : NULL;
}

void ssa_pipe_fill(struct ssa_pipe *p)
{
    p->filled++;
}

void ssa_pipe_push(struct ssa_pipe *p)
{
    if (!p->filled) return;
    pipe_post(p, &p->pushed, atomic_load_explicit(&p->pushed.n, memory_order_relaxed) + p->filled);
    p->filled = 0;
}

void *ssa_pipe_done(struct ssa_pipe *p, int wait)
{
    if (p->retired == atomic_load_explicit(&p->pushed.n, memory_order_relaxed)) return NULL;
    if (atomic_load_explicit(&p->swept.n, memory_order_acquire) > p->retired)
        return slot_at(p, p->retired);
    if (!wait) return NULL;
    pipe_wait(p, &p->swept, p->retired + 1); /* pushed: the worker finishes it */
    return slot_at(p, p->retired);
}

void ssa_pipe_retire(struct ssa_pipe *p)
{
    p->retired++;
}

void ssa_pipe_stop(struct ssa_pipe *p)
{
    if (!p->slots) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->quit, 1);
    pthread_cond_signal(&p->pushed.cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->pushed.cv), pthread_cond_destroy(&p->swept.cv);
    free(p->slots);
    p->slots = NULL;
}
