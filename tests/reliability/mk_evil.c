/*
 * mk_evil.c — a trace whose every string is an attack on some output (security tests,
 * run_security.sh). Usage: rel-mk-evil OUT STRINGS_OUT
 *
 * The strings (k_evil below) go into every string-bearing record: PROCESS host / command /
 * exe, THREAD, ENV, DEVICE, NVTX_DOMAIN, KERNEL names, NVTX messages and domains, NOTICE.
 * 12 steps, each with a kernel launched by an API call, a memcpy, an NVTX range: every part
 * of the report (breakdown, median step lanes, top kernels, findings) prints them.
 * STRINGS_OUT receives the strings as JSON (\u escapes for every byte that is not printable
 * ASCII, invalid bytes as \u00XX marked by a list of their indexes) for the checker to compare
 * what the JSON outputs decode to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sst_writer.h"

#define BASE_NS 1000000000ull
#define STEP_NS 1000000ull
#define PID 4242

static const char *const k_evil[] = {
    "</script><img src=x onerror=alert(1)>",
    "\"><svg onload=alert(2)>'&amp;&#x3c;<!--",
    "<style>*{display:none}</style><a href=\"javascript:alert(3)\">x</a>",
    "%s%s%s%n%n%p%x%99999999d",
    "ctl:\x01\x02\x07\x08\t\n\r\x0b\x0c\x1b[2J\x1b]0;title\x07\x7f|c1:\xc2\x85\xc2\x9b"
    "1m",
    "bad:\xff\xfe|overlong:\xc0\xaf|surrogate:\xed\xa0\x80|cut:\xe2\x82",
    "bidi:\xe2\x80\xae"
    "txt.exe|ls:\xe2\x80\xa8|ps:\xe2\x80\xa9|rlm:\xe2\x80\x8f",
    "quote:\" backslash:\\ slash:/ nul-ended",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)",
    "ProfilerStep#1",
    "",
};
#define N_EVIL (sizeof k_evil / sizeof k_evil[0])

static void *rec(struct sst_writer *w, uint16_t type, size_t size)
{
    void *p = sst_writer_reserve(w, type, size);
    if (!p) {
        fprintf(stderr, "rel-mk-evil: reserve failed\n");
        exit(1);
    }
    return p;
}

static uint32_t evil(struct sst_writer *w, size_t i)
{
    return sst_writer_intern_cstr(w, k_evil[i % N_EVIL]);
}

static void write_identity(struct sst_writer *w)
{
    struct sst_rec_process *p = rec(w, SST_REC_PROCESS, sizeof *p);
    p->pid = PID, p->ppid = 1, p->rank = p->local_rank = p->world_size = -1;
    p->hostname = evil(w, 1), p->cmdline = evil(w, 0), p->exe = evil(w, 4);
    p->start_ns = BASE_NS;
    for (size_t i = 0; i < N_EVIL; i++) {
        struct sst_rec_thread *t = rec(w, SST_REC_THREAD, sizeof *t);
        t->tid = PID + (uint32_t)i, t->name = evil(w, i), t->ts_ns = BASE_NS;
        struct sst_rec_env *e = rec(w, SST_REC_ENV, sizeof *e);
        e->key = evil(w, i), e->value = evil(w, i + 1);
        struct sst_rec_nvtx_domain *d = rec(w, SST_REC_NVTX_DOMAIN, sizeof *d);
        d->name = evil(w, i), d->ts_ns = BASE_NS;
        struct sst_rec_notice *n = rec(w, SST_REC_NOTICE, sizeof *n);
        n->level = 1, n->code = SST_NOTICE_OTHER, n->ts_ns = BASE_NS, n->message = evil(w, i);
    }
    struct sst_rec_device *d = rec(w, SST_REC_DEVICE, sizeof *d);
    d->device = 0, d->name = evil(w, 0), d->sm_count = 132, d->cc_major = 9;
}

static void write_step(struct sst_writer *w, uint64_t i)
{
    uint64_t t = BASE_NS + i * STEP_NS;
    struct sst_rec_step *s = rec(w, SST_REC_STEP, sizeof *s);
    s->phase = SST_STEP_BEGIN, s->source = SST_STEPSRC_API, s->ts_ns = t, s->step = i, s->tid = PID;
    struct sst_rec_nvtx *n = rec(w, SST_REC_NVTX_PUSH, sizeof *n);
    n->tid = PID, n->ts_ns = t + 10, n->message = evil(w, i), n->domain = evil(w, i + 3);
    n = rec(w, SST_REC_NVTX_MARK, sizeof *n);
    n->tid = PID, n->ts_ns = t + 20, n->message = evil(w, i + 5);
    n = rec(w, SST_REC_NVTX_POP, sizeof *n);
    n->tid = PID, n->ts_ns = t + 50000, n->domain = evil(w, i + 3);
    struct sst_rec_api *a = rec(w, SST_REC_API, sizeof *a);
    a->domain = SST_API_RUNTIME, a->start_ns = t + 100, a->end_ns = t + 5000, a->tid = PID;
    a->cbid = 211, a->correlation = (uint32_t)i * 2 + 1;
    struct sst_rec_kernel *k = rec(w, SST_REC_KERNEL, sizeof *k);
    k->name = evil(w, i), k->start_ns = t + 6000, k->end_ns = t + 400000;
    k->correlation = (uint32_t)i * 2 + 1, k->stream = 7;
    k->grid[0] = k->grid[1] = k->grid[2] = 1, k->block[0] = k->block[1] = k->block[2] = 1;
    struct sst_rec_memcpy *m = rec(w, SST_REC_MEMCPY, sizeof *m);
    m->copy_kind = SST_COPY_H2D, m->src_kind = SST_MEM_PAGEABLE, m->dst_kind = SST_MEM_DEVICE;
    m->start_ns = t + 410000, m->end_ns = t + 500000, m->bytes = 1 << 20, m->stream = 7;
    m->correlation = (uint32_t)i * 2 + 2;
    s = rec(w, SST_REC_STEP, sizeof *s);
    s->phase = SST_STEP_END, s->source = SST_STEPSRC_API, s->ts_ns = t + STEP_NS - 1000;
    s->step = i, s->tid = PID;
}

/* The strings as a JSON array of arrays of byte values (exact, whatever the bytes). */
static int write_strings(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputc('[', f);
    for (size_t i = 0; i < N_EVIL; i++) {
        fprintf(f, "%s[", i ? "," : "");
        for (size_t k = 0; k_evil[i][k]; k++)
            fprintf(f, "%s%u", k ? "," : "", (unsigned)(unsigned char)k_evil[i][k]);
        fputc(']', f);
    }
    fputs("]\n", f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: rel-mk-evil OUT STRINGS_OUT\n");
        return 2;
    }
    struct sst_writer_opts o = {.chunk_bytes = 4096,
                                .clock = SST_CLOCK_SYNTHETIC,
                                .features = SST_FEAT_SYNTHETIC | SST_FEAT_CUPTI | SST_FEAT_NVTX,
                                .pid = PID,
                                .start_mono_ns = BASE_NS,
                                .start_unix_ns = 1764436800ull * 1000000000ull};
    struct sst_writer *w;
    if (sst_writer_open(argv[1], &o, &w) != 0) {
        fprintf(stderr, "rel-mk-evil: cannot create %s\n", argv[1]);
        return 1;
    }
    write_identity(w);
    for (uint64_t i = 0; i < 12; i++)
        write_step(w, i);
    if (sst_writer_close(w, BASE_NS + 13 * STEP_NS) != 0 || write_strings(argv[2]) != 0) {
        fprintf(stderr, "rel-mk-evil: write failed\n");
        return 1;
    }
    return 0;
}
