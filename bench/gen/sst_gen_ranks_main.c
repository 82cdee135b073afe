/*
 * sst_gen_ranks_main.c — build/sst-gen-ranks: the traces of a synthetic DDP job, one per rank.
 *
 *   sst-gen-ranks -o DIR -n RANKS [--steps S] [--kernels K] [--straggler R --extra-ms MS]
 *                 [--seed N] [--no-launcher]
 *
 * Creates DIR (it must not exist) with gen-PID-rRANK.sstrace per rank and, unless
 * --no-launcher, gen-4999-launcher.sstrace (the torchrun process: rank -1, no GPU). See
 * sst_gen_ranks.c for the model. Exit 0, 1 on a write error, 2 on bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sst_gen_ranks.h"
#include "util/ss_error.h"

struct args {
    const char *dir;
    struct sst_gen_job_opts job;
    int launcher;
};

static int bad(const char *what)
{
    fprintf(stderr,
            "sst-gen-ranks: %s\nusage: sst-gen-ranks -o DIR -n RANKS [--steps S] [--kernels K] "
            "[--straggler R --extra-ms MS] [--seed N] [--no-launcher]\n",
            what);
    return 2;
}

static int number(const char *s, double max, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return errno || end == s || *end || *out < 0 || *out > max ? -1 : 0;
}

static int parse(int argc, char **argv, struct args *a)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"ranks", required_argument, 0, 'n'},
                                         {"steps", required_argument, 0, 's'},
                                         {"kernels", required_argument, 0, 'k'},
                                         {"straggler", required_argument, 0, 'S'},
                                         {"extra-ms", required_argument, 0, 'x'},
                                         {"seed", required_argument, 0, 'e'},
                                         {"no-launcher", no_argument, 0, 'L'},
                                         {0, 0, 0, 0}};
    *a = (struct args){NULL, {0, 50, 24, -1, 0, 1}, 1};
    for (int c; (c = getopt_long(argc, argv, "o:n:", opts, NULL)) != -1;) {
        double v = 0;
        if (c == 'o' || c == 'L') {
            a->dir = c == 'o' ? optarg : a->dir, a->launcher = c == 'o' ? a->launcher : 0;
            continue;
        }
        if (c == '?' || number(optarg, c == 'x' ? 1e6 : 1e9, &v) != 0) return bad("bad option");
        if (c == 'n') a->job.world_size = (uint32_t)v;
        if (c == 's') a->job.steps = (uint32_t)v;
        if (c == 'k') a->job.kernels = (uint32_t)v;
        if (c == 'S') a->job.straggler = (int32_t)v;
        if (c == 'x') a->job.extra_host_ns = (uint64_t)(v * 1e6);
        if (c == 'e') a->job.seed = (uint64_t)v;
    }
    if (!a->dir || !a->job.world_size || optind != argc) return bad("need -o DIR and -n RANKS");
    return 0;
}

static int write_all(const struct args *a, const struct sst_gen_job *j)
{
    char path[PATH_MAX];
    for (uint32_t r = 0; r < a->job.world_size; r++) {
        snprintf(path, sizeof path, "%s/gen-%" PRIu32 "-r%" PRIu32 ".sstrace", a->dir, 5000 + r, r);
        int rc = sst_gen_job_write_rank(j, r, path);
        if (rc) return fprintf(stderr, "sst-gen-ranks: %s: %s\n", path, ss_strerror(rc)), 1;
    }
    if (!a->launcher) return 0;
    snprintf(path, sizeof path, "%s/gen-4999-launcher.sstrace", a->dir);
    int rc = sst_gen_job_write_launcher(j, path);
    if (rc) return fprintf(stderr, "sst-gen-ranks: %s: %s\n", path, ss_strerror(rc)), 1;
    return 0;
}

int main(int argc, char **argv)
{
    struct args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc;
    if (mkdir(a.dir, 0777) != 0) {
        fprintf(stderr, "sst-gen-ranks: %s: %s\n", a.dir, strerror(errno));
        return 1;
    }
    struct sst_gen_job *j;
    rc = sst_gen_job_plan(&a.job, &j);
    if (rc) return bad(ss_strerror(rc));
    rc = write_all(&a, j);
    sst_gen_job_free(j);
    return rc;
}
