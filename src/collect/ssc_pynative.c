/*
 * ssc_pynative.c — Python stacks without the GIL (issue #28): the sampler thread, and the
 * Python line of every CUDA call that blocked its thread.
 *
 * Once the shim has had the layout learned (ssc_pylearn.c, through ssc_pyhost.c), two things
 * read the interpreter's frames with ssc_pyread.c, through process_vm_readv on our own pid (a
 * frame that is popped or freed while it is read gives EFAULT or an implausible code object:
 * the sample is dropped, never a crash):
 *
 *  - a native sampler thread ("ss-pynative") replaces the GIL sampler's ticks: it walks every
 *    thread state of the interpreter at random intervals (mean 1/hz) while the threads run.
 *    It takes no GIL and stops no thread, so a sample lands on the line running now, also
 *    when that line holds the GIL in a long C call (the GIL sampler saw it only after).
 *    Outside GPU windows it ticks SSC_PYN_OUTSIDE_DIV times less often (issue #43: the whole
 *    run's lines at a fifth of the cost); each change of rate is a CAPTURE record of its own
 *    thread, in order with its samples, so the analysis weighs every sample by its own rate.
 *  - on the program's own thread, inside our CUPTI callback at the exit of a call that blocked
 *    SSC_PYN_CALL_MIN_NS or more (a synchronize, .item(), a copy, cudaMalloc/cudaFree under
 *    empty_cache()), its own stack: a PY_CALL record with the call's correlation id, so the
 *    report names the line that caused the wait, not the line that happened to be sampled.
 *    A thread's frames cannot change while it is inside the call, so the walk is exact; a
 *    small per-thread cache keyed by every frame's address and instruction pointer (read
 *    through one copy of the data stack below the frame: ssc_pyr_chain_key) makes a call from
 *    the same stack again cost a read or two; two lines that call through the same helpers
 *    differ in an outer frame, so a key of the innermost frames alone would mix them up.
 *
 * Frames are interned by (code object address, lasti), checked against the code's line table
 * pointer on every use (an address can be reused by another code object), into the same
 * PY_FRAME / PY_STACK ids as the GIL sampler's (ssc_pyhost.c). Memory is bounded: the tables
 * are cleared at a cap. The time spent reading is counted (COST kind PY_STACK) per thread.
 */

#include "collect/ssc_pynative.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "util/ss_error.h"

#define MAX_DEPTH 128  /* frames kept per stack, leaf first */
#define MAX_THREADS 256
#define MAX_TEXT 1024
#define MAX_TABLE 8192 /* bytes of a location table read */
#define SLOTS_MIN 1024u
#define SLOTS_CAP 20000u /* entries before a table is cleared (as the GIL sampler's) */
#define SITE_CACHE 8     /* call sites cached per thread */
#define THREAD_NAME "ss-pynative"

static struct ssc_pyr_layout g_l;
static _Atomic int g_ready;
static uint64_t g_interp;
static void *(*g_this_ts)(void);
static _Atomic pid_t g_pid;

int ssc_pyn_read_self(void *ctx, uint64_t addr, void *buf, size_t n)
{
    (void)ctx;
    pid_t pid = atomic_load_explicit(&g_pid, memory_order_relaxed);
    struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
    return process_vm_readv(pid ? pid : getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

static const struct ssc_pyr_mem g_mem = {ssc_pyn_read_self, NULL};

/* ---- frame interning: (code, lasti) -> frame id ------------------------------------------ */

struct nslot {
    uint64_t code, check; /* check: the code's line table pointer when defined */
    int64_t sub;          /* lasti, or line */
    uint32_t id;          /* 0: empty */
};
struct ntable {
    struct nslot *slots;
    uint32_t mask, used;
};
static struct ntable g_pos, g_lines; /* under g_mu */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static struct nslot *nprobe(struct nslot *slots, uint32_t mask, uint64_t code, int64_t sub)
{
    uint64_t h = ((code >> 4) * 0x9E3779B97F4A7C15ull ^ (uint64_t)sub) * 0xBF58476D1CE4E5B9ull;
    for (uint32_t i = (uint32_t)(h >> 32);; i++) {
        struct nslot *s = &slots[i & mask];
        if (!s->id || (s->code == code && s->sub == sub)) return s;
    }
}

/* The slot of (code, sub) or the empty one where it goes; NULL without memory. Clears the
 * table at its cap (ids already written stay defined in the trace). */
static struct nslot *nfind(struct ntable *t, uint64_t code, int64_t sub)
{
    if (t->used >= SLOTS_CAP) {
        ssc_pyh_say_cleared("frames");
        free(t->slots);
        *t = (struct ntable){0};
    }
    if (!t->slots || (t->used + 1) * 2 > t->mask + 1) {
        uint32_t n = t->slots ? (t->mask + 1) * 2 : SLOTS_MIN;
        struct nslot *s = calloc(n, sizeof *s);
        if (!s) return NULL;
        for (uint32_t i = 0; t->slots && i <= t->mask; i++)
            if (t->slots[i].id) *nprobe(s, n - 1, t->slots[i].code, t->slots[i].sub) = t->slots[i];
        free(t->slots);
        t->slots = s;
        t->mask = n - 1;
    }
    return nprobe(t->slots, t->mask, code, sub);
}

/* Defines the frame of code c at line; its id or 0. */
static uint32_t define_frame(const struct ssc_pyr_code *c, int line)
{
    char func[MAX_TEXT], file[MAX_TEXT];
    size_t fn = ssc_pyr_str(&g_l, &g_mem, c->qualname, func, sizeof func);
    size_t fl = ssc_pyr_str(&g_l, &g_mem, c->filename, file, sizeof file);
    return ssc_pyh_frame_record(func, fn, file, fl, line, c->first_line);
}

/* The id of (code, line), defining it when new. Under g_mu. */
static uint32_t line_id(uint64_t addr, const struct ssc_pyr_code *c, int line)
{
    struct nslot *s = nfind(&g_lines, addr, line);
    if (!s) return 0;
    if (s->id && s->check == c->linetable) return s->id;
    uint32_t id = define_frame(c, line);
    if (!id) return 0;
    if (!s->id) g_lines.used++;
    *s = (struct nslot){addr, c->linetable, line, id};
    return id;
}

static int line_of(const struct ssc_pyr_code *c, int32_t lasti)
{
    uint8_t table[MAX_TABLE];
    int64_t n = ssc_pyr_bytes(&g_l, &g_mem, c->linetable, table, sizeof table);
    if (n < 0) return -1;
    return ssc_pyr_line(table, n < MAX_TABLE ? (size_t)n : MAX_TABLE, c->first_line, lasti);
}

/* The frame id of one walked frame. Under g_mu. */
static uint32_t frame_id(const struct ssc_pyr_frame *f)
{
    struct ssc_pyr_code c;
    struct nslot *s = nfind(&g_pos, f->code, f->lasti);
    if (!s || ssc_pyr_code(&g_l, &g_mem, f->code, &c) != 0) return 0;
    if (s->id && s->check == c.linetable) return s->id;
    uint32_t id = line_id(f->code, &c, line_of(&c, f->lasti));
    if (!id) return 0;
    if (!s->id) g_pos.used++;
    *s = (struct nslot){f->code, c.linetable, f->lasti, id};
    return id;
}

/* The stack id of the frames from `frame` outwards; 0 when unreadable (a torn read). */
static uint32_t stack_of(uint64_t frame)
{
    struct ssc_pyr_frame fr[MAX_DEPTH];
    uint32_t fids[MAX_DEPTH];
    int truncated, n = ssc_pyr_walk(&g_l, &g_mem, frame, fr, MAX_DEPTH, &truncated);
    if (n <= 0) return 0;
    pthread_mutex_lock(&g_mu);
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        ok = (fids[i] = frame_id(&fr[i])) != 0;
    pthread_mutex_unlock(&g_mu);
    return ok ? ssc_pyh_stack_id(fids, (uint32_t)n, truncated ? SST_PYSTACK_TRUNCATED : 0) : 0;
}

/* ---- records ------------------------------------------------------------------------------ */

static int recording(void)
{
    return atomic_load_explicit(&ssc_g_state, memory_order_acquire) == SSC_RUNNING;
}

static void write_sample(uint32_t tid, uint64_t ts, uint32_t stack, uint32_t lag_us)
{
    struct sst_rec_py_sample *r = recording() ? ssc_rec_reserve(SST_REC_PY_SAMPLE, sizeof *r) : NULL;
    if (!r) return;
    r->tid = tid;
    r->ts_ns = ts;
    r->stack = stack;
    r->lag_us = lag_us;
    ssc_rec_commit(r);
}

static void write_call(uint32_t tid, uint64_t ts, uint32_t stack, uint32_t correlation)
{
    struct sst_rec_py_call *r = recording() ? ssc_rec_reserve(SST_REC_PY_CALL, sizeof *r) : NULL;
    if (!r) return;
    r->tid = tid;
    r->ts_ns = ts;
    r->stack = stack;
    r->correlation = correlation;
    ssc_rec_commit(r);
}

/* ---- call sites (the program's threads) ---------------------------------------------------- */

struct site {
    struct ssc_pyr_key key;
    uint32_t stack;
};
static __thread struct site tls_sites[SITE_CACHE];
static __thread uint32_t tls_next_site;

static uint32_t cached_site(const struct ssc_pyr_key *key)
{
    for (int i = 0; i < SITE_CACHE; i++) {
        const struct site *s = &tls_sites[i];
        if (s->stack && s->key.hash == key->hash && s->key.leaf == key->leaf &&
            s->key.depth == key->depth)
            return s->stack;
    }
    return 0;
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* The reads are the program's own time (process_vm_readv: what one costs, docs/performance.md,
 * "Figures behind the collector's choices"): a thread spends at most 1/CALL_SHARE of its time
 * on them, with CALL_BURST_NS of credit to start. Past that, calls are read at random, one in
 * tls_call.every (a power of two, doubled when a read overdraws the credit, halved when the
 * credit is full again): every site keeps its share of the reads, which a plain budget that
 * refills would not (it favours calls after long gaps). The report's lines are shares of the
 * calls' blocked time, so a sample of them prices alike. */
#define CALL_SHARE 100
#define CALL_BURST_NS 2000000
#define CALL_EVERY_MAX 1024u

struct call_budget {
    int64_t credit_ns;
    uint64_t last_ns, rng;
    uint32_t every;
};
static __thread struct call_budget tls_call;
static _Atomic uint64_t g_calls_seen, g_calls_read; /* ENV pyshim.sync_calls_read at the end */

static int call_chosen(uint64_t now)
{
    struct call_budget *b = &tls_call;
    if (!b->every) *b = (struct call_budget){CALL_BURST_NS, now, now | 1, 1};
    b->credit_ns += (int64_t)((now - b->last_ns) / CALL_SHARE);
    b->last_ns = now;
    if (b->credit_ns >= CALL_BURST_NS) {
        b->credit_ns = CALL_BURST_NS;
        if (b->every > 1) b->every /= 2, b->credit_ns = CALL_BURST_NS / 2;
    }
    atomic_fetch_add_explicit(&g_calls_seen, 1, memory_order_relaxed);
    return b->every == 1 || (next_random(&b->rng) & (b->every - 1)) == 0;
}

static void call_charge(uint64_t spent_ns)
{
    struct call_budget *b = &tls_call;
    atomic_fetch_add_explicit(&g_calls_read, 1, memory_order_relaxed);
    b->credit_ns -= (int64_t)spent_ns;
    if (b->credit_ns < 0) {
        if (b->every < CALL_EVERY_MAX) b->every *= 2;
        b->credit_ns = 0;
    }
}

/* Reads the calling thread's stack (its cached site when the whole chain's key matches) and
 * writes the call's PY_CALL. */
static void call_site_read(uint32_t tid, uint32_t correlation, uint64_t ts_ns)
{
    struct ssc_pyr_key key;
    void *ts = g_this_ts();
    uint64_t frame = ts ? ssc_pyr_current_frame(&g_l, &g_mem, (uint64_t)(uintptr_t)ts) : 0;
    if (!frame || ssc_pyr_chain_key(&g_l, &g_mem, frame, &key) != 0) return;
    uint32_t stack = cached_site(&key);
    if (!stack && (stack = stack_of(frame)) != 0)
        tls_sites[tls_next_site++ % SITE_CACHE] = (struct site){key, stack};
    if (stack) write_call(tid, ts_ns, stack, correlation);
}

void ssc_pyn_call_site(uint32_t tid, uint32_t correlation, uint64_t ts_ns)
{
    if (!atomic_load_explicit(&g_ready, memory_order_acquire)) return;
    uint64_t t0 = sst_now_ns();
    if (!call_chosen(t0)) return;
    call_site_read(tid, correlation, ts_ns);
    uint64_t spent = sst_now_ns() - t0;
    call_charge(spent);
    ssc_cost_add(SST_COST_PY_STACK, 1, 1, spent);
}

/* ---- the sampler thread ------------------------------------------------------------------- */

static pthread_t g_thread;
static int g_running; /* g_thread exists, under g_ctl */
static pthread_mutex_t g_ctl = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake;
static int g_stop;    /* under g_ctl */
static int g_redraw;  /* under g_ctl: the window opened or closed, the next tick is drawn again */
static uint32_t g_hz, g_skip_tid;

static int read_u64(uint64_t addr, uint64_t *v)
{
    return ssc_pyn_read_self(NULL, addr, v, sizeof *v);
}

/* One tick: every thread state of the interpreter, each thread's stack now. */
static void tick(uint64_t due)
{
    uint64_t ts = 0, t0 = sst_now_ns();
    uint32_t lag = t0 > due ? (uint32_t)((t0 - due) / 1000) : 0;
    if (read_u64(g_interp + g_l.interp_threads_head, &ts) != 0) return;
    for (int k = 0; ts && k < MAX_THREADS; k++) {
        uint64_t tid = 0, next = 0;
        if (read_u64(ts + g_l.ts_native_tid, &tid) != 0 || read_u64(ts + g_l.ts_next, &next) != 0)
            break;
        uint64_t frame = tid != g_skip_tid ? ssc_pyr_current_frame(&g_l, &g_mem, ts) : 0;
        uint32_t stack = frame ? stack_of(frame) : 0;
        if (stack) write_sample((uint32_t)tid, sst_now_ns(), stack, lag);
        ts = next;
    }
    ssc_cost_add(SST_COST_PY_STACK, 1, 1, sst_now_ns() - t0);
}

enum wait_end { WAIT_DUE, WAIT_STOP, WAIT_REDRAW };

/* Waits until due (CLOCK_MONOTONIC, the trace's clock), a stop or a window's edge. */
static enum wait_end wait_until(uint64_t due)
{
    struct timespec at = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
    pthread_mutex_lock(&g_ctl);
    while (!g_stop && !g_redraw && pthread_cond_timedwait(&g_wake, &g_ctl, &at) != ETIMEDOUT) {
    }
    enum wait_end end = g_stop ? WAIT_STOP : g_redraw ? WAIT_REDRAW : WAIT_DUE;
    g_redraw = 0;
    pthread_mutex_unlock(&g_ctl);
    return end;
}

void ssc_pyn_window_edge(void)
{
    pthread_mutex_lock(&g_ctl);
    if (g_running) g_redraw = 1, pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_ctl);
}

/* The mean interval between ticks now: 1/hz inside GPU windows, SSC_PYN_OUTSIDE_DIV times that
 * outside. The rate is said at the start and at each change (a CAPTURE record of PY_STACKS,
 * reason SST_CAP_SLOW or SST_CAP_FULL) from this thread, before the samples it covers. */
static double period_now(int *slow)
{
    int want = !atomic_load(&ssc_g_capturing);
    if (want != *slow) ssc_capture_record(1, want ? SST_CAP_SLOW : SST_CAP_FULL,
                                          SST_CAPTURE_PY_STACKS);
    *slow = want;
    return 1e9 / (double)g_hz * (want ? SSC_PYN_OUTSIDE_DIV : 1);
}

static void *sampler_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, THREAD_NAME, 0, 0, 0);
    uint64_t rng = sst_now_ns() | 1, due = sst_now_ns();
    int slow = -1; /* said at every (re)start: the stream may have seen another rate last */
    while (recording()) {
        double period = period_now(&slow);
        /* a random interval (0.5-1.5 periods): no aliasing with a periodic training step */
        due += (uint64_t)(period * (0.5 + (double)(next_random(&rng) >> 11) / 9007199254740992.0));
        enum wait_end end = wait_until(due);
        if (end == WAIT_STOP) break;
        uint64_t now = sst_now_ns();
        if (end == WAIT_REDRAW) { /* the next tick is drawn at the new rate, from now */
            due = now;
            continue;
        }
        tick(due);
        if (now > due + (uint64_t)period) due = now; /* fell behind: no burst of late ticks */
    }
    return NULL;
}

/* ENV pyshim.host_samples_outside_hz: the rate between GPU windows (as %g: 100 Hz gives 20). */
static void say_outside_rate(uint32_t hz)
{
    char v[32];
    int n = snprintf(v, sizeof v, "%g", (double)hz / SSC_PYN_OUTSIDE_DIV);
    if (n > 0) ssc_env_record("pyshim.host_samples_outside_hz", v, (size_t)n);
}

int ssc_pyn_start(uint32_t hz, uint32_t skip_tid)
{
    if (!atomic_load(&g_ready) || hz == 0) return SS_EINVAL;
    pthread_mutex_lock(&g_ctl);
    int rc = 0;
    if (!g_running) {
        pthread_condattr_t a;
        pthread_condattr_init(&a);
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        pthread_cond_init(&g_wake, &a);
        pthread_condattr_destroy(&a);
        g_hz = hz, g_skip_tid = skip_tid, g_stop = 0, g_redraw = 0;
        say_outside_rate(hz);
        rc = ssc_thread_start(&g_thread, sampler_main) == 0 ? 0 : SS_ENOMEM;
        g_running = rc == 0;
    }
    pthread_mutex_unlock(&g_ctl);
    return rc;
}

static void say_calls(int final);

/* ENV pyshim.sync_calls_read: how many of the calls that blocked got their lines, when the
 * budget left some out (the report's lines are then a sample of the calls). */
static void say_calls_read(void)
{
    uint64_t seen = atomic_load(&g_calls_seen), read = atomic_load(&g_calls_read);
    if (read >= seen) return;
    char v[160];
    int n = snprintf(v, sizeof v,
                     "%llu of %llu (reading every one would cost over %d %% of the thread's time)",
                     (unsigned long long)read, (unsigned long long)seen, 100 / CALL_SHARE);
    if (n > 0) ssc_env_record("pyshim.sync_calls_read", v, strlen(v));
}

void ssc_pyn_stop(void)
{
    if (atomic_load(&g_ready)) say_calls(1), say_calls_read();
    pthread_mutex_lock(&g_ctl);
    int running = g_running;
    g_stop = 1;
    g_running = 0;
    if (running) pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_ctl);
    if (running) pthread_join(g_thread, NULL);
}

/* ---- whether blocking calls get their lines ------------------------------------------------- */

static _Atomic int g_api_live;
static pthread_mutex_t g_said_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_said = -1; /* under g_said_mu: the last state written */

/* ENV pyshim.sync_calls: "on" once blocking calls get their lines; "off: why" when the sampler
 * stops and they never did (final: records of two threads reach the file in no set order, so
 * "off" is never written before an "on" could follow). */
static void say_calls(int final)
{
    int on = atomic_load(&g_ready) && atomic_load(&g_api_live);
    pthread_mutex_lock(&g_said_mu);
    if ((on && g_said != 1) || (!on && final && g_said == -1)) {
        const char *v = on ? "on"
                           : "off: API calls are not seen as they return (CUDA not started, or "
                             "recorded from CUPTI's activity records: STEPSCOPE_API=activity)";
        ssc_env_record("pyshim.sync_calls", v, strlen(v));
        g_said = on;
    }
    pthread_mutex_unlock(&g_said_mu);
}

void ssc_pyn_api_live(int on)
{
    atomic_store(&g_api_live, on);
    if (atomic_load(&g_ready)) say_calls(0);
}

/* ---- set-up ----------------------------------------------------------------------------------- */

static void after_fork_child(void)
{
    /* the sampler thread and CUPTI are not in the child; its frames are its own again */
    atomic_store(&g_ready, 0);
    atomic_store(&g_calls_seen, 0);
    atomic_store(&g_calls_read, 0);
    g_running = 0;
    pthread_mutex_init(&g_mu, NULL);
    pthread_mutex_init(&g_ctl, NULL);
}

void ssc_pyn_set_layout(const struct ssc_pyr_layout *l, uint64_t interp,
                        void *(*this_thread_state)(void), const char *source)
{
    static int atfork_done;
    (void)source; /* ssc_pyhost.c writes it into the trace (ENV python.frames) */
    if (atomic_load(&g_ready) || !this_thread_state) return;
    g_l = *l;
    g_interp = interp;
    g_this_ts = this_thread_state;
    atomic_store(&g_pid, getpid());
    if (!atfork_done++) pthread_atfork(NULL, NULL, after_fork_child);
    atomic_store_explicit(&g_ready, 1, memory_order_release);
    say_calls(0);
}

int ssc_pyn_ready(void)
{
    return atomic_load_explicit(&g_ready, memory_order_acquire);
}
