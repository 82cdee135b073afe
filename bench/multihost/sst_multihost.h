/*
 * sst_multihost.h — synthetic multi-host copies of real rank traces (issue #44): N hosts x M
 * ranks, each host's MONOTONIC clock moved by its own offset and drift, its wall clock off by
 * its own NTP error, its hostname and rank numbers rewritten, and optionally one host made to
 * arrive late at every collective (the collectives of
 * ssa_align_collective, src/analysis/ssa_align.h). The truth is known, so the alignment of
 * src/analysis/ssa_align.c can be checked against it (tests/analysis/test_align.c) and scaled
 * (a later 1,024-rank benchmark).
 */
#ifndef SST_MULTIHOST_H
#define SST_MULTIHOST_H

#include <stddef.h>
#include <stdint.h>

#define SMH_MAX_HOSTS 4096

/* One host's clocks: local MONOTONIC = true + offset_s + (true - anchor) * drift_ppm / 1e6;
 * its REALTIME readings are true wall time + ntp_us (the error NTP left it). */
struct smh_host {
    double offset_s, drift_ppm, ntp_us;
};

struct smh_opts {
    const char *const *inputs; /* the source rank traces: local rank l copies inputs[l % n] */
    size_t n_inputs;
    size_t hosts, ranks_per_host;
    const struct smh_host *clock; /* hosts entries; NULL: every host true */
    const char *out_dir;          /* written: <out_dir>/nodeHH-rR.sstrace (must not exist) */
    const char *host_prefix;      /* hostnames: prefix + 2-digit host number; NULL: "node" */
    long slow_host;               /* -1: none; else this host's collective kernels start */
    double delay_us;              /* delay_us later (at most their end): it arrives last */
    double jitter_us;             /* each copy's collective kernels moved by up to +-jitter_us
                                   * (uniform, its own sequence per rank): copies of one source
                                   * no longer end at the very same nanosecond, as real ranks
                                   * do not */
};

/* The anchor the drifts turn about: the first input's header start_mono_ns (0 when it cannot
 * be read). The same instant on every host, so every rank of a host shares one mapping. */
uint64_t smh_anchor(const struct smh_opts *o);

/* A true time seen on host h's MONOTONIC clock (the mapping every copy applies). */
uint64_t smh_local_ns(const struct smh_host *h, uint64_t anchor, uint64_t true_ns);

/* Writes every copy. 0, or an ss_error code after one line on stderr. */
int smh_write_all(const struct smh_opts *o);

#endif
