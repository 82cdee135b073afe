/*
 * ssc_config.c — the bottom of the collector: its settings, the capture window they ask for,
 * the process's state and the services that call nothing of the collector (ssc_config.h).
 */
#include "collect/ssc_config.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace/sst_window.h"

_Atomic int ssc_g_state = SSC_OFF;
_Atomic int ssc_g_capturing = 1;
_Atomic int ssc_g_window_over;
_Atomic int ssc_g_cupti_on;
struct ssc_top_events ssc_top;

static uint64_t g_start_ns;
static struct sst_value g_set[SST_N_SETTINGS];
static const char *g_bad[SST_N_SETTINGS]; /* the text of a value that was not one */
static struct ssc_window g_win;
static char g_texts[16384]; /* copies of the texts given (paths up to PATH_MAX, a few of them) */
static size_t g_texts_used;

/* ---- settings ------------------------------------------------------------------------------ */

/* A copy of s that lives as long as the process; "" when the room is spent. */
static const char *keep_text(const char *s)
{
    size_t n = strlen(s) + 1;
    if (n > sizeof g_texts - g_texts_used) return "";
    char *p = memcpy(g_texts + g_texts_used, s, n);
    g_texts_used += n;
    return p;
}

/* One row from the environment into g_set; a value that is not one is said once. 1 when it
 * was given, 0 when not, -1 when not valid. */
static int read_setting(enum sst_setting_id id)
{
    const char *v = getenv(sst_settings[id].env);
    struct sst_value *s = &g_set[id];
    int rc = sst_setting_parse(id, v, s);
    if (rc > 0) s->text = keep_text(v);
    if (rc >= 0) return rc;
    char msg[512];
    sst_setting_problem(id, v, msg, sizeof msg);
    ssc_say(msg);
    g_bad[id] = keep_text(v);
    return rc;
}

const struct sst_value *ssc_setting(enum sst_setting_id id)
{
    return &g_set[id];
}

const char *ssc_setting_invalid(enum sst_setting_id id)
{
    return g_bad[id];
}

int ssc_light_mode(void)
{
    return g_set[SST_SET_MODE].word == SSC_MODE_LIGHT;
}

/* ---- the capture window ---------------------------------------------------------------------
 * "auto": AUTO_STEPS marked steps recorded, then CUPTI detached, so the steps after them run
 * as they would without the collector and the report measures the recording's cost against
 * them; a program that marks no steps is recorded whole, as with "all" (issue #18, README:
 * record's default). Where the Python shim says it will mark steps (STEPSCOPE_AUTO_FROM=N:PID,
 * PID this process) the window starts at step N instead: steps 3..N-1 then run at plain speed
 * before it (CUPTI idle: docs/performance.md) and the cost is measured also on a run shorter
 * than the window (issue #27). Before CUDA starts, so CUPTI holds nothing in those steps; the
 * window (ssc_window.c) opens it early when the steps stop. */

uint64_t ssc_config_auto_from(void)
{
    struct sst_value v;
    const char *text = getenv(sst_settings[SST_SET_AUTO_FROM].env);
    if (sst_setting_parse(SST_SET_AUTO_FROM, text, &v) <= 0) return 0;
    return v.pid == (uint64_t)getpid() ? v.num : 0;
}

void ssc_config_window_start_at(uint64_t from)
{
    g_win.to = from + (g_win.to - g_win.from);
    g_win.from = from;
    snprintf(g_win.spec, sizeof g_win.spec, "steps:%llu-%llu", (unsigned long long)g_win.from,
             (unsigned long long)g_win.to);
}

static void window_auto(void)
{
    g_win.kind = SSC_WINDOW_STEPS;
    g_win.from = 0;
    g_win.to = g_set[SST_SET_AUTO_STEPS].num - 1;
    g_win.auto_pending = 1;
    g_win.is_auto = 1;
    ssc_config_window_start_at(ssc_config_auto_from());
}

/* every:P: the first window from step 0, as steps:0-(L-1). Windows as long as their period
 * would never close (the grammar refuses an explicit ,steps:L that long): half a period. */
static void window_every(struct sst_window *w)
{
    uint64_t len = w->len ? w->len : g_set[SST_SET_AUTO_STEPS].num;
    if (w->period_steps && len >= w->period_steps) {
        len = w->period_steps / 2;
        if (!g_set[SST_SET_QUIET].num)
            ssc_say("--capture every:N with windows of STEPSCOPE_AUTO_STEPS steps or more: windows "
                    "of N/2 steps");
    }
    w->len = len;
    g_win = (struct ssc_window){.kind = SSC_WINDOW_EVERY,
                                .to = len - 1,
                                .period_steps = w->period_steps,
                                .period_ns = w->period_ns,
                                .len = len};
    sst_window_format(w, g_win.spec, sizeof g_win.spec);
}

/* CAPTURE through the grammar record checks it with (src/trace/sst_window.h). */
static void window_read(void)
{
    static const enum ssc_window_kind kinds[] = {[SST_WINDOW_ALL] = SSC_WINDOW_ALL,
                                                 [SST_WINDOW_STEPS] = SSC_WINDOW_STEPS,
                                                 [SST_WINDOW_SECONDS] = SSC_WINDOW_SECONDS};
    struct sst_window w;
    sst_window_parse(g_set[SST_SET_CAPTURE].text, &w); /* a value: the table checked it */
    if (w.kind == SST_WINDOW_AUTO) return window_auto();
    if (w.kind == SST_WINDOW_EVERY) return window_every(&w);
    g_win = (struct ssc_window){.kind = kinds[w.kind], .from = w.from, .to = w.to};
}

void ssc_config_window_resolved(void)
{
    g_win.auto_pending = 0;
}

const struct ssc_window *ssc_config_window(void)
{
    return &g_win;
}

/* A window bounds the recording's cost already (auto: 100 steps, then CUPTI detached): every
 * launch is recorded there unless the user asked otherwise. The whole run records launches in
 * one step of LAUNCH_SAMPLE's default. */
static void launch_sample_read(int given)
{
    if (!given && g_win.kind != SSC_WINDOW_ALL) g_set[SST_SET_LAUNCH_SAMPLE].num = 1;
}

void ssc_config_read(void)
{
    int launch_given = 0;
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        if (!(sst_settings[id].flags & SST_S_COLLECTOR)) continue;
        int rc = read_setting((enum sst_setting_id)id);
        if (id == SST_SET_LAUNCH_SAMPLE) launch_given = rc > 0;
    }
    window_read();
    launch_sample_read(launch_given);
}

/* ---- the ENV record of the configuration ---------------------------------------------------- */

void ssc_config_env(unsigned flags, void (*kv)(const char *key, const char *value))
{
    char key[96], value[4096];
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        if (!(sst_settings[id].flags & flags)) continue;
        sst_setting_format((enum sst_setting_id)id, &g_set[id], value, sizeof value);
        if (!value[0]) continue; /* a text not set: nothing to say (foreign injections) */
        sst_setting_env_key((enum sst_setting_id)id, key, sizeof key);
        kv(key, value);
    }
    /* what "auto" came to in this process (the analysis reads a late start from it) */
    if ((flags & SST_S_ENV) && g_win.spec[0]) kv("collector.window", g_win.spec);
}

/* ---- the process's state ----------------------------------------------------------------- */

int ssc_capturing(void)
{
    return atomic_load_explicit(&ssc_g_capturing, memory_order_relaxed);
}

int ssc_window_over(void)
{
    return atomic_load_explicit(&ssc_g_window_over, memory_order_relaxed);
}

uint64_t ssc_start_ns(void)
{
    return g_start_ns;
}

void ssc_set_start_ns(uint64_t ns)
{
    g_start_ns = ns;
}

/* ---- services ------------------------------------------------------------------------------ */

uint32_t ssc_gettid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

void ssc_say(const char *msg)
{
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "stepscope: %s\n", msg);
    if (n >= sizeof line) {
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    ssize_t rc = write(STDERR_FILENO, line, n);
    (void)rc; /* nothing sensible to do when stderr is gone */
}

/* Why ssc_thread_start waits: a new thread allocates before it runs our code (gcc 12's
 * AddressSanitizer: AsanThread::ThreadStart -> pthread_getattr_np -> calloc) and at its first
 * use of our thread-local storage (__tls_get_addr -> malloc), outside every lock the fork
 * handler takes. An allocator without a fork handler (that ASan's) then leaves a child fork()ed
 * meanwhile with the size class's lock held by nobody: the child's writer thread in that calloc
 * and its exit-time leak check both wait on the one lock (tests/collect busy_exit, which hung
 * so). The starter holds the start lock (for the writer), which the fork handler takes, until
 * the thread is past both.
 *
 * Why the wait is bounded: the same allocator lock, taken by a thread of the parent (one of the
 * program's threads exiting at the fork) and inherited held by nobody, stops the child's new
 * thread before it reaches our code, for ever (tests/collect nvtx_prog normal under ASan, the
 * CI hang of collect_inject_foreign_cuda: the child's first NVTX call waited here). After
 * SSC_THREAD_START_MS the starter gives up (the collector does not record in that process) and
 * the program goes on; a thread that starts later finds itself abandoned and returns at once.
 * The start record is on the heap: the starter's stack is gone by then. */
#define SSC_THREAD_START_MS 5000
enum { START_WAITING, START_RUNNING, START_ABANDONED };
struct thread_start {
    void *(*fn)(void *);
    sem_t running;
    _Atomic int state;
};
static __thread volatile int tls_thread_started; /* volatile: the store must stay */

static void *thread_entry(void *p)
{
    struct thread_start *s = p;
    void *(*fn)(void *) = s->fn;
    tls_thread_started = 1; /* the first use of our thread-local storage: allocated here */
    int expect = START_WAITING;
    if (!atomic_compare_exchange_strong(&s->state, &expect, START_RUNNING)) {
        sem_destroy(&s->running); /* the starter gave up and forgot s: ours to free */
        free(s);
        return NULL;
    }
    sem_post(&s->running); /* the starter frees s after this: not touched again */
    return fn(NULL);
}

/* sem_timedwait until ms from now (CLOCK_REALTIME, as sem_timedwait wants); 0 when posted. */
static int wait_started(sem_t *sem, int ms)
{
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += ms / 1000;
    at.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (at.tv_nsec >= 1000000000L) at.tv_sec++, at.tv_nsec -= 1000000000L;
    int rc;
    while ((rc = sem_timedwait(sem, &at)) != 0 && errno == EINTR) {
    }
    return rc == 0 ? 0 : ETIMEDOUT;
}

int ssc_thread_start(pthread_t *thread, void *(*fn)(void *))
{
    struct thread_start *s = calloc(1, sizeof *s);
    if (!s) return ENOMEM;
    s->fn = fn;
    atomic_init(&s->state, START_WAITING);
    if (sem_init(&s->running, 0, 0) != 0) {
        int err = errno;
        free(s);
        return err;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited: signals go to the program's threads */
    int rc = pthread_create(thread, NULL, thread_entry, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        sem_destroy(&s->running);
        free(s);
        return rc;
    }
    if (wait_started(&s->running, SSC_THREAD_START_MS) != 0) {
        int expect = START_WAITING;
        if (atomic_compare_exchange_strong(&s->state, &expect, START_ABANDONED)) {
            pthread_detach(*thread); /* never joined: its end frees it, if it ever comes */
            return ETIMEDOUT;
        }
        /* it started just now: its post follows at once */
        while (sem_wait(&s->running) != 0 && errno == EINTR) {
        }
    }
    sem_destroy(&s->running);
    free(s);
    return 0;
}
