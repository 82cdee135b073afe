/*
 * sst_gen.c — build/sst-gen, the stepscope synthetic trace generator.
 *
 *   sst-gen -o FILE [--records N | --bytes SIZE | --steps K] [--zstd LEVEL] [--seed S]
 *   sst-gen --demo -o FILE
 *
 * Writes a trace with a realistic training mix (see sst_gen_lib.c). The same options always
 * give the same bytes. --demo writes the small fixed trace the README's first command uses
 * (8 steps, no compression).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sst_gen_lib.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"

struct args {
    const char *out;
    struct sst_gen_opts gen;
    int zstd_level; /* 0: none */
};

static void usage(FILE *to)
{
    fprintf(to, "usage: sst-gen -o FILE [--records N | --bytes SIZE | --steps K] [--zstd LEVEL]"
                " [--seed S]\n       sst-gen --demo -o FILE\n"
                "stepscope synthetic trace generator: writes a trace with a realistic training"
                " mix.\nSIZE takes a K, M or G suffix (powers of 1024).\n");
}

/* Parses a non-negative number with an optional K/M/G suffix; -1 when malformed. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int bad_value(const char *flag, const char *v)
{
    fprintf(stderr, "sst-gen: invalid value for %s: '%s'\n", flag, v);
    return 2;
}

/* Fills a from argv; returns 0, or the exit status to leave with. */
static int parse_args(int argc, char **argv, struct args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"records", required_argument, 0, 'r'},
        {"bytes", required_argument, 0, 'b'},  {"steps", required_argument, 0, 'k'},
        {"zstd", required_argument, 0, 'z'},   {"seed", required_argument, 0, 's'},
        {"demo", no_argument, 0, 'd'},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    uint64_t v;
    a->gen.seed = 1;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'o') {
            a->out = optarg;
        } else if (c == 'd') {
            a->gen.steps = 8;
        } else if (c == 'h') {
            usage(stdout);
            return -1;
        } else if (c == '?') {
            usage(stderr);
            return 2;
        } else if (parse_size(optarg, &v) != 0) {
            return bad_value(argv[optind - 1], optarg);
        } else if (c == 'r') {
            a->gen.max_records = v;
        } else if (c == 'b') {
            a->gen.max_bytes = v;
        } else if (c == 'k') {
            a->gen.steps = v;
        } else if (c == 's') {
            a->gen.seed = v;
        } else if (c == 'z') {
            if (v < 1 || v > 19)
                return bad_value("--zstd (1..19)", optarg);
            a->zstd_level = (int)v;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sst-gen: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!a->out) {
        fprintf(stderr, "sst-gen: -o FILE is required\n");
        return 2;
    }
    if (!a->gen.steps && !a->gen.max_records && !a->gen.max_bytes)
        a->gen.steps = 100;
    return 0;
}

static int generate(const struct args *a)
{
    struct sst_writer_opts wo;
    sst_gen_writer_opts(&wo);
    if (a->zstd_level && sst_zstd_compressor_init(&wo.compressor, a->zstd_level) != 0) {
        fprintf(stderr, "sst-gen: %s\n", ss_strerror(SS_ENOMEM));
        return 1;
    }
    struct sst_writer *w;
    int rc = sst_writer_open(a->out, &wo, &w);
    if (rc == 0) {
        struct sst_gen_result res;
        rc = sst_gen_write(w, &a->gen, &res);
        struct sst_writer_stats st;
        sst_writer_get_stats(w, &st);
        int crc = sst_writer_close(w, res.end_ns);
        rc = rc ? rc : crc;
        if (rc == 0)
            printf("%s: %" PRIu64 " steps, %" PRIu64 " kernels, %" PRIu64 " records, %" PRIu64
                   " strings\n",
                   a->out, res.steps, res.kernels, st.records, st.strings);
    }
    sst_zstd_compressor_free(&wo.compressor);
    if (rc != 0)
        fprintf(stderr, "sst-gen: %s: %s\n", a->out, ss_strerror(rc));
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    return generate(&a);
}
