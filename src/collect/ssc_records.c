/*
 * ssc_records.c — the records every part writes about the collector itself: NOTICE (a problem
 * said once on stderr), ENV (key=value), CAPTURE (what is recorded, from when), and what the
 * configuration says in each trace. Any thread, through the record buffers (ssc_buf.c).
 */
#include <stdio.h>
#include <string.h>

#include "collect/ssc_core.h"

static _Atomic uint32_t g_said;      /* notice codes already said on stderr (bits) */
static _Atomic uint32_t g_noted[32]; /* NOTICE records written per code */

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
    int quiet = (int)ssc_setting(SST_SET_QUIET)->num;
    int loud = level >= SST_NOTE_ERROR || (level >= SST_NOTE_WARN && !quiet);
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

void ssc_records_after_fork_child(void)
{
    for (int i = 0; i < 32; i++)
        atomic_store(&g_noted[i], 0);
}

/* ---- what the configuration says in each trace ----------------------------------------------- */

/* Marks as the CUPTI conflict is marked (NOTICE cupti_conflict, CAPTURE off "conflict" for
 * GPU activity), so `info`, `dump` and record's summary show it; NVTX gets its own CAPTURE
 * bit and an "other" notice. Trace only: `record` already said it on stderr, once for the
 * whole run rather than once per process. */
static void mark_foreign(void)
{
    char msg[4300];
    const char *cuda = ssc_setting(SST_SET_FOREIGN_CUDA_INJECTION)->text;
    const char *nvtx = ssc_setting(SST_SET_FOREIGN_NVTX_INJECTION)->text;
    if (cuda[0]) {
        snprintf(msg, sizeof msg,
                 "GPU activity was left to another tool (CUDA_INJECTION64_PATH=%s): it is not "
                 "recorded; NVTX and host data still are",
                 cuda);
        notice_record(SST_NOTICE_CUPTI_CONFLICT, SST_NOTE_WARN, msg);
        ssc_capture_record(0, SST_CAP_CONFLICT, SST_CAPTURE_GPU);
    }
    if (nvtx[0]) {
        snprintf(msg, sizeof msg,
                 "NVTX ranges were left to another tool (NVTX_INJECTION64_PATH=%s): step "
                 "markers and ranges are not recorded; GPU activity and host data still are",
                 nvtx);
        notice_record(SST_NOTICE_OTHER, SST_NOTE_WARN, msg);
        ssc_capture_record(0, SST_CAP_CONFLICT, SST_CAPTURE_NVTX);
    }
}

/* A setting that was not valid, said on stderr when it was read: a NOTICE in the trace too. */
static void mark_invalid(void)
{
    char msg[512];
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        const char *bad = ssc_setting_invalid((enum sst_setting_id)id);
        if (!bad) continue;
        sst_setting_problem((enum sst_setting_id)id, bad, msg, sizeof msg);
        notice_record(SST_NOTICE_OTHER, SST_NOTE_WARN, msg);
    }
}

void ssc_mark_config(void)
{
    mark_foreign();
    mark_invalid();
}
