/*
 * test_run.c — the whole run (issue #43, src/analysis/ssa_run.c) on synthetic runs whose
 * answer is known: 1200 steps of 10 ms (+-0.2 ms of jitter), Python sampled at 1 kHz, and
 *
 *   save     a 300 ms torch.save every 200 steps (steps 199, 399, ...): one set, every 200,
 *            a checkpoint, at train.py:88; its twin without them: nothing
 *   epochs   DataLoader workers started anew every 150 steps (120 ms in the iterator's
 *            __iter__, 60 ms waiting for the first batch) and the save too: two sets
 *   drift    a line whose time grows 0 -> 6 ms a step over the run: drift found, +60 %, at
 *            History.add (train.py:72); its twin (a bounded window): nothing
 *   once     one 150 ms step alone (1 % of the run): not said
 *   windows  600 steps, GPU windows at steps 0-19 and 400-419 (CAPTURE records), the steps
 *            from 250 on 4 ms slower on the host: the second window against the first +33 %;
 *            the recorded steps' own 2 ms are neither the usual step nor stalls; the slowdown
 *            (a step, not a slope) is drift
 *
 * Usage: test_run FIXTURE_DIR (unused)
 */
#include <math.h>
#include <stdio.h>

#include "analysis/ssa.h"
#include "synth.h"

#define TID 3
#define STEPS 1200

enum { F_MODEL = 1, F_MAIN_LOOP, F_SAVE, F_MAIN_SAVE, F_ITER, F_MAIN_ITER, F_NEXT, F_ADD };
enum { S_MODEL = 1, S_SAVE, S_ITER, S_NEXT, S_ADD };

static void frames(struct synth *s)
{
    synth_env(s, "pyshim.host_samples_hz", "1000");
    synth_pyframe(s, F_MODEL, "forward",
                  "/usr/lib/python3/site-packages/torch/nn/modules/module.py", 1750);
    synth_pyframe(s, F_MAIN_LOOP, "main", "/home/u/train.py", 60);
    synth_pyframe(s, F_SAVE, "_save", "/usr/lib/python3/site-packages/torch/serialization.py", 900);
    synth_pyframe(s, F_MAIN_SAVE, "main", "/home/u/train.py", 88);
    synth_pyframe(s, F_ITER, "__iter__",
                  "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py", 480);
    synth_pyframe(s, F_MAIN_ITER, "main", "/home/u/train.py", 55);
    synth_pyframe(s, F_NEXT, "_next_data",
                  "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py", 1450);
    synth_pyframe(s, F_ADD, "add", "/home/u/train.py", 72);
    const uint32_t model[] = {F_MODEL, F_MAIN_LOOP}, save[] = {F_SAVE, F_MAIN_SAVE},
                   iter[] = {F_ITER, F_MAIN_ITER}, next[] = {F_NEXT, F_MAIN_ITER},
                   add[] = {F_ADD, F_MAIN_LOOP};
    synth_pystack(s, S_MODEL, model, 2);
    synth_pystack(s, S_SAVE, save, 2);
    synth_pystack(s, S_ITER, iter, 2);
    synth_pystack(s, S_NEXT, next, 2);
    synth_pystack(s, S_ADD, add, 2);
}

/* Samples every ms from t0 to t1 of one stack. */
static void samples(struct synth *s, uint64_t t0, uint64_t t1, uint32_t stack)
{
    for (uint64_t t = t0; t < t1; t += MS)
        synth_pysample(s, TID, t, stack);
}

struct plan {
    int save, epochs, drift, once;
};

/* Step st's parts: model time (ms), then extra host time and its stack. */
static uint64_t step_body(struct synth *s, const struct plan *p, int st, uint64_t b)
{
    uint64_t jitter = (uint64_t)((st * 7919) % 5) * 100 * US; /* 0..0.4 ms */
    uint64_t t = b + 10 * MS - 200 * US + jitter;
    samples(s, b, t, S_MODEL);
    if (p->drift) { /* 0 -> 6 ms over the run */
        uint64_t grow = (uint64_t)st * 6 * MS / STEPS;
        samples(s, t, t + grow, S_ADD);
        t += grow;
    }
    if (p->epochs && st > 0 && st % 150 == 0) {
        samples(s, t, t + 120 * MS, S_ITER);
        samples(s, t + 120 * MS, t + 180 * MS, S_NEXT);
        t += 180 * MS;
    }
    if ((p->save && st % 200 == 199) || (p->once && st == 700)) {
        uint64_t d = p->once ? 150 * MS : 300 * MS;
        samples(s, t, t + d, S_SAVE);
        t += d;
    }
    return t;
}

static void write_run(const char *path, const struct plan *p)
{
    struct synth s;
    synth_open(&s, path);
    frames(&s);
    uint64_t b = T0;
    for (int st = 0; st < STEPS; st++) {
        synth_step(&s, SST_STEP_BEGIN, b, (uint64_t)st, TID);
        synth_kernel(&s, "gemm_like", b + 100 * US, b + 4100 * US);
        uint64_t e = step_body(&s, p, st, b);
        synth_step(&s, SST_STEP_END, e, (uint64_t)st, TID);
        b = e;
    }
    synth_close(&s);
}

static struct ssa_result *analyse(const char *path, const struct plan *p)
{
    struct ssa_result *r = NULL;
    write_run(path, p);
    CHECK_EQ(ssa_analyze_file(path, NULL, &r), 0);
    REQUIRE(r);
    remove(path);
    return r;
}

static const char *frame_fn(const struct ssa_result *r, uint32_t frame)
{
    return frame && frame <= r->host.tab.n_frames ? r->host.tab.frames[frame - 1].function : "";
}

static const struct ssa_run_stalls *set_every(const struct ssa_run *run, uint64_t every)
{
    for (size_t k = 0; k < run->n_stalls; k++)
        if (run->stalls[k].every == every) return &run->stalls[k];
    return NULL;
}

static void test_save(void)
{
    struct ssa_result *r = analyse("run_save.sstrace", &(struct plan){.save = 1});
    const struct ssa_run *run = &r->run;
    CHECK_EQ((int)run->n, STEPS);
    CHECK_EQ((int)run->n_stalls, 1);
    const struct ssa_run_stalls *x = set_every(run, 200);
    REQUIRE(x);
    CHECK_EQ((int)x->count, 6);
    CHECK_EQ_U64(x->first_step, 199);
    CHECK(fabs(x->each_ms - 300) < 2);
    CHECK(fabs(x->share - 1800.0 / (1200 * 10 + 1800)) < 0.005);
    CHECK_EQ(x->where.cause, SSA_RUNC_CHECKPOINT);
    CHECK(x->where.frame && r->host.tab.frames[x->where.frame - 1].line == 88);
    CHECK(fabs(x->where_ms - 300) < 10);
    CHECK(!run->drift.found);
    printf("save: every %llu, %zu stalls, %.1f ms each, %.1f %% of the run, cause %d at line %u\n",
           (unsigned long long)x->every, x->count, x->each_ms, 100 * x->share, x->where.cause,
           r->host.tab.frames[x->where.frame - 1].line);
    ssa_result_free(r);
}

static void test_twin(void)
{
    struct ssa_result *r = analyse("run_twin.sstrace", &(struct plan){0});
    CHECK_EQ((int)r->run.n_stalls, 0);
    CHECK(!r->run.drift.found);
    CHECK(fabs((double)r->run.usual_ns / 1e6 - 10) < 0.3);
    ssa_result_free(r);
}

static void test_epochs(void)
{
    struct ssa_result *r = analyse("run_epochs.sstrace", &(struct plan){.save = 1, .epochs = 1});
    const struct ssa_run *run = &r->run;
    CHECK_EQ((int)run->n_stalls, 2);
    const struct ssa_run_stalls *e = set_every(run, 150), *x = set_every(run, 200);
    REQUIRE(e && x);
    CHECK_EQ((int)e->count, 7); /* 150, 300, ..., 1050 (600 and 1200 -: 1200 is past the end) */
    CHECK_EQ(e->where.cause, SSA_RUNC_EPOCH);
    CHECK(e->where.frame && r->host.tab.frames[e->where.frame - 1].line == 55);
    CHECK_EQ(x->where.cause, SSA_RUNC_CHECKPOINT);
    CHECK(fabs(e->each_ms - 180) < 2);
    printf("epochs: every %llu x%zu (%.1f ms, cause %d); every %llu x%zu (cause %d)\n",
           (unsigned long long)e->every, e->count, e->each_ms, e->where.cause,
           (unsigned long long)x->every, x->count, x->where.cause);
    ssa_result_free(r);
}

static void test_drift(void)
{
    struct ssa_result *r = analyse("run_drift.sstrace", &(struct plan){.drift = 1});
    const struct ssa_run_drift *d = &r->run.drift;
    CHECK(d->found);
    CHECK_EQ((int)r->run.n_stalls, 0);
    CHECK(d->change > 0.45 && d->change < 0.65); /* 10.3 -> ~15.8 ms */
    CHECK(d->trend > 0.9);
    CHECK(d->where.frame && !strcmp(frame_fn(r, d->where.frame), "add"));
    CHECK(d->where_b_ms - d->where_a_ms > 4);
    printf("drift: %.2f -> %.2f ms (%+.0f %%), tau %.2f, %.0f ms over the run (%.1f %%), "
           "line %s %.2f -> %.2f ms\n",
           d->a_ms, d->b_ms, 100 * d->change, d->trend, d->extra_ms, 100 * d->share,
           frame_fn(r, d->where.frame), d->where_a_ms, d->where_b_ms);
    ssa_result_free(r);
}

static void test_once(void)
{
    struct ssa_result *r = analyse("run_once.sstrace", &(struct plan){.once = 1});
    CHECK_EQ((int)r->run.n_stalls,
             0); /* 150 ms of a 12 s run: the window's outlier, not the run's */
    CHECK(!r->run.drift.found);
    ssa_result_free(r);
}

static void capture(struct synth *s, uint64_t ts, int on, uint8_t reason)
{
    struct sst_rec_capture *r = sst_writer_reserve(s->w, SST_REC_CAPTURE, sizeof *r);
    REQUIRE(r);
    r->on = (uint8_t)on, r->reason = reason, r->what = SST_CAPTURE_GPU, r->ts_ns = ts;
}

static void write_windows(const char *path)
{
    struct synth s;
    synth_open(&s, path);
    capture(&s, T0 - MS, 1, SST_CAP_START);
    uint64_t b = T0;
    for (int st = 0; st < 600; st++) {
        int in = st < 20 || (st >= 400 && st < 420);
        if (st == 20 || st == 420) capture(&s, b, 0, SST_CAP_WINDOW);
        if (st == 400) capture(&s, b, 1, SST_CAP_WINDOW);
        uint64_t d = (st >= 250 ? 14 : 10) * MS + (in ? 2 * MS : 0); /* recorded: +2 ms */
        synth_step(&s, SST_STEP_BEGIN, b, (uint64_t)st, TID);
        if (in) synth_kernel(&s, "gemm_like", b + 100 * US, b + 4100 * US);
        synth_step(&s, SST_STEP_END, b + d, (uint64_t)st, TID);
        b += d;
    }
    synth_close(&s);
}

static void test_windows(void)
{
    struct ssa_result *r = NULL;
    write_windows("run_windows.sstrace");
    CHECK_EQ(ssa_analyze_file("run_windows.sstrace", NULL, &r), 0);
    REQUIRE(r);
    remove("run_windows.sstrace");
    const struct ssa_run *run = &r->run;
    CHECK_EQ((int)run->n_windows, 2);
    CHECK_EQ((int)run->windows[1].from, 400);
    CHECK_EQ((int)run->windows[1].steps, 20 - SSA_RUN_WINDOW_SKIP);
    double a = (double)run->windows[0].ns / 1e6 / (double)run->windows[0].steps;
    double b = (double)run->windows[1].ns / 1e6 / (double)run->windows[1].steps;
    CHECK(fabs(a - 12) < 0.01 && fabs(b - 16) < 0.01);
    /* the run's usual step is of the unrecorded ones, and the recorded +2 ms is no stall */
    CHECK(fabs((double)run->usual_ns / 1e6 - 14) < 0.01);
    CHECK_EQ((int)run->n_stalls, 0);
    CHECK(run->drift.found && fabs(run->drift.change - 0.4) < 0.01);
    printf("windows: %zu, %.2f -> %.2f ms a step, usual %.2f ms\n", run->n_windows, a, b,
           (double)run->usual_ns / 1e6);
    ssa_result_free(r);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_save();
    test_twin();
    test_epochs();
    test_drift();
    test_once();
    test_windows();
    return ss_test_result();
}
