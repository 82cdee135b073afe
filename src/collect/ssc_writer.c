/*
 * ssc_writer.c — the writer thread: the only thread that touches the sst_writer.
 *
 * It wakes every wake_ms (and when asked: exit, a signal), and each round: flushes CUPTI's
 * completed buffers, moves the thread buffers into the writer (snapshot, strings, buffers —
 * see ssc_intern.c for why in that order), writes DROPPED records for what was lost, takes
 * a host sample and a CLOCK pair when due, and writes a chunk at least every flush_ms, so a
 * process killed with SIGKILL loses at most about that much.
 *
 * Waking uses a pipe: write(2) is async-signal-safe, so a signal handler can ask for a flush
 * and wait for the answer on a second pipe with a timeout (never a hang).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/ssc_core.h"
#include "trace/sst_clock.h"
#include "util/ss_error.h"

static struct sst_writer *g_w;
static pthread_t g_thread;
static int g_have_thread;
static pthread_mutex_t g_round_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_wake[2] = {-1, -1}; /* anyone -> writer */
static int g_ack[2] = {-1, -1};  /* writer -> signal handler */
static _Atomic int g_req_stop, g_req_flush, g_req_close;
static _Atomic int g_done; /* the thread has closed the file and is leaving */
static uint32_t g_wake_ms, g_flush_ms; /* STEPSCOPE_WAKE_MS, STEPSCOPE_FLUSH_MS */
static uint64_t g_clock_ns;            /* STEPSCOPE_CLOCK_MS, in ns */
static uint64_t g_last_flush, g_last_sample, g_last_clock, g_records;
static int g_write_error_said, g_cap_said;
static struct sst_compressor g_comp;
static uint32_t g_parent_pid; /* set in a fork()ed child: the file says whose child it is */

/* ---- records of the writer thread itself ------------------------------------------------ */

void *ssc_writer_rec(uint16_t type, size_t size)
{
    if (!g_w) return NULL;
    ssc_str_drain(g_w); /* any id this record uses was queued before this call */
    return sst_writer_reserve(g_w, type, size);
}

/* A CLOCK pair (MONOTONIC, REALTIME): what lays this trace on a timeline shared with other
 * hosts' traces. Written by this thread only, so the program's threads never pay for it. */
static void write_clock(void)
{
    struct sst_rec_clock c;
    sst_clock_read(&c);
    struct sst_rec_clock *r = ssc_writer_rec(SST_REC_CLOCK, sizeof c);
    if (r) memcpy((char *)r + sizeof c.h, (char *)&c + sizeof c.h, sizeof c - sizeof c.h);
    g_last_clock = c.ts_ns;
}

/* DROPPED records for everything lost since the last round (one per source and type). */
static void write_drops(void)
{
    static uint64_t counts[SSC_DROP_SOURCES][SST_REC_TYPE_LIMIT];
    ssc_drops_take(counts);
    for (int s = 0; s < SSC_DROP_SOURCES; s++)
        for (int t = 0; t < SST_REC_TYPE_LIMIT; t++) {
            if (!counts[s][t]) continue;
            if (s == SST_DROP_HOST_BUFFER && !g_cap_said) {
                g_cap_said = 1;
                ssc_notice(SST_NOTICE_MEMORY_CAP, SST_NOTE_WARN,
                           "memory cap reached: records are being dropped (and counted); "
                           "raise it with --memory-cap");
            }
            sst_writer_count_dropped(g_w, counts[s][t]);
            struct sst_rec_dropped *r = ssc_writer_rec(SST_REC_DROPPED, sizeof *r);
            if (!r) continue;
            r->source = (uint8_t)s;
            r->rec_type = (uint16_t)t;
            r->ts_ns = sst_now_ns();
            r->count = counts[s][t];
        }
}

/* ---- rounds ----------------------------------------------------------------------------- */

static void drain_all(void)
{
    ssc_buf_snapshot();
    ssc_str_drain(g_w);
    g_records += ssc_buf_drain(g_w);
}

static void check_write_error(void)
{
    int err = sst_writer_error(g_w);
    if (err == 0 || g_write_error_said) return;
    g_write_error_said = 1;
    char msg[256];
    snprintf(msg, sizeof msg, "cannot write the trace (%s): later records are dropped",
             ss_strerror(err));
    ssc_say(msg);
}

static void round_work(uint64_t now)
{
    if (atomic_load(&ssc_g_cupti_on)) ssc_cupti_flush(0);
    ssc_top.round(now);
    drain_all();
    write_drops();
    uint64_t hz = ssc_setting(SST_SET_SAMPLE_HZ)->num;
    if (hz && now - g_last_sample >= 1000000000ull / hz) {
        g_last_sample = now;
        ssc_host_sample();
    }
    if (now - g_last_clock >= g_clock_ns) write_clock(); /* the clocks drift apart slowly */
    if (now - g_last_flush >= (uint64_t)g_flush_ms * 1000000ull) {
        g_last_flush = now;
        ssc_buf_write_costs();
        sst_writer_flush(g_w);
    }
    check_write_error();
}

/* The writer's time already counted in other kinds (converting CUPTI buffers, switching
 * CUPTI at a seconds window's edge), so the kinds stay apart. */
static uint64_t counted_elsewhere(void)
{
    return ssc_buf_writer_cost_ns(SST_COST_CUPTI_CONVERT) +
           ssc_buf_writer_cost_ns(SST_COST_CUPTI_CONTROL);
}

/* One round, its time counted as the writer's own cost (COST kind writer). */
static void timed_round(uint64_t now)
{
    uint64_t before = counted_elsewhere();
    round_work(now);
    uint64_t spent = sst_now_ns() - now, other = counted_elsewhere() - before;
    ssc_cost_add(SST_COST_WRITER, 1, 1, spent > other ? spent - other : 0);
}

/* Final round: everything still buffered, then the END chunk. */
static void finish(void)
{
    if (atomic_load(&ssc_g_cupti_on)) ssc_cupti_stop();
    drain_all();
    ssc_host_sample();
    write_clock();
    ssc_host_write_late_env();
    write_drops();
    ssc_buf_write_costs();
    ssc_capture_record(0, SST_CAP_EXIT, SST_CAPTURE_GPU | SST_CAPTURE_NVTX | SST_CAPTURE_HOST);
    drain_all();
    sst_writer_close(g_w, 0);
    g_w = NULL;
}

/* A signal handler asked for a flush (and a close when the signal will kill us). */
static void serve_signal_request(void)
{
    int close_file = atomic_exchange(&g_req_close, 0);
    atomic_store(&g_req_flush, 0);
    if (close_file) {
        finish();
        atomic_store(&ssc_g_state, SSC_STOPPED);
    } else {
        drain_all();
        write_drops();
        sst_writer_flush(g_w);
    }
    char c = 'a';
    ssize_t rc = write(g_ack[1], &c, 1);
    (void)rc;
}

static void wait_wake(void)
{
    struct pollfd p = {g_wake[0], POLLIN, 0};
    if (poll(&p, 1, (int)g_wake_ms) > 0) {
        char buf[64];
        while (read(g_wake[0], buf, sizeof buf) > 0) {
        }
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the program's threads */
    ssc_buf_set_writer_thread(g_w);
    pthread_mutex_lock(&g_round_mu);
    ssc_host_write_process();
    ssc_host_write_env();
    int host = ssc_setting(SST_SET_SAMPLE_HZ)->num != 0;
    ssc_capture_record(1, SST_CAP_START, SST_CAPTURE_NVTX | (host ? SST_CAPTURE_HOST : 0));
    write_clock();
    ssc_mark_config();
    if (g_parent_pid) {
        char msg[96];
        snprintf(msg, sizeof msg, "this process was forked from pid %u", g_parent_pid);
        ssc_notice(SST_NOTICE_FORKED, SST_NOTE_INFO, msg);
    }
    pthread_mutex_unlock(&g_round_mu);
    while (g_w) {
        wait_wake();
        pthread_mutex_lock(&g_round_mu);
        if (atomic_load(&g_req_stop)) {
            finish();
        } else if (atomic_load(&g_req_flush)) {
            serve_signal_request();
        } else {
            timed_round(sst_now_ns());
        }
        pthread_mutex_unlock(&g_round_mu);
    }
    atomic_store(&g_done, 1);
    return NULL;
}

/* ---- start ------------------------------------------------------------------------------ */

static void close_pipes(void)
{
    for (int i = 0; i < 2; i++) {
        if (g_wake[i] >= 0) close(g_wake[i]);
        if (g_ack[i] >= 0) close(g_ack[i]);
        g_wake[i] = g_ack[i] = -1;
    }
}

static int make_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    return 0;
}

/* Opens <out_dir>/<host>-<pid>[-r<rank>].sstrace, refusing what is not a writable folder. */
static int open_trace(void)
{
    const char *dir = ssc_setting(SST_SET_OUTPUT_DIR)->text;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return SS_ENOENT;
    struct sst_writer_opts o;
    memset(&o, 0, sizeof o);
    o.features = SST_FEAT_NVTX | (ssc_setting(SST_SET_SAMPLE_HZ)->num ? SST_FEAT_HOST_SAMPLES : 0) |
                 (ssc_light_mode() ? SST_FEAT_LIGHT_MODE : 0);
    /* CUPTI records come when the driver loads us; another tool's library there: none */
    const char *cuda = getenv("CUDA_INJECTION64_PATH");
    if (cuda && *cuda && !ssc_setting(SST_SET_FOREIGN_CUDA_INJECTION)->text[0])
        o.features |= SST_FEAT_CUPTI;
    o.start_mono_ns = ssc_start_ns();
    struct sst_rec_clock c; /* the header's REALTIME at the instant of start_mono_ns, too */
    sst_clock_read(&c);
    o.start_unix_ns = c.unix_ns - (c.ts_ns - o.start_mono_ns);
    if (!g_comp.compress) ssc_zstd_compressor(&g_comp);
    o.compressor = g_comp;
    int rc = SS_EIO;
    for (int attempt = 0; attempt < 10; attempt++) { /* never overwrite: O_EXCL */
        char name[320], path[4096 + 336];
        ssc_host_trace_name(name, sizeof name, attempt);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        rc = sst_writer_open(path, &o, &g_w);
        if (rc == 0 || access(path, F_OK) != 0) break;
    }
    return rc;
}

/* The thread starts with every signal blocked (ssc_thread_start): a signal handled on the
 * writer thread would wait for the writer's own answer. */
static int start_thread(void)
{
    return ssc_thread_start(&g_thread, writer_main);
}

int ssc_writer_start(void)
{
    g_wake_ms = (uint32_t)ssc_setting(SST_SET_WAKE_MS)->num;
    g_flush_ms = (uint32_t)ssc_setting(SST_SET_FLUSH_MS)->num;
    g_clock_ns = (uint64_t)ssc_setting(SST_SET_CLOCK_MS)->num * 1000000ull;
    int rc = open_trace();
    if (rc != 0) {
        char msg[4300];
        snprintf(msg, sizeof msg, "cannot create a trace in '%s' (%s): not recording",
                 ssc_setting(SST_SET_OUTPUT_DIR)->text, ss_strerror(rc));
        ssc_say(msg);
        return rc;
    }
    g_last_flush = g_last_sample = sst_now_ns();
    if (make_pipe(g_wake) != 0 || make_pipe(g_ack) != 0 || start_thread() != 0) {
        ssc_say("cannot start the writer thread: not recording");
        close_pipes(); /* no descriptor of ours stays behind in the program */
        sst_writer_abandon(g_w, 0);
        g_w = NULL;
        return SS_ENOMEM;
    }
    g_have_thread = 1;
    return 0;
}

/* ---- stop, signals, fork ---------------------------------------------------------------- */

static void wake(void)
{
    char c = 'w';
    ssize_t rc = write(g_wake[1], &c, 1);
    (void)rc;
}

void ssc_writer_stop(int timeout_ms)
{
    if (!g_have_thread) return;
    atomic_store(&g_req_stop, 1);
    wake();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    if (pthread_timedjoin_np(g_thread, NULL, &ts) == 0)
        g_have_thread = 0;
    else
        ssc_say("the writer thread did not finish in time: the trace may lack its end");
}

void ssc_writer_signal_flush(int close_file, int timeout_ms)
{
    if (!g_have_thread || g_wake[1] < 0 || atomic_load(&g_done)) return; /* nobody would answer */
    char buf[16];
    while (read(g_ack[0], buf, sizeof buf) > 0) {
    } /* stale answers of an earlier request that timed out */
    if (close_file) atomic_store(&g_req_close, 1);
    atomic_store(&g_req_flush, 1);
    wake();
    struct pollfd p = {g_ack[0], POLLIN, 0};
    int rc;
    do
        rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc > 0) {
        ssize_t n = read(g_ack[0], buf, sizeof buf);
        (void)n;
    }
}

void ssc_writer_lock(void)
{
    pthread_mutex_lock(&g_round_mu);
}

void ssc_writer_unlock(void)
{
    pthread_mutex_unlock(&g_round_mu);
}

void ssc_writer_after_fork_child(void)
{
    /* The round lock is held (fork prepare): the writer was between rounds, so abandoning
     * frees a consistent writer. Closing our copy of the descriptor leaves the parent's. */
    if (g_w) sst_writer_abandon(g_w, 0);
    g_w = NULL;
    g_have_thread = 0;
    close_pipes();
    atomic_store(&g_req_stop, 0);
    atomic_store(&g_req_flush, 0);
    atomic_store(&g_req_close, 0);
    atomic_store(&g_done, 0);
    g_write_error_said = g_cap_said = 0;
    g_records = 0;
    g_parent_pid = (uint32_t)getppid();
}
