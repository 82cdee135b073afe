/*
 * sst_multihost_main.c — the sst-multihost command (sst_multihost.h says what it writes).
 */
#include <getopt.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sst_multihost.h"

static const char usage[] =
    "usage: sst-multihost -o DIR --hosts N --ranks-per-host M [options] RANK_TRACE...\n"
    "Writes N x M copies of the rank traces (local rank l copies the l-th mod their count)\n"
    "as DIR/nodeHH-rR.sstrace, rank R = host x M + l, one clock per host:\n"
    "  --offset-s A,B,...   each host's MONOTONIC offset, seconds (missing: 0)\n"
    "  --drift-ppm A,B,...  each host's MONOTONIC drift, ppm about the first trace's start\n"
    "  --ntp-us A,B,...     each host's wall-clock (REALTIME) error, microseconds\n"
    "  --host-prefix P      hostnames P00, P01, ... (default node)\n"
    "  --slow-host H --delay-us D  host H's collective kernels start D us later (at most\n"
    "                       their end): it arrives last, the collectives end as they did\n"
    "  --jitter-us J        every copy's collective kernels moved by up to +-J us (uniform)\n";

/* "1.5,-2,0": one field (byte offset `field` of struct smh_host) of hosts 0, 1, 2...; the
 * others keep theirs. -1 on a bad number or too many. */
static int parse_list(const char *s, size_t field, struct smh_host *clk)
{
    for (size_t i = 0; *s; i++) {
        char *end;
        double x = strtod(s, &end);
        if (end == s || (*end && *end != ',') || i >= SMH_MAX_HOSTS) return -1;
        memcpy((char *)&clk[i] + field, &x, sizeof x);
        s = *end ? end + 1 : end;
    }
    return 0;
}

enum { O_OFF = 256, O_DRIFT, O_NTP, O_PREFIX, O_SLOW, O_DELAY, O_HOSTS, O_RPH, O_JITTER };

static const struct option longopts[] = {
    {"offset-s", required_argument, 0, O_OFF},   {"drift-ppm", required_argument, 0, O_DRIFT},
    {"ntp-us", required_argument, 0, O_NTP},     {"host-prefix", required_argument, 0, O_PREFIX},
    {"slow-host", required_argument, 0, O_SLOW}, {"delay-us", required_argument, 0, O_DELAY},
    {"hosts", required_argument, 0, O_HOSTS},    {"ranks-per-host", required_argument, 0, O_RPH},
    {"jitter-us", required_argument, 0, O_JITTER}, {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};

/* The list options' field in struct smh_host. */
static size_t field_of(int c)
{
    return c == O_OFF ? offsetof(struct smh_host, offset_s)
           : c == O_DRIFT ? offsetof(struct smh_host, drift_ppm)
                          : offsetof(struct smh_host, ntp_us);
}

int main(int argc, char **argv)
{
    static struct smh_host clk[SMH_MAX_HOSTS]; /* lists fill it; unused hosts stay 0 */
    struct smh_opts o = {.slow_host = -1, .clock = clk};
    int c;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        int bad = 0;
        if (c == 'o') o.out_dir = optarg;
        else if (c == O_OFF || c == O_DRIFT || c == O_NTP)
            bad = parse_list(optarg, field_of(c), clk);
        else if (c == O_PREFIX) o.host_prefix = optarg;
        else if (c == O_SLOW) o.slow_host = strtol(optarg, NULL, 10);
        else if (c == O_DELAY) o.delay_us = strtod(optarg, NULL);
        else if (c == O_JITTER) o.jitter_us = strtod(optarg, NULL);
        else if (c == O_HOSTS) o.hosts = strtoul(optarg, NULL, 10);
        else if (c == O_RPH) o.ranks_per_host = strtoul(optarg, NULL, 10);
        else {
            fputs(usage, c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
        if (bad) {
            fprintf(stderr, "sst-multihost: bad list '%s'\n%s", optarg, usage);
            return 2;
        }
    }
    if (!o.out_dir || optind >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    o.inputs = (const char *const *)argv + optind, o.n_inputs = (size_t)(argc - optind);
    return smh_write_all(&o) ? 1 : 0;
}
