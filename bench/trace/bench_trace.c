/*
 * bench_trace.c — build/bench-trace: throughput of the trace writer and reader (issue #2).
 *
 *   bench-trace [--records N] [--mix-records N] [--reps R] [--dir DIR]
 *
 * Single-threaded, so it measures one core:
 *   (a) writer: kernel-sized records (reserve + fill the fields a collector fills), no
 *       compression, to a file in DIR (default /tmp) and to /dev/null;
 *   (b) reader: every record of that file, touching each record's timestamp;
 *   (c) zstd levels 1 and 3 on the generator's realistic training mix: bytes per record on
 *       disk, writer rate (appending pre-generated records) and reader rate.
 * The cases run interleaved, R times each; each line gives median [min .. max].
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sst_gen_lib.h"
#include "trace/sst_crc32c.h"
#include "trace/sst_reader.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"

#define MAX_REPS 31

struct samples {
    const char *label;
    const char *unit;
    double v[MAX_REPS];
    int n;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int err)
{
    fprintf(stderr, "bench-trace: %s: %s\n", what, ss_strerror(err));
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(struct samples *s)
{
    qsort(s->v, (size_t)s->n, sizeof s->v[0], cmp_double);
    printf("  %-44s %9.2f %s  [%.2f .. %.2f]\n", s->label, s->v[s->n / 2], s->unit, s->v[0],
           s->v[s->n - 1]);
}

/* (a) Writes n kernel records as the collector would; returns seconds, open to close. */
static double write_kernels(int fd, uint64_t n)
{
    struct sst_writer *w;
    double t0 = now_s();
    int rc = sst_writer_open_fd(fd, NULL, &w);
    if (rc)
        die("open", rc);
    for (uint64_t i = 0; i < n; i++) {
        struct sst_rec_kernel *k = sst_writer_reserve(w, SST_REC_KERNEL, sizeof *k);
        if (!k)
            die("reserve", sst_writer_error(w));
        k->name = 1 + (uint32_t)(i & 31);
        k->start_ns = 1000000000ull + i * 5000;
        k->end_ns = k->start_ns + 4000;
        k->correlation = (uint32_t)i;
        k->stream = 7;
        k->grid[0] = 132, k->grid[1] = 1, k->grid[2] = 1;
        k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
        k->registers = 128;
    }
    rc = sst_writer_close(w, 0);
    if (rc)
        die("close", rc);
    return now_s() - t0;
}

static int create(const char *path)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

volatile uint64_t bench_sink;

/* (b) Reads every record of path; returns seconds and sets *records. */
static double read_file(const char *path, uint64_t *records)
{
    double t0 = now_s();
    struct sst_reader *r;
    int rc = sst_reader_open(path, NULL, &r);
    if (rc)
        die(path, rc);
    const struct sst_rec_header *h;
    uint64_t n = 0, sum = 0;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        n++;
        if (h->type == SST_REC_KERNEL)
            sum += ((const struct sst_rec_kernel *)(const void *)h)->start_ns;
    }
    if (rc < 0 || sst_reader_status(r)->bad_chunks || !sst_reader_status(r)->closed)
        die("read", rc ? rc : SS_ECORRUPT);
    sst_reader_close(r);
    double t = now_s() - t0;
    bench_sink = sum; /* the reader must really hand out every record's fields */
    *records = n;
    return t;
}

/* The realistic mix, generated once (untimed) and kept as concatenated records in memory. */
struct mix {
    uint8_t *recs;
    size_t bytes;
    uint64_t count;
};

static void make_mix(const char *dir, uint64_t n, struct mix *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-trace-mix.sst", dir);
    unlink(path);
    struct sst_writer_opts wo;
    sst_gen_writer_opts(&wo);
    struct sst_writer *w;
    int rc = sst_writer_open(path, &wo, &w);
    if (rc)
        die(path, rc);
    struct sst_gen_opts go = {.max_records = n, .seed = 1};
    struct sst_gen_result res;
    if ((rc = sst_gen_write(w, &go, &res)) != 0 || (rc = sst_writer_close(w, res.end_ns)) != 0)
        die("generate", rc);
    struct sst_reader *r;
    if ((rc = sst_reader_open(path, NULL, &r)) != 0)
        die(path, rc);
    size_t cap = 64u << 20;
    m->recs = malloc(cap);
    m->bytes = m->count = 0;
    const struct sst_rec_header *h;
    while (m->recs && sst_reader_next(r, &h) == 1) {
        if (m->bytes + h->size > cap)
            m->recs = realloc(m->recs, cap *= 2);
        if (m->recs)
            memcpy(m->recs + m->bytes, h, h->size), m->bytes += h->size, m->count++;
    }
    if (!m->recs)
        die("mix", SS_ENOMEM);
    sst_reader_close(r);
    unlink(path);
}

/* (c) Appends the mix to a new file with zstd at level; returns seconds, *file_bytes. */
static double write_mix(const char *path, const struct mix *m, int level, uint64_t *file_bytes)
{
    struct sst_writer_opts wo;
    sst_gen_writer_opts(&wo);
    if (level && sst_zstd_compressor_init(&wo.compressor, level) != 0)
        die("zstd", SS_ENOMEM);
    struct sst_writer *w;
    double t0 = now_s();
    int rc = sst_writer_open_fd(create(path), &wo, &w);
    if (rc)
        die(path, rc);
    for (size_t off = 0; off < m->bytes;) {
        const struct sst_rec_header *h = (const void *)(m->recs + off);
        if ((rc = sst_writer_append(w, h)) != 0)
            die("append", rc);
        off += h->size;
    }
    struct sst_writer_stats st;
    sst_writer_get_stats(w, &st);
    if ((rc = sst_writer_close(w, 0)) != 0)
        die("close", rc);
    double t = now_s() - t0;
    *file_bytes = st.file_bytes + 24 + sizeof(struct sst_end); /* + the END chunk */
    sst_zstd_compressor_free(&wo.compressor);
    return t;
}

struct config {
    uint64_t records, mix_records;
    int reps;
    const char *dir;
};

static void parse(int argc, char **argv, struct config *c)
{
    static const struct option lo[] = {{"records", required_argument, 0, 'n'},
                                       {"mix-records", required_argument, 0, 'm'},
                                       {"reps", required_argument, 0, 'r'},
                                       {"dir", required_argument, 0, 'd'},
                                       {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (o == 'n')
            c->records = strtoull(optarg, NULL, 10);
        else if (o == 'm')
            c->mix_records = strtoull(optarg, NULL, 10);
        else if (o == 'r')
            c->reps = atoi(optarg);
        else if (o == 'd')
            c->dir = optarg;
        else
            exit(2);
    }
    if (c->reps < 1 || c->reps > MAX_REPS || c->records < 1 || c->mix_records < 1) {
        fprintf(stderr, "bench-trace: --reps 1..%d, --records and --mix-records >= 1\n",
                MAX_REPS);
        exit(2);
    }
}

static const int LEVELS[] = {0, 1, 3}; /* 0: the mix without compression, for reference */
#define NLEVELS 3

struct results {
    struct samples w_file, w_null, r_file;
    struct samples mix_bpr[NLEVELS], mix_w[NLEVELS], mix_r[NLEVELS];
};

static void add(struct samples *s, double v)
{
    s->v[s->n++] = v;
}

/* One repetition of every case, in a fixed interleaved order. */
static void one_rep(const struct config *c, const struct mix *m, struct results *res)
{
    char path[4096];
    uint64_t n;
    snprintf(path, sizeof path, "%s/bench-trace-kernels.sst", c->dir);
    add(&res->w_file, c->records / write_kernels(create(path), c->records) / 1e6);
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    add(&res->w_null, c->records / write_kernels(null_fd, c->records) / 1e6);
    double t = read_file(path, &n);
    if (n != c->records)
        die("reader count", SS_ECORRUPT);
    add(&res->r_file, n / t / 1e6);
    unlink(path);
    for (int i = 0; i < NLEVELS; i++) {
        snprintf(path, sizeof path, "%s/bench-trace-mix-%d.sst", c->dir, LEVELS[i]);
        uint64_t bytes;
        add(&res->mix_w[i], m->count / write_mix(path, m, LEVELS[i], &bytes) / 1e6);
        add(&res->mix_bpr[i], (double)bytes / (double)m->count);
        add(&res->mix_r[i], m->count / read_file(path, &n) / 1e6);
        unlink(path);
    }
}

static void label(struct results *r)
{
    static char names[3 * NLEVELS][64];
    r->w_file = (struct samples){.label = "writer, kernel records, to file", .unit = "M rec/s"};
    r->w_null = (struct samples){.label = "writer, kernel records, to /dev/null",
                                 .unit = "M rec/s"};
    r->r_file = (struct samples){.label = "reader, kernel records, from file", .unit = "M rec/s"};
    for (int i = 0; i < NLEVELS; i++) {
        char zl[16] = "raw";
        if (LEVELS[i])
            snprintf(zl, sizeof zl, "zstd-%d", LEVELS[i]);
        snprintf(names[3 * i], 64, "mix %s: bytes per record on disk", zl);
        snprintf(names[3 * i + 1], 64, "mix %s: writer", zl);
        snprintf(names[3 * i + 2], 64, "mix %s: reader", zl);
        r->mix_bpr[i] = (struct samples){.label = names[3 * i], .unit = "B/rec  "};
        r->mix_w[i] = (struct samples){.label = names[3 * i + 1], .unit = "M rec/s"};
        r->mix_r[i] = (struct samples){.label = names[3 * i + 2], .unit = "M rec/s"};
    }
}

/* Which CRC32C code runs here (sst_crc32c.c folds with VPCLMULQDQ when AVX-512 has it). */
static const char *crc_path(void)
{
    if (!sst_crc32c_hw_available())
        return "table";
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq"))
        return "vpclmulqdq folding (sse4.2 under 512 B)";
#endif
    return "sse4.2";
}

int main(int argc, char **argv)
{
    struct config c = {20000000, 5000000, 5, "/tmp"};
    parse(argc, argv, &c);
    struct mix m;
    make_mix(c.dir, c.mix_records, &m);
    printf("bench-trace: %" PRIu64 " kernel records (%zu B each), mix of %" PRIu64
           " records (%.1f B/rec raw), %d repetitions, dir %s, crc32c %s\n",
           c.records, sizeof(struct sst_rec_kernel), m.count, (double)m.bytes / m.count, c.reps,
           c.dir, crc_path());
    struct results res;
    label(&res);
    for (int i = 0; i < c.reps; i++)
        one_rep(&c, &m, &res);
    printf("median [min .. max] over %d repetitions:\n", c.reps);
    report(&res.w_file);
    report(&res.w_null);
    report(&res.r_file);
    for (int i = 0; i < NLEVELS; i++) {
        report(&res.mix_bpr[i]);
        report(&res.mix_w[i]);
        report(&res.mix_r[i]);
    }
    free(m.recs);
    return 0;
}
