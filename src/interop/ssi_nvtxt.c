/*
 * ssi_nvtxt.c — stepscope trace -> NVTXT, the text form of NVTX that Nsight Systems' ImportNvtxt
 * turns into a report or merges into one (`ImportNvtxt --cmd merge`).
 *
 * What is written, in the trace's own process id:
 *   - a track "stepscope: steps" (pseudo thread SSI_NVTXT_STEPS_TID): one push/pop range per
 *     step, its message the step's time and largest categories;
 *   - a track "stepscope: attribution" (SSI_NVTXT_ATTR_TID): inside each step, one range per
 *     category, as long as the time the attribution gave it, laid end to end in the
 *     categories' priority order from the step's start. A stacked bar: the lengths are exact
 *     and sum to the step; the positions inside the step are not when the time was spent;
 *   - the trace's NVTX ranges and marks on their own threads (push/pop as RangePush/RangePop,
 *     start/end as RangeStartEnd, marks as Marker), messages prefixed "domain:".
 *
 * The format (docs/interop.md has the details and what was and was not verified): one
 * instruction or comment per line; "#" comments; "Name = value" variables; "@Instr, P1, P2..."
 * declares the explicit parameters of an instruction; "Instr, v1, v2..." calls it. Every
 * string is written in double quotes; as the grammar's escapes are not documented, the text
 * is made safe instead: '"' -> '\'', '\\' -> '/', ',' -> ';', control characters and invalid
 * UTF-8 -> ' ' / '?'. Thread ids are 24-bit in NVTXT (cut like nsys's globalTid). Times are
 * integers in ns; on each thread they never decrease (a late record is moved to the last
 * time written, and counted in the trailing comment).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ssa.h"
#include "interop/ssi.h"
#include "interop/ssi_window.h"
#include "interop/ssi_nsys.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"

#ifndef STEPSCOPE_VERSION
#define STEPSCOPE_VERSION "0.1.0"
#endif

#define SSI_NVTXT_STEPS_TID 0xFFFFF0u /* pseudo threads: above any Linux tid (22 bits) */
#define SSI_NVTXT_ATTR_TID 0xFFFFF1u
#define SSI_NVTXT_TEXT_MAX 1024
#define CAT_STEP 1 /* CategoryId of the stepscope tracks; NVTX keeps its own categories */
#define CAT_ATTR 2

struct nt_thread { /* per real thread: last time written and open push count */
    uint32_t tid;
    uint64_t last;
    uint64_t depth;
};

struct nt_open { /* an NVTX start/end range waiting for its end */
    uint64_t range_id;
    uint32_t tid;
    struct sst_rec_nvtx start;
};

struct nt {
    FILE *f;
    struct sst_reader *r;
    struct ssi_window *win; /* the part written (NULL: all) */
    uint32_t pid;
    struct nt_thread *threads;
    size_t n_threads, cap_threads;
    struct nt_open *opens;
    size_t n_opens, cap_opens;
    uint64_t t_last, moved, dropped_pops, unended;
    int rc;
};

/* ---- text ---- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] < 0x80) return 1;
    if (!k || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    return k;
}

/* A string argument: quoted, made safe (see the file comment), at most SSI_NVTXT_TEXT_MAX. */
static void put_text(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t out = 0;
    fputc('"', f);
    for (size_t i = 0; i < n && out < SSI_NVTXT_TEXT_MAX;) {
        size_t k = utf8_len(u + i, n - i);
        if (k > 1) {
            fwrite(u + i, 1, k, f);
            i += k, out += k;
            continue;
        }
        unsigned char c = u[i++];
        fputc(!k                      ? '?'
              : c == '"'              ? '\''
              : c == '\\'             ? '/'
              : c == ','              ? ';'
              : c < 0x20 || c == 0x7f ? ' '
                                      : c,
              f);
        out++;
    }
    fputc('"', f);
}

static const char *str_of(const struct nt *t, uint32_t id, uint32_t *len)
{
    const char *s = id ? sst_reader_string(t->r, id, len) : NULL;
    if (!s) *len = 0;
    return s ? s : "";
}

/* "domain:message #payload" of an NVTX record (the default domain has no prefix; only integer
 * payloads are shown, e.g. the step number of a "stepscope:step" range). */
static void put_message(struct nt *t, const struct sst_rec_nvtx *r)
{
    char buf[SSI_NVTXT_TEXT_MAX + 32];
    uint32_t dl, ml;
    const char *d = str_of(t, r->domain, &dl), *m = str_of(t, r->message, &ml);
    int n = snprintf(buf, sizeof buf, "%.*s%s%.*s", (int)(dl < 256 ? dl : 256), d, dl ? ":" : "",
                     (int)(ml < SSI_NVTXT_TEXT_MAX ? ml : SSI_NVTXT_TEXT_MAX), m);
    if (n > 0 && (size_t)n < sizeof buf - 24) {
        if (r->payload_type == SST_PAYLOAD_U64 || r->payload_type == SST_PAYLOAD_U32)
            n += snprintf(buf + n, sizeof buf - (size_t)n, " #%" PRIu64, r->payload);
        else if (r->payload_type == SST_PAYLOAD_I64 || r->payload_type == SST_PAYLOAD_I32)
            n += snprintf(buf + n, sizeof buf - (size_t)n, " #%" PRId64,
                          r->payload_type == SST_PAYLOAD_I64
                              ? (int64_t)r->payload
                              : (int64_t)(int32_t)(uint32_t)r->payload);
    }
    put_text(t->f, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ---- threads ---- */

static struct nt_thread *thread_of(struct nt *t, uint32_t tid)
{
    tid &= 0xFFFFFFu;
    for (size_t i = 0; i < t->n_threads; i++)
        if (t->threads[i].tid == tid) return &t->threads[i];
    if (t->n_threads == t->cap_threads) {
        size_t cap = t->cap_threads ? t->cap_threads * 2 : 16;
        struct nt_thread *v = realloc(t->threads, cap * sizeof *v);
        if (!v) return t->rc = SS_ENOMEM, NULL;
        t->threads = v, t->cap_threads = cap;
    }
    struct nt_thread *th = &t->threads[t->n_threads++];
    *th = (struct nt_thread){tid, 0, 0};
    return th;
}

/* The time to write for an event on th: never before the thread's last one. */
static uint64_t at(struct nt *t, struct nt_thread *th, uint64_t ts)
{
    if (ts < th->last) ts = th->last, t->moved++;
    th->last = ts;
    if (ts > t->t_last) t->t_last = ts;
    return ts;
}

/* ---- the header ---- */

static const char *time_base(const struct sst_file_header *h)
{
    return h->clock == SST_CLOCK_MONOTONIC_RAW ? "ClockMonotonicRaw" : "Manual";
}

static void write_header(struct nt *t, const char *in_path, const struct ssa_result *res)
{
    const struct sst_file_header *h = sst_reader_header(t->r);
    FILE *f = t->f;
    fputs("# NVTXT written by stepscope " STEPSCOPE_VERSION " (stepscope export --format nvtxt)\n",
          f);
    fputs("# source: ", f);
    for (const char *p = in_path; *p; p++)
        fputc((unsigned char)*p < 0x20 ? '?' : *p, f);
    fprintf(f,
            "\n# process %" PRIu32 "; trace clock %u (1 monotonic, 2 monotonic_raw); "
            "times are the trace's nanoseconds\n",
            t->pid, h->clock);
    fprintf(f,
            "# steps: %zu (%s, %zu warm-up); tracks: ThreadId %u steps, %u attribution "
            "(per-step totals laid end to end)\n",
            res->n_steps, ssa_step_source_name(res->step_source), res->n_warmup,
            SSI_NVTXT_STEPS_TID, SSI_NVTXT_ATTR_TID);
    fputs("SetFileDisplayName, \"stepscope\"\n"
          "@NameProcess, ProcessId, Name\n"
          "@NameOsThread, ProcessId, ThreadId, Name\n"
          "@RangePush, Time, ProcessId, ThreadId, CategoryId, Color, Message\n"
          "@RangePop, Time, ProcessId, ThreadId\n"
          "@RangeStartEnd, Start, End, ProcessId, ThreadId, CategoryId, Color, Message\n"
          "@Marker, Time, ProcessId, ThreadId, CategoryId, Color, Message\n",
          f);
    fprintf(f, "TimeBase = %s\n", time_base(h));
    fprintf(f, "NameProcess, %" PRIu32 ", ", t->pid);
    put_text(f, res->cmdline ? res->cmdline : "stepscope", res->cmdline ? strlen(res->cmdline) : 9);
    fprintf(f, "\nNameOsThread, %" PRIu32 ", %u, \"stepscope: steps\"\n", t->pid,
            SSI_NVTXT_STEPS_TID);
    fprintf(f, "NameOsThread, %" PRIu32 ", %u, \"stepscope: attribution\"\n", t->pid,
            SSI_NVTXT_ATTR_TID);
}

/* ---- steps and their attribution ---- */

/* ARGB per category: the argb column of SSA_CATS (compute green, comm purple, copies orange,
 * memset brown, then the GPU-idle causes: data red, sync yellow, alloc pink, launch blue, host
 * grey). */
static uint32_t cat_color(int c)
{
    static const uint32_t argb[SSA_CAT_COUNT] = {
#define SSI_X_ARGB(id, name, glyph, ansi, fill, argb, text) [SSA_CAT_##id] = argb,
        SSA_CATS(SSI_X_ARGB)
#undef SSI_X_ARGB
    };
    return argb[c];
}

static void push(struct nt *t, uint32_t tid, uint64_t ts, int cat, uint32_t color, const char *msg)
{
    fprintf(t->f, "RangePush, %" PRIu64 ", %" PRIu32 ", %u, %d, 0x%08X, ", ts, t->pid, tid, cat,
            color);
    put_text(t->f, msg, strlen(msg));
    fputc('\n', t->f);
}

static void pop(struct nt *t, uint32_t tid, uint64_t ts)
{
    fprintf(t->f, "RangePop, %" PRIu64 ", %" PRIu32 ", %u\n", ts, t->pid, tid);
}

/* "step 12: 42.10 ms | GPU busy 35% | data 24.30 ms | compute.gemm_tc 10.20 ms | ..." (the
 * three largest categories; no commas, which the text filter would turn into ';') */
static void step_message(const struct ssa_step *st, char *buf, size_t cap)
{
    uint64_t dur = st->end_ns - st->begin_ns, busy = 0;
    for (int c = 0; c < SSA_CAT_FIRST_IDLE; c++)
        busy += st->cat_ns[c];
    int n = snprintf(buf, cap, "step %" PRIu64 "%s: %.2f ms | GPU busy %.0f%%", st->number,
                     st->warmup ? " (warm-up)" : "", (double)dur / 1e6,
                     dur ? 100.0 * (double)busy / (double)dur : 0.0);
    int used[SSA_CAT_COUNT] = {0};
    for (int k = 0; k < 3 && n > 0 && (size_t)n < cap; k++) {
        int best = -1;
        for (int c = 0; c < SSA_CAT_COUNT; c++)
            if (!used[c] && st->cat_ns[c] && (best < 0 || st->cat_ns[c] > st->cat_ns[best]))
                best = c;
        if (best < 0) break;
        used[best] = 1;
        n += snprintf(buf + n, cap - (size_t)n, " | %s %.2f ms", ssa_cat_name(best),
                      (double)st->cat_ns[best] / 1e6);
    }
}

static void write_step(struct nt *t, const struct ssa_step *st)
{
    char msg[256];
    step_message(st, msg, sizeof msg);
    push(t, SSI_NVTXT_STEPS_TID, st->begin_ns, CAT_STEP, 0xFF3B78D8u, msg);
    pop(t, SSI_NVTXT_STEPS_TID, st->end_ns);
    uint64_t ts = st->begin_ns, dur = st->end_ns - st->begin_ns;
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (!st->cat_ns[c]) continue;
        snprintf(msg, sizeof msg, "%s %.3f ms (%.1f%%)", ssa_cat_name(c),
                 (double)st->cat_ns[c] / 1e6,
                 dur ? 100.0 * (double)st->cat_ns[c] / (double)dur : 0);
        push(t, SSI_NVTXT_ATTR_TID, ts, CAT_ATTR, cat_color(c), msg);
        ts += st->cat_ns[c];
        pop(t, SSI_NVTXT_ATTR_TID, ts);
    }
    if (st->end_ns > t->t_last) t->t_last = st->end_ns;
}

static void write_steps(struct nt *t, const struct ssa_result *res)
{
    if (res->step_source == SSA_STEPS_NONE || !res->steps) {
        fputs("# no steps: the trace has no step markers and no periodic kernel sequence\n", t->f);
        return;
    }
    uint64_t last = 0;
    for (size_t i = 0; i < res->n_steps; i++) {
        const struct ssa_step *st = &res->steps[i];
        if (st->end_ns < st->begin_ns || st->begin_ns < last) continue; /* sorted, disjoint */
        if (!ssi_window_overlaps(t->win, st->begin_ns, st->end_ns)) continue;
        write_step(t, st);
        last = st->end_ns;
    }
}

/* ---- the trace's NVTX ---- */

static void on_thread(struct nt *t, const struct sst_rec_header *h)
{
    struct sst_rec_thread r;
    sst_rec_load(h, &r, sizeof r);
    uint32_t len;
    const char *s = str_of(t, r.name, &len);
    if (!len) return;
    fprintf(t->f, "NameOsThread, %" PRIu32 ", %" PRIu32 ", ", t->pid, r.tid & 0xFFFFFFu);
    put_text(t->f, s, len);
    fputc('\n', t->f);
}

static void event_line(struct nt *t, const char *instr, uint64_t ts, uint32_t tid,
                       const struct sst_rec_nvtx *n)
{
    fprintf(t->f, "%s, %" PRIu64 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", 0x%08" PRIX32 ", ",
            instr, ts, t->pid, tid, n->category, n->color);
    put_message(t, n);
    fputc('\n', t->f);
}

static void on_push_pop(struct nt *t, const struct sst_rec_header *h, const struct sst_rec_nvtx *n)
{
    struct nt_thread *th = thread_of(t, n->tid);
    if (!th) return;
    if (h->type == SST_REC_NVTX_PUSH) {
        event_line(t, "RangePush", at(t, th, n->ts_ns), th->tid, n);
        th->depth++;
    } else if (!th->depth) {
        t->dropped_pops++; /* a pop without its push: NVTXT would not balance */
    } else {
        pop(t, th->tid, at(t, th, n->ts_ns));
        th->depth--;
    }
}

static void on_start(struct nt *t, const struct sst_rec_nvtx *n)
{
    if (t->n_opens == t->cap_opens) {
        size_t cap = t->cap_opens ? t->cap_opens * 2 : 64;
        struct nt_open *v = realloc(t->opens, cap * sizeof *v);
        if (!v) return (void)(t->rc = SS_ENOMEM);
        t->opens = v, t->cap_opens = cap;
    }
    t->opens[t->n_opens++] = (struct nt_open){n->range_id, n->tid, *n};
}

/* An end writes its whole range (RangeStartEnd carries both times). Searched from the newest:
 * start/end ranges are few and short-lived in training programs. */
static void on_end(struct nt *t, const struct sst_rec_nvtx *n)
{
    for (size_t i = t->n_opens; i-- > 0;) {
        struct nt_open o = t->opens[i];
        if (o.range_id != n->range_id) continue;
        t->opens[i] = t->opens[--t->n_opens];
        const struct sst_rec_nvtx *s = &o.start;
        uint64_t end = n->ts_ns < s->ts_ns ? s->ts_ns : n->ts_ns;
        fprintf(t->f,
                "RangeStartEnd, %" PRIu64 ", %" PRIu64 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32
                ", 0x%08" PRIX32 ", ",
                s->ts_ns, end, t->pid, o.tid & 0xFFFFFFu, s->category, s->color);
        put_message(t, s);
        fputc('\n', t->f);
        if (end > t->t_last) t->t_last = end;
        return;
    }
    t->dropped_pops++;
}

static void on_record(struct nt *t, const struct sst_rec_header *h)
{
    struct sst_rec_nvtx n;
    switch (h->type) {
    case SST_REC_THREAD:
        on_thread(t, h);
        return;
    case SST_REC_NVTX_PUSH:
    case SST_REC_NVTX_POP:
    case SST_REC_NVTX_START:
    case SST_REC_NVTX_END:
    case SST_REC_NVTX_MARK:
        break;
    default:
        return;
    }
    sst_rec_load(h, &n, sizeof n);
    if (h->type == SST_REC_NVTX_START) {
        on_start(t, &n);
    } else if (h->type == SST_REC_NVTX_END) {
        on_end(t, &n);
    } else if (h->type != SST_REC_NVTX_MARK) {
        on_push_pop(t, h, &n);
    } else {
        struct nt_thread *th = thread_of(t, n.tid);
        if (th) event_line(t, "Marker", at(t, th, n.ts_ns), th->tid, &n);
    }
}

/* Pushes still open at the end are closed at the last time written, so the file balances. */
static void write_tail(struct nt *t)
{
    for (size_t i = 0; i < t->n_threads; i++) {
        struct nt_thread *th = &t->threads[i];
        for (; th->depth; th->depth--, t->unended++)
            pop(t, th->tid, at(t, th, t->t_last));
    }
    fprintf(t->f,
            "# end: %" PRIu64 " ranges closed at the end, %" PRIu64 " start/end ranges "
            "never ended, %" PRIu64 " unmatched pops/ends dropped, %" PRIu64 " late events moved\n",
            t->unended, (uint64_t)t->n_opens, t->dropped_pops, t->moved);
    struct sst_damage d; /* the ranges are of what could be read: said where a reader looks */
    char line[1024];
    sst_reader_damage(t->r, &d);
    if (d.any)
        fprintf(t->f, "# damaged input: %s\n", sst_damage_describe(&d, line, sizeof line));
}

/* ---- the file ---- */

static int write_nvtxt(struct nt *t, const char *in_path, const struct ssa_result *res, char *err,
                       size_t errlen)
{
    write_header(t, in_path, res);
    write_steps(t, res);
    const struct sst_rec_header *h;
    int rc;
    while (!t->rc && (rc = ssi_window_next(t->r, t->win, &h)) == 1)
        on_record(t, h);
    if (!t->rc && rc < 0) t->rc = rc;
    write_tail(t);
    if (t->rc) ssi_nsys_err(err, errlen, "cannot read the trace: %s", ss_strerror(t->rc));
    return t->rc;
}

static int write_file(struct nt *t, const char *in_path, const char *out_path,
                      const struct ssa_result *res, char *err, size_t errlen)
{
    size_t cap = strlen(out_path) + 16;
    char *tmp = malloc(cap);
    int fd = tmp ? ssi_nsys_tmp_create(out_path, tmp, cap, err, errlen) : SS_ENOMEM;
    if (fd < 0) return free(tmp), fd;
    t->f = fdopen(fd, "w");
    int rc = t->f ? write_nvtxt(t, in_path, res, err, errlen) : SS_ENOMEM;
    if (!t->f) close(fd);
    if (t->f && (ferror(t->f) | fclose(t->f)) && !rc) {
        rc = ss_from_errno(errno); /* the failed write's (a full disk): the CLI names the output */
        ssi_nsys_err(err, errlen, "%s", ss_strerror(rc));
    }
    if (!rc)
        rc = ssi_nsys_tmp_commit(tmp, out_path, err, errlen);
    else
        unlink(tmp);
    free(tmp);
    return rc;
}

int ssi_nvtxt_export_reader(const struct ssi_export_in *in, const char *out_path, char *err,
                            size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    const struct ssa_result *res = in->res;
    struct nt t = {.r = in->r, .win = in->win};
    int rc = ssi_window_rewind(in->r, in->win);
    if (rc) {
        ssi_nsys_err(err, errlen, "cannot read the trace: %s", ss_strerror(rc));
    } else {
        t.pid = res->pid ? res->pid : sst_reader_header(t.r)->pid;
        t.t_last = res->last_ns; /* open pushes are closed at the trace's last time */
        rc = write_file(&t, in->source, out_path, res, err, errlen);
    }
    free(t.threads);
    free(t.opens);
    return rc;
}

const struct ssi_exporter ssi_export_nvtxt = {
    "nvtxt", ".nvtxt",
    "NVTXT text (Nsight Systems' ImportNvtxt): the steps, their attributed\n"
    "time per category, and the trace's NVTX ranges.",
    1, NULL, ssi_nvtxt_export_reader, 0, 4};
