/*
 * ssc_core.c — the top of the collector: its life in a process (start, the CUDA entry point,
 * fork, signals, exit). With ssc_window.c (the capture window) it is the top: the parts below
 * reach it only through ssc_top (ssc_config.h), which the constructor below sets at load.
 *
 * Start is lazy and happens once per process: the first of InitializeInjection (CUDA) and
 * InitializeInjectionNvtx2 (NVTX) starts it, and so does the first record of a fork()ed child
 * (the child writes its own file; nothing happens in a child that records nothing).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/ssc_core.h"
#include "collect/ssc_lifecycle.h"

#define EXPORT __attribute__((visibility("default")))
#define SIGNAL_FLUSH_TIMEOUT_MS 2000
#define EXIT_TIMEOUT_MS 5000

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_init_mu = PTHREAD_MUTEX_INITIALIZER;

static const int k_signals[] = {SIGTERM, SIGINT, SIGHUP};
#define N_SIGNALS (sizeof k_signals / sizeof k_signals[0])
static struct sigaction g_prev[N_SIGNALS];
static int g_signals_installed;

/* What the parts below may ask of the top (ssc_config.h), set before any of them can run:
 * at load, whether CUDA, NVTX or the Python shim loaded the library. */
__attribute__((constructor)) static void core_load(void)
{
    ssc_top = (struct ssc_top_events){ssc_core_ensure, ssc_window_step_begin, ssc_window_step_end,
                                      ssc_window_loop_tick, ssc_window_tick};
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
    ssc_records_after_fork_child();
    ssc_window_after_fork_child();
    atomic_store(&ssc_g_cupti_on, 0);
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

/* ---- start and exit --------------------------------------------------------------------- */

static void core_exit(void)
{
    if (atomic_load(&ssc_g_state) != SSC_RUNNING) return;
    ssc_window_at_exit();
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
    ssc_config_read();
    ssc_buf_global_init();
    ssc_window_init();
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
        ssc_set_start_ns(sst_now_ns());
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
    ssc_window_cuda_start();
    if (ssc_cupti_start() == 0) {
        atomic_store(&ssc_g_cupti_on, 1);
        ssc_cupti_set_enabled(ssc_capturing());
    }
    return 1;
}
