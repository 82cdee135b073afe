/*
 * check_trace.c — reads the traces `stepscope record` left in a folder (with the trace reader
 * API) and checks them against what nvtx_prog.c recorded in a given mode.
 *
 *   check_trace MODE DIR [KILLTIME_FILE]
 *
 * Prints one line per failed expectation and exits 1 if any failed.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sst_reader.h"

#define MAX_FILES 32
#define MAX_MSGS 64

struct msg_count {
    char text[64];
    uint16_t type;
    uint64_t n;
};

struct tstats {
    char name[256];
    int closed, truncated, bad_chunks;
    uint64_t count[SST_REC_TYPE_LIMIT];
    uint32_t pid, ppid;
    uint64_t undefined_refs, dropped_host, last_nvtx_ts, i64_color_payloads;
    struct msg_count msgs[MAX_MSGS];
    int nmsgs;
    uint32_t notice_codes; /* bits */
    uint64_t step_begin_ts[16], step_end_ts[16];
    uint32_t step_sources; /* bits */
    uint64_t cap_on_ts, cap_off_ts;
    int thread_names;   /* THREAD records naming worker-N */
    int category_named; /* ENV nvtx.category.stepscope.1 = api */
    int env_cpu;
    int64_t header_offset, clock_off_min, clock_off_max; /* REALTIME - MONOTONIC */
    uint64_t clock_last_ts, clock_back;                  /* CLOCK records not after the last */
    uint32_t clock_max_spread;
};

static struct tstats g_files[MAX_FILES];
static int g_nfiles, g_failed;

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "FAIL: ");
    vfprintf(stdout, fmt, ap);
    fprintf(stdout, "\n");
    va_end(ap);
    g_failed = 1;
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) fail(__VA_ARGS__);                                                            \
    } while (0)

static const char *str(struct sst_reader *r, struct tstats *t, uint32_t id)
{
    if (id == SST_NO_STRING) return NULL;
    const char *s = sst_reader_string(r, id, NULL);
    if (!s) t->undefined_refs++;
    return s;
}

static void count_msg(struct tstats *t, uint16_t type, const char *text)
{
    if (!text) text = "";
    for (int i = 0; i < t->nmsgs; i++)
        if (t->msgs[i].type == type && strcmp(t->msgs[i].text, text) == 0) {
            t->msgs[i].n++;
            return;
        }
    if (t->nmsgs < MAX_MSGS) {
        struct msg_count *m = &t->msgs[t->nmsgs++];
        snprintf(m->text, sizeof m->text, "%s", text);
        m->type = type;
        m->n = 1;
    }
}

static uint64_t msgs(const struct tstats *t, uint16_t type, const char *text)
{
    for (int i = 0; i < t->nmsgs; i++)
        if (t->msgs[i].type == type && strcmp(t->msgs[i].text, text) == 0) return t->msgs[i].n;
    return 0;
}

static void on_nvtx(struct sst_reader *r, struct tstats *t, const struct sst_rec_nvtx *n)
{
    str(r, t, n->domain);
    count_msg(t, n->h.type, str(r, t, n->message));
    if (n->ts_ns > t->last_nvtx_ts) t->last_nvtx_ts = n->ts_ns;
    if (n->payload_type == SST_PAYLOAD_I64 && n->color == 0xFF00FF00u && n->category == 5)
        t->i64_color_payloads++;
}

static void on_step(struct tstats *t, const struct sst_rec_step *s)
{
    t->step_sources |= 1u << s->source;
    if (s->step < 16 && s->phase == SST_STEP_BEGIN) t->step_begin_ts[s->step] = s->ts_ns;
    if (s->step < 16 && s->phase == SST_STEP_END) t->step_end_ts[s->step] = s->ts_ns;
}

static void on_clock(struct tstats *t, const struct sst_rec_clock *c)
{
    int64_t off = (int64_t)(c->unix_ns - c->ts_ns);
    int first = t->count[SST_REC_CLOCK] == 1;
    if (first || off < t->clock_off_min) t->clock_off_min = off;
    if (first || off > t->clock_off_max) t->clock_off_max = off;
    t->clock_back += c->ts_ns <= t->clock_last_ts;
    t->clock_last_ts = c->ts_ns;
    if (c->spread_ns > t->clock_max_spread) t->clock_max_spread = c->spread_ns;
}

static void on_other(struct sst_reader *r, struct tstats *t, const struct sst_rec_header *h)
{
    if (h->type == SST_REC_PROCESS) {
        const struct sst_rec_process *p = (const void *)h;
        t->pid = p->pid;
        t->ppid = p->ppid;
        str(r, t, p->cmdline);
    } else if (h->type == SST_REC_THREAD) {
        const char *name = str(r, t, ((const struct sst_rec_thread *)(const void *)h)->name);
        t->thread_names += name && strncmp(name, "worker-", 7) == 0;
    } else if (h->type == SST_REC_ENV) {
        const struct sst_rec_env *e = (const void *)h;
        const char *k = str(r, t, e->key), *v = str(r, t, e->value);
        t->category_named |= k && v && !strcmp(k, "nvtx.category.stepscope.1") && !strcmp(v, "api");
        t->env_cpu |= k && !strcmp(k, "cpu_count");
    } else if (h->type == SST_REC_DROPPED) {
        const struct sst_rec_dropped *d = (const void *)h;
        if (d->source == SST_DROP_HOST_BUFFER) t->dropped_host += d->count;
    } else if (h->type == SST_REC_NOTICE) {
        const struct sst_rec_notice *n = (const void *)h;
        t->notice_codes |= 1u << (n->code & 31);
        str(r, t, n->message);
    } else if (h->type == SST_REC_CAPTURE) {
        const struct sst_rec_capture *c = (const void *)h;
        if (c->reason == SST_CAP_WINDOW && c->on) t->cap_on_ts = c->ts_ns;
        if (c->reason == SST_CAP_WINDOW && !c->on) t->cap_off_ts = c->ts_ns;
    } else if (h->type == SST_REC_CLOCK) {
        on_clock(t, (const void *)h);
    }
}

static void read_file(const char *dir, const char *name)
{
    if (g_nfiles == MAX_FILES) return;
    struct tstats *t = &g_files[g_nfiles++];
    snprintf(t->name, sizeof t->name, "%s", name);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct sst_reader *r;
    if (sst_reader_open(path, NULL, &r) < 0) {
        fail("%s: cannot open", name);
        return;
    }
    const struct sst_file_header *fh = sst_reader_header(r);
    t->header_offset = (int64_t)(fh->start_unix_ns - fh->start_mono_ns);
    const struct sst_rec_header *h;
    while (sst_reader_next(r, &h) == 1) {
        if (h->type < SST_REC_TYPE_LIMIT) t->count[h->type]++;
        if (h->type >= SST_REC_NVTX_PUSH && h->type <= SST_REC_NVTX_MARK)
            on_nvtx(r, t, (const void *)h);
        else if (h->type == SST_REC_STEP)
            on_step(t, (const void *)h);
        else
            on_other(r, t, h);
    }
    const struct sst_read_status *st = sst_reader_status(r);
    t->closed = st->closed;
    t->truncated = st->truncated;
    t->bad_chunks = (int)st->bad_chunks;
    sst_reader_close(r);
}

static void read_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fail("cannot open %s", dir);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 8 && strcmp(de->d_name + n - 8, ".sstrace") == 0) read_file(dir, de->d_name);
    }
    closedir(d);
}

/* Every trace: readable without damage, every string id defined, PROCESS present. */
static void check_common(const struct tstats *t)
{
    EXPECT(t->bad_chunks == 0, "%s: %d damaged chunks", t->name, t->bad_chunks);
    EXPECT(t->undefined_refs == 0, "%s: %llu references to undefined strings", t->name,
           (unsigned long long)t->undefined_refs);
    EXPECT(t->count[SST_REC_PROCESS] == 1, "%s: %llu PROCESS records", t->name,
           (unsigned long long)t->count[SST_REC_PROCESS]);
}

/* The parent is the file that has the workers' records; the child has "child-range". */
static void check_normal(void)
{
    EXPECT(g_nfiles == 2, "expected 2 traces (parent and fork child), found %d", g_nfiles);
    const struct tstats *p = NULL, *c = NULL;
    for (int i = 0; i < g_nfiles; i++) {
        if (msgs(&g_files[i], SST_REC_NVTX_PUSH, "work")) p = &g_files[i];
        if (msgs(&g_files[i], SST_REC_NVTX_PUSH, "child-range")) c = &g_files[i];
    }
    if (!p || !c || p == c) {
        fail("parent and child traces not found apart");
        return;
    }
    EXPECT(p->closed && c->closed, "traces not closed (END chunk): parent %d child %d", p->closed,
           c->closed);
    EXPECT(msgs(p, SST_REC_NVTX_PUSH, "work") == 400, "work pushes %llu != 400",
           (unsigned long long)msgs(p, SST_REC_NVTX_PUSH, "work"));
    EXPECT(msgs(p, SST_REC_NVTX_PUSH, "reg-msg") == 400, "registered-string pushes != 400");
    /* the dom-A pushes and the range-x starts carry them */
    EXPECT(p->i64_color_payloads == 800, "events with payload/colour/category: %llu != 800",
           (unsigned long long)p->i64_color_payloads);
    EXPECT(msgs(p, SST_REC_NVTX_START, "range-x") == 400, "range-x starts != 400");
    EXPECT(p->count[SST_REC_NVTX_END] == 400, "ends %llu != 400",
           (unsigned long long)p->count[SST_REC_NVTX_END]);
    EXPECT(p->count[SST_REC_NVTX_MARK] == 400, "marks != 400");
    EXPECT(msgs(p, SST_REC_NVTX_MARK, "mark-3") == 100, "mark-3 != 100 (reused buffer)");
    EXPECT(msgs(p, SST_REC_NVTX_PUSH, "wide-\xc3\xbc") == 1, "wide-string push missing");
    /* 400 work + 400 dom-A + 1 wide + 5 step + 5 data */
    EXPECT(p->count[SST_REC_NVTX_PUSH] == 811, "pushes %llu != 811",
           (unsigned long long)p->count[SST_REC_NVTX_PUSH]);
    EXPECT(p->count[SST_REC_NVTX_POP] == 811, "pops %llu != 811",
           (unsigned long long)p->count[SST_REC_NVTX_POP]);
    EXPECT(p->count[SST_REC_STEP] == 10, "STEP records %llu != 10",
           (unsigned long long)p->count[SST_REC_STEP]);
    EXPECT(p->step_sources == (1u << SST_STEPSRC_API), "step source not API");
    for (int s = 0; s < 5; s++)
        EXPECT(p->step_begin_ts[s] && p->step_end_ts[s] > p->step_begin_ts[s],
               "step %d not bracketed", s);
    EXPECT(p->thread_names >= 4, "worker thread names: %d", p->thread_names);
    EXPECT(p->category_named, "category name of the stepscope domain missing");
    EXPECT(p->count[SST_REC_NVTX_DOMAIN] >= 2, "NVTX_DOMAIN records missing");
    EXPECT(p->env_cpu, "ENV cpu_count missing");
    EXPECT(p->count[SST_REC_HOST_SAMPLE] >= 1, "no host sample");
    EXPECT(c->ppid == p->pid, "child's ppid %u != parent pid %u", c->ppid, p->pid);
    EXPECT(c->notice_codes & (1u << SST_NOTICE_FORKED), "child lacks the FORKED notice");
    EXPECT(!msgs(c, SST_REC_NVTX_PUSH, "work"), "parent records leaked into the child");
    check_common(p);
    check_common(c);
}

static void check_kill(const char *killfile)
{
    EXPECT(g_nfiles == 1, "expected 1 trace, found %d", g_nfiles);
    if (g_nfiles != 1) return;
    const struct tstats *t = &g_files[0];
    EXPECT(!t->closed, "a SIGKILLed process cannot have closed its trace");
    EXPECT(msgs(t, SST_REC_NVTX_MARK, "tick") > 100, "too few ticks: %llu",
           (unsigned long long)msgs(t, SST_REC_NVTX_MARK, "tick"));
    FILE *f = fopen(killfile, "r");
    unsigned long long kill_ns = 0;
    if (!f || fscanf(f, "%llu", &kill_ns) != 1) fail("no kill time in %s", killfile);
    if (f) fclose(f);
    /* At most ~1 s lost (flush every 500 ms plus one writer wake-up of 100 ms, and slack
     * for a loaded CI machine). */
    EXPECT(t->last_nvtx_ts + 1200000000ull >= kill_ns, "last record %.3f s before the kill",
           (double)(kill_ns - t->last_nvtx_ts) / 1e9);
    check_common(t);
}

static void check_term(void)
{
    EXPECT(g_nfiles == 1, "expected 1 trace, found %d", g_nfiles);
    if (g_nfiles != 1) return;
    const struct tstats *t = &g_files[0];
    EXPECT(t->closed, "trace not closed after SIGTERM");
    EXPECT(msgs(t, SST_REC_NVTX_PUSH, "before-term") >= 100, "records before SIGTERM missing");
    check_common(t);
}

static void check_flood(void)
{
    EXPECT(g_nfiles == 1, "expected 1 trace, found %d", g_nfiles);
    if (g_nfiles != 1) return;
    const struct tstats *t = &g_files[0];
    EXPECT(t->closed, "trace not closed");
    EXPECT(t->dropped_host > 0, "no DROPPED records under a tiny memory cap");
    EXPECT(t->notice_codes & (1u << SST_NOTICE_MEMORY_CAP), "no memory-cap notice");
    uint64_t kept = t->count[SST_REC_NVTX_PUSH] + t->count[SST_REC_NVTX_POP];
    EXPECT(kept + t->dropped_host >= 400000, "kept %llu + dropped %llu < 400000",
           (unsigned long long)kept, (unsigned long long)t->dropped_host);
    check_common(t);
}

static void check_steps(void)
{
    EXPECT(g_nfiles == 1, "expected 1 trace, found %d", g_nfiles);
    if (g_nfiles != 1) return;
    const struct tstats *t = &g_files[0];
    EXPECT(t->count[SST_REC_STEP] == 20, "STEP records %llu != 20",
           (unsigned long long)t->count[SST_REC_STEP]);
    /* --capture steps:2-4: on inside step 2's begin, off at step 4's end */
    EXPECT(t->cap_on_ts >= t->step_begin_ts[2] && t->cap_on_ts < t->step_end_ts[2],
           "capture did not switch on at step 2");
    EXPECT(t->cap_off_ts >= t->step_end_ts[4] && t->cap_off_ts < t->step_begin_ts[5],
           "capture did not switch off after step 4");
    check_common(t);
}

/* STEPSCOPE_CLOCK_MS=200 over 1.2 s: a pair at the start, at least 3 from the writer's rounds
 * and one at close, in order, all saying the same offset as the header (no clock was stepped
 * in a second) within 5 ms, each read in under 5 ms. */
static void check_clock(void)
{
    EXPECT(g_nfiles == 1, "expected 1 trace, found %d", g_nfiles);
    if (g_nfiles != 1) return;
    const struct tstats *t = &g_files[0];
    const int64_t ms5 = 5000000;
    EXPECT(t->closed, "trace not closed");
    EXPECT(t->count[SST_REC_CLOCK] >= 5, "CLOCK records %llu < 5",
           (unsigned long long)t->count[SST_REC_CLOCK]);
    EXPECT(t->clock_back == 0, "%llu CLOCK records not after the one before",
           (unsigned long long)t->clock_back);
    EXPECT(t->clock_off_max - t->clock_off_min < ms5, "CLOCK offsets %lld ns apart",
           (long long)(t->clock_off_max - t->clock_off_min));
    EXPECT(t->clock_off_min > t->header_offset - ms5 && t->clock_off_max < t->header_offset + ms5,
           "CLOCK offsets %lld..%lld, the header's %lld", (long long)t->clock_off_min,
           (long long)t->clock_off_max, (long long)t->header_offset);
    EXPECT(t->clock_max_spread < (uint32_t)ms5, "a CLOCK pair read over %u ns",
           t->clock_max_spread);
    check_common(t);
}

static void check_busy_exit(void)
{
    EXPECT(g_nfiles == 21, "expected 21 traces (parent and 20 children), found %d", g_nfiles);
    int children = 0;
    for (int i = 0; i < g_nfiles; i++) {
        const struct tstats *t = &g_files[i];
        EXPECT(t->closed, "%s: not closed", t->name);
        children += msgs(t, SST_REC_NVTX_MARK, "child") == 1 && !msgs(t, SST_REC_NVTX_PUSH, "spin");
        check_common(t);
    }
    EXPECT(children == 20, "%d clean child traces, expected 20", children);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: check_trace MODE DIR [KILLTIME_FILE]\n");
        return 2;
    }
    read_dir(argv[2]);
    const char *mode = argv[1];
    if (!strcmp(mode, "normal"))
        check_normal();
    else if (!strcmp(mode, "kill"))
        check_kill(argc > 3 ? argv[3] : "");
    else if (!strcmp(mode, "term"))
        check_term();
    else if (!strcmp(mode, "flood"))
        check_flood();
    else if (!strcmp(mode, "steps"))
        check_steps();
    else if (!strcmp(mode, "busy_exit"))
        check_busy_exit();
    else if (!strcmp(mode, "clock"))
        check_clock();
    else
        fail("unknown mode %s", mode);
    if (!g_failed) printf("ok: %s (%d trace%s)\n", mode, g_nfiles, g_nfiles == 1 ? "" : "s");
    return g_failed;
}
