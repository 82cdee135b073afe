/*
 * ssc_window.c — the capture window (the top, with ssc_core.c): which steps or seconds GPU
 * activity is recorded in, auto's late start and its early opening when the steps stop, and
 * launch sampling. It hears of steps from NVTX and of time from the writer's rounds, through
 * ssc_top (ssc_config.h), and switches CUPTI through the CUPTI part.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/ssc_core.h"
#include "collect/ssc_lifecycle.h"
#include "collect/ssc_pynative.h"

/* auto's window starts at a step > 0 (the shim's word). Atomic: it can turn on when CUDA
 * starts (ssc_window_cuda_start) while the writer's round reads it; the window's steps are
 * written before it. */
static _Atomic int g_auto_late;
static _Atomic uint64_t g_step_last_ns; /* when the latest step began (0: none yet) */
static _Atomic uint64_t g_step_gap_ns;  /* the longest time between two step begins */
static _Atomic uint64_t g_steps_begun;  /* step begins seen */

static void repeat_init(const struct ssc_window *win);
static void repeat_after_fork_child(void);

static int quiet(void)
{
    return (int)ssc_setting(SST_SET_QUIET)->num;
}

/* The capture window's switch: GPU activity only (NVTX and host samples are always recorded). */
static void capture_set(int on, uint8_t reason)
{
    if (atomic_exchange(&ssc_g_capturing, on) == on) return;
    if (atomic_load(&ssc_g_cupti_on)) ssc_cupti_set_enabled(on);
    ssc_capture_record(on, reason, SST_CAPTURE_GPU);
    ssc_pyn_window_edge();
}

void ssc_window_init(void)
{
    const struct ssc_window *win = ssc_config_window();
    /* A window from step 0 opens now, before CUDA starts: CUPTI's per-call API records can
     * only be enabled then (ssc_cupti.c, set_api), and setup before step 0 belongs to it. */
    atomic_store(&ssc_g_capturing, win->kind == SSC_WINDOW_ALL || win->from == 0);
    atomic_store(&g_auto_late, win->auto_pending && win->from > 0);
    repeat_init(win);
}

/* When CUDA starts, before CUPTI does anything: the shim may have spoken after the collector
 * started (NVTX's injection loads it during torch's import, before the shim's install). The
 * same window as when the collector starts after the shim spoke, unless the step that opens it
 * has begun already. ENV collector.window says what was decided (the analysis takes the last
 * value of a key). */
void ssc_window_cuda_start(void)
{
    const struct ssc_window *win = ssc_config_window();
    if (!win->auto_pending) return;
    uint64_t from = ssc_config_auto_from();
    ssc_config_window_resolved();
    if (from && !atomic_load(&g_auto_late) && atomic_load(&g_steps_begun) < from) {
        ssc_config_window_start_at(from);
        atomic_store(&g_auto_late, 1);
        atomic_store(&ssc_g_capturing, 0);
        ssc_env_record("collector.window", win->spec, strlen(win->spec));
    }
}

void ssc_window_after_fork_child(void)
{
    atomic_store(&g_auto_late, 0); /* a worker marks no steps and has no GPU to wait for */
    repeat_after_fork_child();
}

/* The step clock auto_stall_check reads: only the program's step markers move it. */
static void step_clock(void)
{
    uint64_t now = sst_now_ns(), prev = atomic_exchange(&g_step_last_ns, now);
    if (prev && now - prev > atomic_load(&g_step_gap_ns)) atomic_store(&g_step_gap_ns, now - prev);
}

/* ---- launch sampling ---------------------------------------------------------------------
 * CUPTI's dispatch of a kernel launch's callbacks costs about a microsecond a launch whether or
 * not the callback does anything (docs/performance.md, "Launch sampling"); recorded in one step
 * of N it costs 1/N of that. The steps in between keep everything else (kernels, copies, syncs,
 * allocations, graph launches); the CAPTURE records (what LAUNCHES, reason SAMPLED) tell the
 * analysis which steps are whole. A step whose switch found CUPTI busy keeps the state before
 * it. */
static _Atomic int g_launch_state = 1; /* written by the step-marking thread */
static _Atomic int g_launch_gave_up;   /* API calls through activity records: no sampling */

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
    uint32_t n = (uint32_t)ssc_setting(SST_SET_LAUNCH_SAMPLE)->num;
    if (n <= 1 || atomic_load(&g_launch_gave_up)) return;
    int want = launch_sampled(ordinal, n);
    if (want == g_launch_state) return;
    int rc = atomic_load(&ssc_g_cupti_on) ? ssc_cupti_launch_sample(want) : 1;
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
static void rewindow_note(uint64_t ts_ns);
static void rewindow_closed(void);
static void repeat_open(uint64_t ordinal, uint64_t ts_ns);
static void repeat_close(void);
static int g_rw_share;                            /* STEPSCOPE_AUTO_REWINDOW (auto); 0: off */
static _Atomic uint64_t g_next_open = UINT64_MAX; /* every:N: the step that opens the next */
static _Atomic uint64_t g_close_at = UINT64_MAX;  /* a repeated window's last step */
static _Atomic int g_due;                         /* the next step opens a window */

/* The hot path: a few loads and compares, unless a window opens or closes. */
void ssc_window_step_begin(uint64_t ordinal, uint64_t ts_ns)
{
    const struct ssc_window *win = ssc_config_window();
    atomic_fetch_add(&g_steps_begun, 1);
    ticks_reset();
    if (atomic_load(&g_auto_late)) step_clock();
    if (g_rw_share) rewindow_note(ts_ns);
    if (win->kind == SSC_WINDOW_STEPS && ordinal == win->from) capture_set(1, SST_CAP_WINDOW);
    if (ordinal >= atomic_load_explicit(&g_next_open, memory_order_relaxed) ||
        atomic_load_explicit(&g_due, memory_order_relaxed))
        repeat_open(ordinal, ts_ns);
    launch_sample_step(ordinal);
}

/* Closes the window: no later step or second opens it again, but every: and auto's re-windows
 * (repeat_open). The seconds window says so on every tick after it; only the first time
 * counts. A late auto window has opened once it closed: nothing waits for it any more. */
static void window_close(void)
{
    if (atomic_exchange(&ssc_g_window_over, 1)) return;
    atomic_store(&g_auto_late, 0);
    capture_set(0, SST_CAP_WINDOW);
    rewindow_closed();
}

void ssc_window_step_end(uint64_t ordinal)
{
    const struct ssc_window *win = ssc_config_window();
    if (win->kind == SSC_WINDOW_STEPS && ordinal == win->to) window_close();
    if (ordinal >= atomic_load_explicit(&g_close_at, memory_order_relaxed)) repeat_close();
}

/* A late auto window that its step would never open and no loop tick opened: the steps
 * stopped (an evaluation phase) or never came. It opens when no step has begun for 8 times the
 * longest step so far (at least AUTO_STALL_MIN_NS) once AUTO_STALL_GAPS steps have shown their
 * length, else for AUTO_NO_STEP_NS; the steps it then records are the first recorded. Patient
 * on purpose: the first steps of a warm-up-heavy loop are the longest and vary (cuDNN
 * autotuning every new shape: a shorter rule opened the window inside such a warm-up, which
 * then had no baseline; docs/performance.md, "Default-options sweep"), and a graph loop's
 * replays open it at once through their ticks. */
#define AUTO_STALL_FACTOR 8
#define AUTO_STALL_GAPS 3
#define AUTO_STALL_MIN_NS 5000000000ull
#define AUTO_NO_STEP_NS 30000000000ull

/* A window that starts closed has opened: it is open, or it closed for good (only it switches
 * ssc_g_capturing once CUDA runs: ssc_window_cuda_start closes it before). */
static int late_window_opened(void)
{
    return atomic_load(&ssc_g_capturing) || ssc_window_over();
}

/* Says why the late window opened before its step (on stderr unless quiet; a CPU-only run has
 * no GPU to wait for) and writes it to the trace: ENV collector.window_opened (docs/trace-
 * format.md), which the report reads. */
static void say_opened(const char *why, const char *env)
{
    const struct ssc_window *win = ssc_config_window();
    char msg[320];
    if (!quiet() && atomic_load(&ssc_g_cupti_on)) {
        snprintf(msg, sizeof msg,
                 "%s: recording GPU activity from here (--capture auto waits "
                 "for step %llu in programs that mark steps)",
                 why, (unsigned long long)win->from);
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
                     : gap > AUTO_STALL_MIN_NS                      ? gap
                                                                    : AUTO_STALL_MIN_NS;
    uint64_t since = last ? last : ssc_start_ns();
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
static _Atomic int g_tick_opened = -1;                /* the kind that opened the window */
static _Atomic uint64_t g_ticks_recorded;             /* its ticks since */

static void ticks_reset(void)
{
    for (size_t k = 0; k < N_TICK_KINDS; k++)
        atomic_store_explicit(&g_ticks_in_row[k], 0, memory_order_relaxed);
}

/* The window a kind of tick opened closes after as many ticks as a step window's steps. */
static void tick_window_count(void)
{
    const struct ssc_window *win = ssc_config_window();
    uint64_t len = win->to - win->from + 1;
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

static void every_time_check(uint64_t now_ns);
static void rewindow_check(void);

void ssc_window_tick(uint64_t now_ns)
{
    const struct ssc_window *win = ssc_config_window();
    auto_stall_check(now_ns);
    every_time_check(now_ns);
    rewindow_check();
    if (win->kind != SSC_WINDOW_SECONDS) return;
    uint64_t t = now_ns - ssc_start_ns();
    if (t >= win->to)
        window_close();
    else
        capture_set(t >= win->from, SST_CAP_WINDOW);
}

/* The program ends before its late auto window opened: nothing of the GPU was recorded, which
 * the user must hear from us, not from an empty report. */
void ssc_window_at_exit(void)
{
    const struct ssc_window *win = ssc_config_window();
    if (!atomic_load(&g_auto_late) || late_window_opened() || quiet() ||
        !atomic_load(&ssc_g_cupti_on))
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "the program marked %llu steps and ended before step %llu, where --capture auto "
             "starts recording (the steps before it run unrecorded so that the report can "
             "measure the recording's own cost): no GPU activity was recorded; record short "
             "runs with --capture all",
             (unsigned long long)atomic_load(&g_steps_begun), (unsigned long long)win->from);
    ssc_say(msg);
}

/* ---- repeated windows: every:P, and auto's re-windows ------------------------------------
 * every:P records len steps from step 0 (open from the start, as steps:0-B), then again every
 * P marked steps, or from the first step that begins P ns after the last window opened (the
 * writer's round, which reads the clock anyway, says when: a step's begin only compares).
 * auto opens again when the step time departs (below). Each window attaches CUPTI again after
 * the last one's detach (ssc_cupti.c) and closes after its steps; ENV collector.window.N says
 * what opened window N (docs/trace-format.md). */
static _Atomic uint64_t g_last_open_ns; /* every:T: when the last window opened (0: the start) */
static _Atomic uint32_t g_windows = 1;  /* windows opened so far, the first included */
static _Atomic uint64_t g_rw_last_open; /* steps begun when the last window opened */
static char g_due_detail[256];          /* why g_due (auto): written before it is set */

static void repeat_init(const struct ssc_window *win)
{
    if (win->kind == SSC_WINDOW_EVERY) {
        atomic_store(&g_close_at, win->to);
        atomic_store(&g_next_open, win->period_steps ? win->period_steps : UINT64_MAX);
    }
    g_rw_share = win->is_auto ? (int)ssc_setting(SST_SET_AUTO_REWINDOW)->num : 0;
}

static void repeat_after_fork_child(void)
{
    g_rw_share = 0; /* a worker's steps, if any, are not the run's: nothing opens there */
    atomic_store(&g_next_open, UINT64_MAX);
    atomic_store(&g_close_at, UINT64_MAX);
    atomic_store(&g_due, 0);
}

static uint64_t window_len(void)
{
    const struct ssc_window *win = ssc_config_window();
    return win->kind == SSC_WINDOW_EVERY ? win->len : win->to - win->from + 1;
}

/* ENV collector.window.N: "period at step S" (every:), "step_time at step S: why" (auto), and
 * the same on stderr for auto, whose windows the user did not ask for one by one. */
static void say_window(uint32_t n, uint64_t ordinal, int by_period)
{
    char key[48], value[400], msg[512];
    snprintf(key, sizeof key, "collector.window.%u", n);
    snprintf(value, sizeof value, "%s at step %llu%s%s", by_period ? "period" : "step_time",
             (unsigned long long)ordinal, by_period ? "" : ": ", by_period ? "" : g_due_detail);
    ssc_env_record(key, value, strlen(value));
    if (by_period || quiet() || !atomic_load(&ssc_g_cupti_on)) return;
    snprintf(msg, sizeof msg, "%s: recording GPU activity again from step %llu for %llu steps",
             g_due_detail, (unsigned long long)ordinal, (unsigned long long)window_len());
    ssc_say(msg);
}

/* The step that begins a repeated window (every:N's step, or one the writer said is due). */
static void repeat_open(uint64_t ordinal, uint64_t ts_ns)
{
    const struct ssc_window *win = ssc_config_window();
    atomic_exchange(&g_due, 0);
    if (win->period_steps) atomic_store(&g_next_open, ordinal + win->period_steps);
    if (ssc_capturing()) return; /* the window before is still open */
    uint32_t n = atomic_fetch_add(&g_windows, 1) + 1;
    atomic_store(&g_last_open_ns, ts_ns);
    atomic_store(&g_rw_last_open, atomic_load(&g_steps_begun));
    atomic_store(&g_close_at, ordinal + window_len() - 1);
    say_window(n, ordinal, win->kind == SSC_WINDOW_EVERY);
    /* before CUPTI comes on: the writer must not arm the last window's detach under this one */
    atomic_store(&ssc_g_window_over, 0);
    capture_set(1, SST_CAP_WINDOW);
}

static void repeat_close(void)
{
    atomic_store(&g_close_at, UINT64_MAX);
    window_close();
}

/* every:T, on the writer's round: the next step opens a window once T has passed since the
 * last one opened (while one is open, once it closed). */
static void every_time_check(uint64_t now_ns)
{
    const struct ssc_window *win = ssc_config_window();
    uint64_t last = atomic_load(&g_last_open_ns);
    if (!win->period_ns || ssc_capturing() || atomic_load(&g_due)) return;
    if (!last) last = ssc_start_ns();
    if (now_ns >= last && now_ns - last >= win->period_ns) atomic_store(&g_due, 1);
}

/* ---- auto's re-windows -------------------------------------------------------------------
 * A run that slows down mid-way (an evaluation, a checkpoint, a leak, a throttled clock) shows
 * it in its step time, which the step marks give at no cost. After auto's first window the
 * median begin-to-begin time of RW_K unrecorded steps after it (RW_SKIP steps on: CUPTI
 * detaches within a writer round and an API call) is the base. Unrecorded on purpose: the
 * window's own steps carry the recording's cost (1.0-1.5x, docs/performance.md), against
 * which a slowdown smaller than that would not show and the plain steps after it would read as
 * a speed-up. The writer's round compares the median of the last RW_K unrecorded steps with the
 * base; past the share (STEPSCOPE_AUTO_REWINDOW, per cent) from the base and from the level
 * that opened the last re-window (a run that stays slow is not recorded again and again), the
 * next step opens a window as long as auto's. At most RW_MAX_WINDOWS windows a run, and
 * RW_GAP_WINDOWS windows' length of steps from one opening to the next. */
#define RW_K 50
#define RW_SKIP 4
#define RW_MAX_WINDOWS 8
#define RW_GAP_WINDOWS 10

static _Atomic uint64_t g_rw_ring[RW_K];        /* begin-to-begin ns of unrecorded steps */
static _Atomic uint64_t g_rw_count;             /* times written to the ring */
static _Atomic uint64_t g_rw_from = UINT64_MAX; /* steps begun up to this are not plain */
static _Atomic uint64_t g_rw_prev_ns;           /* the latest step's begin */
static uint64_t g_rw_base, g_rw_level;          /* medians, ns (the writer's) */

/* The step that began at ts_ns ends the one before: its time goes into the ring when that
 * one ran unrecorded (no window open, not just after one). */
static void rewindow_note(uint64_t ts_ns)
{
    uint64_t prev = atomic_exchange_explicit(&g_rw_prev_ns, ts_ns, memory_order_relaxed);
    if (!prev || ts_ns <= prev || ssc_capturing()) return;
    if (atomic_load_explicit(&g_steps_begun, memory_order_relaxed) <=
        atomic_load_explicit(&g_rw_from, memory_order_relaxed))
        return;
    uint64_t i = atomic_fetch_add_explicit(&g_rw_count, 1, memory_order_relaxed);
    atomic_store_explicit(&g_rw_ring[i % RW_K], ts_ns - prev, memory_order_relaxed);
}

static void rewindow_closed(void)
{
    atomic_store(&g_rw_from, atomic_load(&g_steps_begun) + RW_SKIP);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t ring_median(void)
{
    uint64_t v[RW_K];
    for (int i = 0; i < RW_K; i++)
        v[i] = atomic_load_explicit(&g_rw_ring[i], memory_order_relaxed);
    qsort(v, RW_K, sizeof v[0], cmp_u64);
    return v[RW_K / 2];
}

/* Whole per cent by which now departs from ref (negative: faster). */
static long departure(uint64_t now, uint64_t ref)
{
    double pct = ((double)now / (double)ref - 1.0) * 100.0;
    return (long)(pct < 0 ? pct - 0.5 : pct + 0.5);
}

static int rewindow_allowed(void)
{
    uint64_t gap = RW_GAP_WINDOWS * window_len();
    if (atomic_load(&g_windows) >= RW_MAX_WINDOWS) return 0;
    return atomic_load(&g_steps_begun) >= atomic_load(&g_rw_last_open) + gap;
}

static void rewindow_check(void)
{
    if (!g_rw_share || ssc_capturing() || atomic_load(&g_due)) return;
    if (atomic_load(&g_rw_count) < RW_K) return;
    uint64_t med = ring_median();
    if (!g_rw_base) {
        g_rw_base = g_rw_level = med;
        return;
    }
    long from_base = departure(med, g_rw_base), from_level = departure(med, g_rw_level);
    if (labs(from_base) <= g_rw_share || labs(from_level) <= g_rw_share) return;
    if (!rewindow_allowed()) return;
    g_rw_level = med;
    snprintf(g_due_detail, sizeof g_due_detail,
             "step time %+ld %% since the first window (median of %d unrecorded steps: %.1f ms "
             "after it, %.1f ms now)",
             from_base, RW_K, (double)g_rw_base / 1e6, (double)med / 1e6);
    atomic_store(&g_due, 1);
}
