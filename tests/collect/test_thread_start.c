/*
 * test_thread_start.c — ssc_thread_start (ssc_config.c) never waits for ever. Linked with
 * -Wl,--wrap=pthread_create: the wrapper can hold a new thread back before it runs the start
 * routine, as an allocator lock inherited held by nobody holds a fork()ed child's new thread in
 * the sanitizer's thread start (nvtx_prog normal under ASan, CI's hang of
 * collect_inject_foreign_cuda). Checks: a thread that starts runs its function (0 returned); one
 * held back makes ssc_thread_start return ETIMEDOUT after its 5 s, and once let go it returns
 * without running the function (the collector forgot it) and without touching freed memory.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "collect/ssc_config.h"

int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int g_hold; /* the next thread waits on g_release before its start routine */
static sem_t g_release;
static _Atomic int g_ran, g_ended;

struct held {
    void *(*fn)(void *);
    void *arg;
};

static void *held_start(void *p)
{
    struct held h = *(struct held *)p;
    free(p);
    sem_wait(&g_release);
    h.fn(h.arg);
    atomic_store(&g_ended, 1);
    return NULL;
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (!g_hold) return __real_pthread_create(t, a, fn, arg);
    struct held *h = malloc(sizeof *h);
    if (!h) return ENOMEM;
    h->fn = fn, h->arg = arg;
    return __real_pthread_create(t, a, held_start, h);
}

static void *body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_ran, 1);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    int failed = 0;
    pthread_t t;
    sem_init(&g_release, 0, 0);
    /* a thread that starts */
    int rc = ssc_thread_start(&t, body);
    if (rc != 0)
        printf("FAIL: start returned %d\n", rc), failed = 1;
    else
        pthread_join(t, NULL);
    if (atomic_load(&g_ran) != 1) printf("FAIL: the function ran %d times\n", g_ran), failed = 1;
    /* a thread held back: ETIMEDOUT within a bounded time, the function never runs */
    g_hold = 1;
    double t0 = now_s();
    rc = ssc_thread_start(&t, body);
    double waited = now_s() - t0;
    if (rc != ETIMEDOUT)
        printf("FAIL: held-back start returned %d, not ETIMEDOUT\n", rc), failed = 1;
    if (waited < 4.0 || waited > 15.0)
        printf("FAIL: gave up after %.1f s (expected about 5)\n", waited), failed = 1;
    sem_post(&g_release);
    for (int i = 0; i < 500 && !atomic_load(&g_ended); i++)
        usleep(10000);
    if (!atomic_load(&g_ended)) printf("FAIL: the released thread did not end\n"), failed = 1;
    if (atomic_load(&g_ran) != 1)
        printf("FAIL: an abandoned thread ran the function\n"), failed = 1;
    if (!failed) printf("ok: started, and gave up on a held-back thread after %.1f s\n", waited);
    return failed;
}
