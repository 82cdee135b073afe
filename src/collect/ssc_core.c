/*
 * ssc_core.c — the collector's life in a process: configuration, start, the CUDA entry point,
 * fork, signals, exit, notices and the capture window.
 *
 * Start is lazy and happens once per process: the first of InitializeInjection (CUDA) and
 * InitializeInjectionNvtx2 (NVTX) starts it, and so does the first record of a fork()ed child
 * (the child writes its own file; nothing happens in a child that records nothing).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect/ssc_core.h"
#include "trace/sst_window.h"
#include "util/ss_error.h"

#define EXPORT __attribute__((visibility("default")))
#define DEFAULT_MEMORY_CAP (64ull << 20)
#define DEFAULT_SAMPLE_HZ 10u
/* Kernel launch calls recorded in one step of this many (1: every step) when the whole run is
 * captured: CUPTI's callbacks cost about a microsecond a launch (docs/performance.md). */
#define DEFAULT_LAUNCH_SAMPLE 8u
#define SIGNAL_FLUSH_TIMEOUT_MS 2000
#define EXIT_TIMEOUT_MS 5000

_Atomic int ssc_g_state = SSC_OFF;

static struct ssc_config g_cfg;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_init_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_start_ns;
static _Atomic int g_capturing = 1;
static _Atomic int g_cupti_on;       /* ssc_cupti_start succeeded in this process */
static _Atomic int g_window_over;    /* the capture window closed for good */
/* auto's window starts at a step > 0 (the shim's word). Atomic, unlike the rest of g_cfg: it
 * can turn on when CUDA starts (auto_resolve) while the writer's round reads it; the window's
 * steps in g_cfg are written before it. */
static _Atomic int g_auto_late;
static _Atomic uint64_t g_step_last_ns;   /* when the latest step began (0: none yet) */
static _Atomic uint64_t g_step_gap_ns;    /* the longest time between two step begins */
static _Atomic uint64_t g_steps_begun;    /* step begins seen */
static _Atomic uint32_t g_said;      /* notice codes already said on stderr (bits) */
static _Atomic uint32_t g_noted[32]; /* NOTICE records written per code */

static const int k_signals[] = {SIGTERM, SIGINT, SIGHUP};
#define N_SIGNALS (sizeof k_signals / sizeof k_signals[0])
static struct sigaction g_prev[N_SIGNALS];
static int g_signals_installed;

/* ---- small helpers ---------------------------------------------------------------------- */

uint32_t ssc_gettid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

uint64_t ssc_start_ns(void)
{
    return g_start_ns;
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

const struct ssc_config *ssc_config(void)
{
    return &g_cfg;
}

int ssc_capturing(void)
{
    return atomic_load_explicit(&g_capturing, memory_order_relaxed);
}

/* The NOTICE record alone. A trace needs each problem once or a few times, not once per
 * CUPTI buffer. */
static void notice_record(uint16_t code, uint8_t level, const char *msg)
{
    if (atomic_fetch_add(&g_noted[code & 31], 1) >= 8) return;
    uint32_t id = ssc_intern(msg, strlen(msg));
    struct sst_rec_notice *r = ssc_rec_reserve(SST_REC_NOTICE, sizeof *r);
    if (!r) return;
    r->level = level;
    r->code = code;
    r->ts_ns = sst_now_ns();
    r->message = id;
    ssc_rec_commit(r);
}

void ssc_notice(uint16_t code, uint8_t level, const char *msg)
{
    /* Information (e.g. "forked from") only goes into the trace; problems are said once. */
    uint32_t bit = 1u << (code & 31);
    int loud = level >= SST_NOTE_ERROR || (level >= SST_NOTE_WARN && !g_cfg.quiet);
    if (loud && !(atomic_fetch_or(&g_said, bit) & bit)) ssc_say(msg);
    notice_record(code, level, msg);
}

void ssc_env_record(const char *key, const char *value, size_t value_len)
{
    uint32_t k = ssc_intern(key, strlen(key)), v = ssc_intern(value, value_len);
    struct sst_rec_env *r = ssc_rec_reserve(SST_REC_ENV, sizeof *r);
    if (!r) return;
    r->key = k;
    r->value = v;
    ssc_rec_commit(r);
}

/* ---- what another tool keeps ------------------------------------------------------------ */

void ssc_capture_record(int on, uint8_t reason, uint16_t what)
{
    struct sst_rec_capture *r = ssc_rec_reserve(SST_REC_CAPTURE, sizeof *r);
    if (!r) return;
    r->on = (uint8_t)on;
    r->reason = reason;
    r->what = what;
    r->ts_ns = sst_now_ns();
    ssc_rec_commit(r);
}

/* Marks as the CUPTI conflict is marked (NOTICE cupti_conflict, CAPTURE off "conflict" for
 * GPU activity), so `info`, `dump` and record's summary show it; NVTX gets its own CAPTURE
 * bit and an "other" notice. Trace only: `record` already said it on stderr, once for the
 * whole run rather than once per process. */
void ssc_core_mark_foreign(void)
{
    char msg[4300];
    if (g_cfg.foreign_cuda[0]) {
        snprintf(msg, sizeof msg,
                 "GPU activity was left to another tool (CUDA_INJECTION64_PATH=%s): it is not "
                 "recorded; NVTX and host data still are",
                 g_cfg.foreign_cuda);
        notice_record(SST_NOTICE_CUPTI_CONFLICT, SST_NOTE_WARN, msg);
        ssc_capture_record(0, SST_CAP_CONFLICT, SST_CAPTURE_GPU);
    }
    if (g_cfg.foreign_nvtx[0]) {
        snprintf(msg, sizeof msg,
                 "NVTX ranges were left to another tool (NVTX_INJECTION64_PATH=%s): step "
                 "markers and ranges are not recorded; GPU activity and host data still are",
                 g_cfg.foreign_nvtx);
        notice_record(SST_NOTICE_OTHER, SST_NOTE_WARN, msg);
        ssc_capture_record(0, SST_CAP_CONFLICT, SST_CAPTURE_NVTX);
    }
}

/* ---- configuration ---------------------------------------------------------------------- */

/* "64M", "1G", "65536", "512K": bytes; 0 on a malformed value. */
static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return 0;
    unsigned shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    default:
        break;
    }
    if (shift) {
        if (v > (~0ull >> shift)) return 0; /* would wrap to a tiny cap */
        v <<= shift;
        end++;
    }
    if (*end == 'i' || *end == 'B') end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
    return *end ? 0 : v;
}

/* "auto": STEPSCOPE_AUTO_STEPS marked steps (default 100) recorded, then CUPTI detached, so
 * the steps after them run as they would without the collector and the report measures the
 * recording's cost against them; a program that marks no steps is recorded whole, as with
 * "all" (issue #18, README: record's default). Where the Python shim says it will mark steps
 * (STEPSCOPE_AUTO_FROM=N:PID, PID this process) the window starts at step N instead: steps
 * 3..N-1 then run at plain speed before it (CUPTI idle: docs/performance.md) and the cost is
 * measured also on a run shorter than the window (issue #27). Before CUDA starts, so CUPTI
 * holds nothing in those steps; auto_stall_check opens the window early when the steps stop. */
#define DEFAULT_AUTO_STEPS 100

static uint64_t auto_first_step(void)
{
    const char *v = getenv("STEPSCOPE_AUTO_FROM");
    char *end;
    if (!v || !*v) return 0;
    unsigned long long from = strtoull(v, &end, 10);
    if (*end != ':' || from > 1000) return 0;
    long pid = strtol(end + 1, &end, 10);
    return *end == '\0' && pid == (long)getpid() ? from : 0;
}

static void auto_window(struct ssc_config *c, uint64_t from)
{
    c->window_to = from + (c->window_to - c->window_from);
    c->window_from = from;
    snprintf(c->window_spec, sizeof c->window_spec, "steps:%llu-%llu",
             (unsigned long long)c->window_from, (unsigned long long)c->window_to);
}

static void capture_auto(struct ssc_config *c)
{
    const char *v = getenv("STEPSCOPE_AUTO_STEPS");
    long n = v && *v ? strtol(v, NULL, 10) : DEFAULT_AUTO_STEPS;
    if (n < 1 || n > 100000000) n = DEFAULT_AUTO_STEPS;
    c->window = SSC_WINDOW_STEPS;
    c->window_from = 0;
    c->window_to = (uint64_t)n - 1;
    c->auto_pending = 1;
    auto_window(c, auto_first_step());
    atomic_store(&g_auto_late, c->window_from > 0);
}

/* When CUDA starts, before CUPTI does anything: the shim may have spoken after the collector
 * started (NVTX's injection loads it during torch's import, before the shim's install). The
 * same window as when the collector starts after the shim spoke, unless the step that opens it
 * has begun already. ENV collector.window says what was decided (the analysis takes the last
 * value of a key). */
static void auto_resolve(void)
{
    if (!g_cfg.auto_pending) return;
    g_cfg.auto_pending = 0;
    uint64_t from = auto_first_step();
    if (from && !atomic_load(&g_auto_late) && atomic_load(&g_steps_begun) < from) {
        auto_window(&g_cfg, from);
        atomic_store(&g_auto_late, 1);
        atomic_store(&g_capturing, 0);
        ssc_env_record("collector.window", g_cfg.window_spec, strlen(g_cfg.window_spec));
    }
}

/* STEPSCOPE_CAPTURE through the grammar record checks it with (src/trace/sst_window.h).
 * Returns 0, or -1 when malformed (c then captures all). */
static int parse_capture(const char *s, struct ssc_config *c)
{
    static const int kinds[] = {[SST_WINDOW_ALL] = SSC_WINDOW_ALL,
                                [SST_WINDOW_STEPS] = SSC_WINDOW_STEPS,
                                [SST_WINDOW_SECONDS] = SSC_WINDOW_SECONDS};
    struct sst_window w;
    int rc = sst_window_parse(s, &w);
    if (w.kind == SST_WINDOW_AUTO) return capture_auto(c), 0;
    c->window = kinds[w.kind];
    c->window_from = w.from;
    c->window_to = w.to;
    return rc ? -1 : 0;
}

/* The capture window's switch: GPU activity only (NVTX and host samples are always recorded). */
static void capture_set(int on, uint8_t reason)
{
    if (atomic_exchange(&g_capturing, on) == on) return;
    if (atomic_load(&g_cupti_on)) ssc_cupti_set_enabled(on);
    ssc_capture_record(on, reason, SST_CAPTURE_GPU);
}

/* A window bounds the recording's cost already (auto: 100 steps, then CUPTI detached): every
 * launch is recorded there. A whole run records launches in one step of 8. */
static void launch_sample_read(struct ssc_config *c)
{
    const char *v = getenv("STEPSCOPE_LAUNCH_SAMPLE");
    uint32_t dflt = c->window == SSC_WINDOW_ALL ? DEFAULT_LAUNCH_SAMPLE : 1;
    c->launch_sample = dflt;
    if (!v || !*v) return;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > 1000) {
        ssc_say("STEPSCOPE_LAUNCH_SAMPLE is not a number from 1 to 1000: using the default");
        return;
    }
    c->launch_sample = (uint32_t)n;
}

static void config_read(struct ssc_config *c)
{
    const char *v;
    memset(c, 0, sizeof *c);
    v = getenv("STEPSCOPE_OUTPUT_DIR");
    snprintf(c->out_dir, sizeof c->out_dir, "%s", v && *v ? v : ".");
    v = getenv("STEPSCOPE_QUIET");
    c->quiet = v && strcmp(v, "1") == 0;
    v = getenv("STEPSCOPE_MODE");
    c->mode = v && strcmp(v, "light") == 0 ? SSC_MODE_LIGHT : SSC_MODE_FULL;
    if (v && strcmp(v, "light") != 0 && strcmp(v, "full") != 0)
        ssc_say("STEPSCOPE_MODE is neither full nor light: using full");
    v = getenv("STEPSCOPE_CAPTURE");
    snprintf(c->capture, sizeof c->capture, "%s", v ? v : "");
    if (v && *v && parse_capture(v, c) != 0)
        ssc_say("STEPSCOPE_CAPTURE is not auto, all, steps:A-B or seconds:A-B: capturing all");
    v = getenv("STEPSCOPE_MEMORY_CAP");
    c->memory_cap = v && *v ? parse_size(v) : DEFAULT_MEMORY_CAP;
    if (c->memory_cap == 0) {
        ssc_say("STEPSCOPE_MEMORY_CAP is not a size (e.g. 64M): using 64M");
        c->memory_cap = DEFAULT_MEMORY_CAP;
    }
    v = getenv("STEPSCOPE_FOREIGN_CUDA_INJECTION");
    snprintf(c->foreign_cuda, sizeof c->foreign_cuda, "%s", v ? v : "");
    v = getenv("STEPSCOPE_FOREIGN_NVTX_INJECTION");
    snprintf(c->foreign_nvtx, sizeof c->foreign_nvtx, "%s", v ? v : "");
    v = getenv("STEPSCOPE_SAMPLE_HZ");
    c->sample_hz = DEFAULT_SAMPLE_HZ;
    if (v && *v) {
        long hz = strtol(v, NULL, 10);
        c->sample_hz = hz >= 0 && hz <= 1000 ? (uint32_t)hz : DEFAULT_SAMPLE_HZ;
    }
    launch_sample_read(c);
}

/* ---- capture window --------------------------------------------------------------------- */

/* The step clock auto_stall_check reads: only the program's step markers move it. */
static void step_clock(void)
{
    uint64_t now = sst_now_ns(), prev = atomic_exchange(&g_step_last_ns, now);
    if (prev && now - prev > atomic_load(&g_step_gap_ns)) atomic_store(&g_step_gap_ns, now - prev);
}

/* Launch sampling: CUPTI's dispatch of a kernel launch's callbacks costs 1-2 us (H200: the
 * eager MLP's steps with them ran 5-9 % slower than those between them in one process,
 * docs/performance.md); recorded in one step of N it costs 1/N of that. The steps in between keep everything else (kernels, copies, syncs, allocations,
 * graph launches); the CAPTURE records (what LAUNCHES, reason SAMPLED) tell the analysis
 * which steps are whole. A step whose switch found CUPTI busy keeps the state before it. */
static _Atomic int g_launch_state = 1; /* written by the step-marking thread */
static _Atomic int g_launch_gave_up; /* API calls through activity records: no sampling */

/* A fixed scramble of a block's number (splitmix64's finaliser): spread evenly, cheap. */
static uint64_t block_hash(uint64_t block)
{
    uint64_t z = block + UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The step of block `block` (steps block*n .. block*n+n-1) that records launch calls: drawn
 * per block, not always the first. A program that does something every 8th (4th, 16th) step
 * (syncs, logs, steps its optimizer after accumulating) would otherwise have it in every
 * sampled step or in none, and the report would take that for its usual step. A draw right
 * after the previous block's sample moves one step on: a sampled step's neighbours are never
 * sampled (the report measures the callbacks' cost against them). */
static uint64_t block_pick(uint64_t block, uint32_t n)
{
    uint64_t pick = block_hash(block) % n;
    if (pick == 0 && block > 0 && block_hash(block - 1) % n == n - 1) pick = 1;
    return pick;
}

/* Whether step `ordinal` records launch calls, one in n (n 2: every other step). */
static int launch_sampled(uint64_t ordinal, uint32_t n)
{
    if (n <= 2) return ordinal % n == 0;
    return ordinal % n == block_pick(ordinal / n, n);
}

static void launch_sample_step(uint64_t ordinal)
{
    if (g_cfg.launch_sample <= 1 || atomic_load(&g_launch_gave_up)) return;
    int want = launch_sampled(ordinal, g_cfg.launch_sample);
    if (want == g_launch_state) return;
    int rc = atomic_load(&g_cupti_on) ? ssc_cupti_launch_sample(want) : 1;
    if (rc == 0) return;
    if (rc < 0) {
        atomic_store(&g_launch_gave_up, 1);
        ssc_say("STEPSCOPE_LAUNCH_SAMPLE: API calls are recorded through CUPTI's activity "
                "records, which cannot be switched step by step: every launch is recorded");
        if (g_launch_state) return; /* on as they were: nothing to mark */
        want = 1;
    }
    g_launch_state = want;
    ssc_capture_record(want, SST_CAP_SAMPLED, SST_CAPTURE_LAUNCHES);
}

static void ticks_reset(void);

void ssc_window_step_begin(uint64_t ordinal)
{
    atomic_fetch_add(&g_steps_begun, 1);
    ticks_reset();
    if (atomic_load(&g_auto_late)) step_clock();
    if (g_cfg.window == SSC_WINDOW_STEPS && ordinal == g_cfg.window_from)
        capture_set(1, SST_CAP_WINDOW);
    launch_sample_step(ordinal);
}

/* Closes the window for good: no later step or second opens it again. The seconds window
 * says so on every tick after it; only the first time counts. */
static void window_close(void)
{
    if (atomic_exchange(&g_window_over, 1)) return;
    capture_set(0, SST_CAP_WINDOW);
}

int ssc_window_over(void)
{
    return atomic_load_explicit(&g_window_over, memory_order_relaxed);
}

void ssc_window_step_end(uint64_t ordinal)
{
    if (g_cfg.window == SSC_WINDOW_STEPS && ordinal == g_cfg.window_to) window_close();
}

/* A late auto window that its step would never open and no loop tick opened: the steps
 * stopped (an evaluation phase) or never came. It opens when no step has begun for 8 times the
 * longest step so far (at least AUTO_STALL_MIN_NS) once AUTO_STALL_GAPS steps have shown their
 * length, else for AUTO_NO_STEP_NS; the steps it then records are the first recorded. Patient
 * on purpose: the first steps of a warm-up-heavy loop are the longest and vary (cuDNN
 * autotuning every new shape took 0.8-1.5 s a step on the H100, 2026-12-06: 4 times the first
 * one and 2 s opened the window inside the warm-up, which then had no baseline), and a graph
 * loop's replays open it at once through their ticks. */
#define AUTO_STALL_FACTOR 8
#define AUTO_STALL_GAPS 3
#define AUTO_STALL_MIN_NS 5000000000ull
#define AUTO_NO_STEP_NS 30000000000ull

/* A window that starts closed has opened: it is open, or it closed for good (only it switches
 * g_capturing once CUDA runs: auto_resolve closes it before). */
static int late_window_opened(void)
{
    return atomic_load(&g_capturing) || ssc_window_over();
}

/* Says why the late window opened before its step (on stderr unless quiet; a CPU-only run has
 * no GPU to wait for) and writes it to the trace: ENV collector.window_opened (docs/trace-
 * format.md), which the report reads. */
static void say_opened(const char *why, const char *env)
{
    char msg[320];
    if (!g_cfg.quiet && atomic_load(&g_cupti_on)) {
        snprintf(msg, sizeof msg, "%s: recording GPU activity from here (--capture auto waits "
                 "for step %llu in programs that mark steps)", why,
                 (unsigned long long)g_cfg.window_from);
        ssc_say(msg);
    }
    ssc_env_record("collector.window_opened", env, strlen(env));
}

static void auto_stall_check(uint64_t now_ns)
{
    if (!atomic_load(&g_auto_late) || late_window_opened()) return;
    uint64_t last = atomic_load(&g_step_last_ns);
    uint64_t gap = AUTO_STALL_FACTOR * atomic_load(&g_step_gap_ns);
    uint64_t limit = atomic_load(&g_steps_begun) <= AUTO_STALL_GAPS ? AUTO_NO_STEP_NS
                     : gap > AUTO_STALL_MIN_NS                       ? gap
                                                                     : AUTO_STALL_MIN_NS;
    uint64_t since = last ? last : g_start_ns;
    if (now_ns < since || now_ns - since < limit) return; /* a step began after now was read */
    if (last)
        say_opened("no step marked for a while", "stalled");
    else
        say_opened("no step marked yet", "no_step");
    capture_set(1, SST_CAP_WINDOW);
}

/* ---- loop ticks ---------------------------------------------------------------------------
 * A late auto window waits for step 8, which never comes when the step marks stop while the
 * loop goes on: the whole step captured in a CUDA graph (a replay calls no optimizer.step()),
 * an update the optimizer hook does not see. The shim then marks ticks (ssc_tick_kind). That
 * many ticks of a kind in a row, with no step begun between them, open the window at once -
 * the stall check would wait seconds, past the end of a short run - and it records as many
 * ticks as it would have recorded steps (or until the steps come back and reach its last).
 * Backward ticks need more in a row: gradient accumulation ticks between optimizer steps. */
static const struct tick_rule {
    uint32_t to_open;
    const char *why, *env;
} k_tick_rules[] = {
    [SSC_TICK_GRAPH] = {8, "CUDA graph replays without an optimizer step", "graph_replays"},
    [SSC_TICK_BACKWARD] = {32, "backward() calls without an optimizer step", "backward_calls"},
};
#define N_TICK_KINDS (sizeof k_tick_rules / sizeof k_tick_rules[0])

static _Atomic uint32_t g_ticks_in_row[N_TICK_KINDS]; /* ticks since the last step began */
static _Atomic int g_tick_opened = -1;                 /* the kind that opened the window */
static _Atomic uint64_t g_ticks_recorded;              /* its ticks since */

static void ticks_reset(void)
{
    for (size_t k = 0; k < N_TICK_KINDS; k++)
        atomic_store_explicit(&g_ticks_in_row[k], 0, memory_order_relaxed);
}

/* The window a kind of tick opened closes after as many ticks as a step window's steps. */
static void tick_window_count(void)
{
    uint64_t len = g_cfg.window_to - g_cfg.window_from + 1;
    if (atomic_fetch_add(&g_ticks_recorded, 1) + 1 >= len) window_close();
}

void ssc_window_loop_tick(enum ssc_tick_kind kind)
{
    if ((size_t)kind >= N_TICK_KINDS || !atomic_load(&g_auto_late)) return;
    if (atomic_load(&g_tick_opened) == (int)kind) {
        tick_window_count();
        return;
    }
    if (late_window_opened()) return;
    if (atomic_fetch_add(&g_ticks_in_row[kind], 1) + 1 < k_tick_rules[kind].to_open) return;
    int none = -1;
    if (!atomic_compare_exchange_strong(&g_tick_opened, &none, (int)kind)) return;
    say_opened(k_tick_rules[kind].why, k_tick_rules[kind].env);
    capture_set(1, SST_CAP_WINDOW);
}

void ssc_window_tick(uint64_t now_ns)
{
    auto_stall_check(now_ns);
    if (g_cfg.window != SSC_WINDOW_SECONDS) return;
    uint64_t t = now_ns - g_start_ns;
    if (t >= g_cfg.window_to)
        window_close();
    else
        capture_set(t >= g_cfg.window_from, SST_CAP_WINDOW);
}

/* The program ends before its late auto window opened: nothing of the GPU was recorded, which
 * the user must hear from us, not from an empty report. */
static void say_window_never_opened(void)
{
    if (!atomic_load(&g_auto_late) || late_window_opened() || g_cfg.quiet ||
        !atomic_load(&g_cupti_on))
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "the program marked %llu steps and ended before step %llu, where --capture auto "
             "starts recording (the steps before it run unrecorded so that the report can "
             "measure the recording's own cost): no GPU activity was recorded; record short "
             "runs with --capture all",
             (unsigned long long)atomic_load(&g_steps_begun),
             (unsigned long long)g_cfg.window_from);
    ssc_say(msg);
}

/* ---- fork ------------------------------------------------------------------------------- */

/* Every lock, in the documented order, so the child inherits consistent structures: the
 * writer thread is between rounds, no thread is inside the string table or the pool. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&g_init_mu);
    ssc_writer_lock();
    ssc_nvtx_lock();
    ssc_str_lock();
    ssc_buf_lock_all();
}

static void fork_parent(void)
{
    ssc_buf_unlock_all();
    ssc_str_unlock();
    ssc_nvtx_unlock();
    ssc_writer_unlock();
    pthread_mutex_unlock(&g_init_mu);
}

/* The child has only the forking thread. The parent's file is the parent's: abandon the
 * writer without writing, forget buffered records, and start afresh on the first record. */
static void fork_child(void)
{
    ssc_buf_after_fork_child();
    ssc_str_after_fork_child();
    ssc_writer_after_fork_child();
    ssc_nvtx_after_fork_child();
    for (int i = 0; i < 32; i++)
        atomic_store(&g_noted[i], 0);
    atomic_store(&g_cupti_on, 0);
    atomic_store(&g_auto_late, 0); /* a worker marks no steps and has no GPU to wait for */
    if (atomic_load(&ssc_g_state) == SSC_RUNNING) atomic_store(&ssc_g_state, SSC_OFF);
    ssc_buf_unlock_all();
    ssc_str_unlock();
    ssc_nvtx_unlock();
    ssc_writer_unlock();
    pthread_mutex_unlock(&g_init_mu);
}

/* ---- signals ---------------------------------------------------------------------------- */

static int signal_index(int sig)
{
    for (size_t i = 0; i < N_SIGNALS; i++)
        if (k_signals[i] == sig) return (int)i;
    return -1;
}

/* Hands the signal to what was installed before us, so its effect is unchanged. */
static void chain_signal(int sig, const struct sigaction *prev, siginfo_t *si, void *uc)
{
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction) prev->sa_sigaction(sig, si, uc);
        return;
    }
    if (prev->sa_handler == SIG_IGN) return;
    if (prev->sa_handler == SIG_DFL) {
        /* Restore the default and re-raise: the signal is blocked while we run, so it is
         * delivered (and kills the process with the same status) when we return. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    prev->sa_handler(sig);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    int i = signal_index(sig);
    if (i < 0) return;
    const struct sigaction *prev = &g_prev[i];
    int dies = !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_DFL;
    int ignored = !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_IGN;
    /* A program that handles the signal may go on recording: flush, keep the file open. */
    if (!ignored && atomic_load(&ssc_g_state) == SSC_RUNNING)
        ssc_writer_signal_flush(dies, SIGNAL_FLUSH_TIMEOUT_MS);
    chain_signal(sig, prev, si, uc);
    errno = saved_errno;
}

static void install_signals(void)
{
    if (g_signals_installed) return; /* a forked child inherits the parent's handlers and g_prev */
    g_signals_installed = 1;
    for (size_t i = 0; i < N_SIGNALS; i++) {
        struct sigaction sa, prev;
        if (sigaction(k_signals[i], NULL, &prev) != 0) continue;
        g_prev[i] = prev;
        /* An ignored signal stays ignored: a handler would do nothing for it, and unlike
         * SIG_IGN it is reset by exec, so the program's exec'd children (nohup'd runs,
         * torchrun workers) would die of the signal they were meant to ignore. */
        if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_mask = prev.sa_mask;
        sa.sa_flags = SA_SIGINFO | (prev.sa_flags & (SA_RESTART | SA_ONSTACK));
        sigaction(k_signals[i], &sa, NULL);
    }
}

/* ---- our threads ------------------------------------------------------------------------- */

/* Why ssc_thread_start waits: a new thread allocates before it runs our code (gcc 12's
 * AddressSanitizer: AsanThread::ThreadStart -> pthread_getattr_np -> calloc(152)) and at its
 * first use of our thread-local storage (__tls_get_addr -> malloc), outside every lock
 * fork_prepare takes. An allocator without a fork handler (that ASan's) then leaves a child
 * fork()ed meanwhile with the size class's lock held by nobody: tests/collect busy_exit hung
 * so in CI (2026-12-04; caught here by its hang report: the child's writer thread in that
 * calloc and its exit-time leak check both waiting on the one lock). The starter holds
 * g_init_mu (for the writer), which fork_prepare takes, until the thread is past both. */
struct thread_start {
    void *(*fn)(void *);
    sem_t running;
};
static __thread volatile int tls_thread_started; /* volatile: the store must stay */

static void *thread_entry(void *p)
{
    struct thread_start *s = p;
    void *(*fn)(void *) = s->fn;
    tls_thread_started = 1; /* the first use of our thread-local storage: allocated here */
    sem_post(&s->running);  /* s lives on the starter's stack: not touched after this */
    return fn(NULL);
}

int ssc_thread_start(pthread_t *thread, void *(*fn)(void *))
{
    struct thread_start s = {.fn = fn};
    if (sem_init(&s.running, 0, 0) != 0) return errno;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited: signals go to the program's threads */
    int rc = pthread_create(thread, NULL, thread_entry, &s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    while (rc == 0 && sem_wait(&s.running) != 0 && errno == EINTR) {
    }
    sem_destroy(&s.running);
    return rc;
}

/* ---- start and exit --------------------------------------------------------------------- */

static void core_exit(void)
{
    if (atomic_load(&ssc_g_state) != SSC_RUNNING) return;
    say_window_never_opened();
    ssc_writer_stop(EXIT_TIMEOUT_MS);
    atomic_store(&ssc_g_state, SSC_STOPPED);
}

/* A destructor too: the library may be unloaded (dlclose) before exit. */
__attribute__((destructor)) static void core_destructor(void)
{
    core_exit();
}

static void global_init(void)
{
    config_read(&g_cfg);
    ssc_buf_global_init();
    /* A window from step 0 opens now, before CUDA starts: CUPTI's per-call API records can
     * only be enabled then (ssc_cupti.c, set_api), and setup before step 0 belongs to it. */
    atomic_store(&g_capturing, g_cfg.window == SSC_WINDOW_ALL || g_cfg.window_from == 0);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    atexit(core_exit);
}

int ssc_core_ensure(void)
{
    int st = atomic_load_explicit(&ssc_g_state, memory_order_acquire);
    if (st != SSC_OFF) return st == SSC_RUNNING;
    pthread_once(&g_once, global_init);
    pthread_mutex_lock(&g_init_mu);
    if (atomic_load(&ssc_g_state) == SSC_OFF) {
        g_start_ns = sst_now_ns();
        ssc_host_snapshot_env(); /* here, on the program's thread: the writer reads the copy */
        int rc = ssc_writer_start();
        atomic_store(&ssc_g_state, rc == 0 ? SSC_RUNNING : SSC_STOPPED);
        if (rc == 0) install_signals();
    }
    pthread_mutex_unlock(&g_init_mu);
    return atomic_load(&ssc_g_state) == SSC_RUNNING;
}

/* Called by the CUDA driver (CUDA_INJECTION64_PATH) during cuInit. */
EXPORT int InitializeInjection(void)
{
    if (!ssc_core_ensure())
        return 1; /* still success: the program must run whatever happens to us */
    static _Atomic int started;
    if (atomic_exchange(&started, 1)) return 1;
    auto_resolve();
    if (ssc_cupti_start() == 0) {
        atomic_store(&g_cupti_on, 1);
        ssc_cupti_set_enabled(ssc_capturing());
    }
    return 1;
}

int ssc_core_cupti_on(void)
{
    return atomic_load(&g_cupti_on);
}
