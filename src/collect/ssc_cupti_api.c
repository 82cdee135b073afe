/*
 * ssc_cupti_api.c — an API record from a CUPTI callback pair (see ssc_cupti.h): the entry
 * opens the call on its thread, the exit with the same correlation id closes it into one
 * SST_REC_API record. Pure: ssc_cupti.c reads the callback data and the clock and passes them
 * in, the tests feed sequences built in memory.
 */
#include "collect/ssc_cupti.h"

static int slot_is_open(const struct ssc_api_slot *s, uint32_t gen)
{
    return s->gen == gen;
}

static enum ssc_api_outcome api_record(const struct ssc_api_thread *t,
                                       const struct ssc_api_slot *s,
                                       const struct ssc_api_event *ev,
                                       const struct ssc_cupti_sink *sink)
{
    struct sst_rec_api *r = sink->reserve(sink->ctx, SST_REC_API, sizeof *r);
    if (!r) return SSC_API_DROPPED;
    r->domain = ev->domain;
    r->start_ns = s->start_ns;
    r->end_ns = ev->now_ns;
    r->tid = t->tid;
    r->cbid = ev->cbid;
    r->correlation = ev->correlation;
    r->result = ev->result;
    sink->commit(sink->ctx, r);
    return SSC_API_RECORDED;
}

enum ssc_api_outcome ssc_api_event(struct ssc_api_thread *t, const struct ssc_api_event *ev,
                                   uint32_t gen, const struct ssc_cupti_sink *sink)
{
    if (ev->domain == SST_API_DRIVER && slot_is_open(&t->runtime, gen)) return SSC_API_NESTED;
    struct ssc_api_slot *s = ev->domain == SST_API_RUNTIME ? &t->runtime : &t->driver;
    if (!ev->exit) {
        s->start_ns = ev->now_ns;
        s->correlation = ev->correlation;
        s->gen = gen;
        return SSC_API_OPENED;
    }
    /* An exit that is not the open call's (its entry was missed) leaves the open call be. */
    if (!slot_is_open(s, gen) || s->correlation != ev->correlation) return SSC_API_UNPAIRED;
    s->gen = 0;
    return api_record(t, s, ev, sink);
}
