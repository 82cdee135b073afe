/*
 * ssc_cupti_watch.c — notices that another CUPTI client (torch.profiler's Kineto) took the
 * activity buffers away. The reasoning is in ssc_cupti.h; this is the pure state machine,
 * driven once per ssc_cupti_flush by ssc_cupti.c and tested without a GPU.
 */
#include "collect/ssc_cupti.h"

/* Idle probes back off up to this many times the base quiet interval. */
#define SSC_WATCH_MAX_BACKOFF 32u

void ssc_watch_init(struct ssc_watch *w, uint64_t now_ns, uint64_t quiet_ns, uint64_t probe_ns)
{
    *w = (struct ssc_watch){0};
    w->state = SSC_WATCH_QUIET;
    w->quiet_ns = quiet_ns;
    w->quiet_cur_ns = quiet_ns;
    w->probe_ns = probe_ns;
    w->last_ok_ns = now_ns;
}

/* Back to waiting; the next probe comes after the current quiet interval. */
static enum ssc_watch_action rearm(struct ssc_watch *w, uint64_t now_ns)
{
    int was_probing = w->state != SSC_WATCH_QUIET;
    w->state = SSC_WATCH_QUIET;
    w->last_ok_ns = now_ns;
    return was_probing ? SSC_WATCH_PROBE_OFF : SSC_WATCH_NONE;
}

static void back_off(struct ssc_watch *w)
{
    if (w->quiet_cur_ns < w->quiet_ns * SSC_WATCH_MAX_BACKOFF) w->quiet_cur_ns *= 2;
}

/* Quiet long enough: first a forced flush (no subscription), since a probe's subscription
 * would make a torch.profiler starting meanwhile fail to subscribe and lose its GPU data. */
static enum ssc_watch_action tick_quiet(struct ssc_watch *w, uint64_t now_ns)
{
    if (now_ns - w->last_ok_ns < w->quiet_cur_ns) return SSC_WATCH_NONE;
    w->state = SSC_WATCH_PRECHECK;
    return SSC_WATCH_CONFIRM;
}

static enum ssc_watch_action tick_probing(struct ssc_watch *w, uint64_t now_ns, uint64_t launches)
{
    if (now_ns - w->probe_start_ns < w->probe_ns) return SSC_WATCH_NONE;
    if (launches == w->launches_at_probe) {
        /* Nothing launched: the program is not using the GPU. Look again later. */
        back_off(w);
        return rearm(w, now_ns);
    }
    w->state = SSC_WATCH_CONFIRMING;
    return SSC_WATCH_CONFIRM;
}

enum ssc_watch_action ssc_watch_tick(struct ssc_watch *w, uint64_t now_ns, int capturing,
                                     uint64_t deliveries, uint64_t launches)
{
    int delivered = deliveries != w->deliveries_seen;
    w->deliveries_seen = deliveries;
    if (w->state == SSC_WATCH_TAKEN) return SSC_WATCH_NONE;
    if (delivered) {
        /* Buffers reach us: healthy. A program that delivers again gets fast probes. */
        w->quiet_cur_ns = w->quiet_ns;
        return rearm(w, now_ns);
    }
    if (!capturing) return rearm(w, now_ns); /* nothing is expected outside the window */
    switch (w->state) {
    case SSC_WATCH_QUIET:
        return tick_quiet(w, now_ns);
    case SSC_WATCH_PROBING:
        return tick_probing(w, now_ns, launches);
    default:
        return SSC_WATCH_NONE; /* PRECHECK, CONFIRMING: waiting for ssc_watch_confirm */
    }
}

enum ssc_watch_action ssc_watch_confirm(struct ssc_watch *w, uint64_t now_ns, uint64_t deliveries,
                                        uint64_t launches)
{
    if (w->state != SSC_WATCH_CONFIRMING && w->state != SSC_WATCH_PRECHECK) return SSC_WATCH_NONE;
    if (deliveries != w->deliveries_seen) {
        /* The forced flush reached us: our records were only waiting in partly filled
         * buffers. Healthy, but checking again soon would only repeat this: back off. */
        w->deliveries_seen = deliveries;
        back_off(w);
        return rearm(w, now_ns);
    }
    if (w->state == SSC_WATCH_PRECHECK) {
        /* Nothing came back: an idle GPU, or the buffers go elsewhere. Launches tell. */
        w->state = SSC_WATCH_PROBING;
        w->probe_start_ns = now_ns;
        w->launches_at_probe = launches;
        return SSC_WATCH_PROBE_ON;
    }
    w->state = SSC_WATCH_TAKEN;
    return SSC_WATCH_TAKEN_OVER;
}
