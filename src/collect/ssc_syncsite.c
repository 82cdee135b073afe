/*
 * ssc_syncsite.c — wakes the Python sampler when a thread blocks in a synchronising CUDA call,
 * so that one snapshot shows the line that issued it (PY_CALL records, docs/trace-format.md).
 *
 * Why: a `.item()` that blocks 0.2 ms a step is 1-2 % of a step — often what a sync finding
 * prices, through the queue it drains — but a 100 Hz sampler lands in it once in fifty steps.
 * PyTorch releases the GIL in these calls, so a snapshot taken while the call still blocks
 * shows the Python line of the call, and costs the blocked thread nothing.
 *
 * One slot holds the latest call entered (who: tid and correlation id; since: its entry time).
 * The program's threads write it from CUPTI's entry and exit callbacks (ssc_cupti.c); the
 * sampler's thread reads it in ssc_syncsite_wait, sleeping on a futex that each entry bumps.
 * Calls on several threads at once: the latest wins, the others go unreported (the sampler's
 * ticks still see them). Nothing is published until a sampler has asked once.
 */
#include "collect/ssc_syncsite.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace/sst_writer.h"
#include "util/ss_error.h"

static _Atomic int g_live;         /* ssc_syncsite_live */
_Atomic int ssc_g_sync_wanted;     /* a sampler asked: entries are published from then on */
static _Atomic int g_waiting;      /* the sampler sleeps on g_entries now: wake it */
static _Atomic uint32_t g_entries; /* futex word, bumped at each published entry */
static _Atomic uint64_t g_who;     /* tid << 32 | correlation of the latest call; 0: none */
static _Atomic uint64_t g_since;   /* its entry (sst_now_ns) */
static uint64_t g_reported;        /* the sampler's thread only: the last call reported */

void ssc_syncsite_live(int on)
{
    atomic_store(&g_live, on);
    if (!on) atomic_store(&g_who, 0);
}

static uint64_t who_of(uint32_t tid, uint32_t correlation)
{
    return (uint64_t)tid << 32 | correlation;
}

void ssc_syncsite_enter(uint32_t tid, uint32_t correlation, uint64_t now_ns)
{
    if (!atomic_load_explicit(&ssc_g_sync_wanted, memory_order_relaxed)) return;
    atomic_store(&g_since, now_ns);
    atomic_store(&g_who, who_of(tid, correlation));
    atomic_fetch_add(&g_entries, 1);
    if (atomic_load(&g_waiting)) syscall(SYS_futex, &g_entries, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void ssc_syncsite_exit(uint32_t tid, uint32_t correlation)
{
    uint64_t mine = who_of(tid, correlation);
    if (atomic_load_explicit(&g_who, memory_order_relaxed) == mine)
        atomic_compare_exchange_strong(&g_who, &mine, 0);
}

static struct timespec timespec_of(uint64_t ns)
{
    return (struct timespec){(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
}

/* Sleeps on the futex until an entry after `seen` or until the deadline. */
static void wait_entry(uint32_t seen, uint64_t deadline)
{
    uint64_t now = sst_now_ns();
    if (now >= deadline) return;
    struct timespec ts = timespec_of(deadline - now);
    atomic_store(&g_waiting, 1);
    if (atomic_load(&g_entries) == seen)
        syscall(SYS_futex, &g_entries, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
    atomic_store(&g_waiting, 0);
}

/* Whether call `who`, entered at `since`, still blocks min_block_ns after its entry (sleeping
 * until then, but not past the deadline). */
static int still_blocked(uint64_t who, uint64_t since, uint64_t min_block_ns, uint64_t deadline)
{
    uint64_t ripe = since + min_block_ns, now = sst_now_ns();
    if (ripe > deadline) return 0;
    if (ripe > now) {
        struct timespec ts = timespec_of(ripe - now);
        nanosleep(&ts, NULL);
    }
    return atomic_load(&g_who) == who;
}

int ssc_syncsite_wait(uint64_t timeout_ns, uint64_t min_block_ns, uint32_t *tid,
                      uint32_t *correlation)
{
    if (!atomic_load(&g_live)) return SS_ENOTSUP;
    atomic_store(&ssc_g_sync_wanted, 1);
    uint64_t deadline = sst_now_ns() + timeout_ns;
    while (atomic_load(&g_live) && sst_now_ns() < deadline) {
        uint32_t seen = atomic_load(&g_entries);
        uint64_t who = atomic_load(&g_who), since = atomic_load(&g_since);
        if (who && who != g_reported && still_blocked(who, since, min_block_ns, deadline)) {
            g_reported = who;
            *tid = (uint32_t)(who >> 32), *correlation = (uint32_t)who;
            return 1;
        }
        if (atomic_load(&g_entries) == seen) wait_entry(seen, deadline);
    }
    return 0;
}
