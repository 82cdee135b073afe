/*
 * ssa_align.h — the ranks of a job on one timeline, and who each collective waited for
 * (issue #44, items 1 and 2).
 *
 * Clocks. Every trace's times are its host's CLOCK_MONOTONIC, which hosts do not share. The
 * coarse offset between two hosts comes from their (MONOTONIC, REALTIME) pairs: CLOCK records
 * (format v5), else the header's pair; NTP leaves it milliseconds off. It is then refined
 * from the collectives: in an NCCL all-reduce, all-gather or reduce-scatter every rank leaves
 * within microseconds of the others, whoever arrived last (NCCL #460), so each host's clock
 * is fitted (offset and drift, least squares with outliers dropped) to make its ranks' ends
 * of the matched collectives meet the reference host's (the host of the lowest rank). What
 * is left, the spread of a collective's ends across all ranks after alignment, is the
 * residual.
 *
 * Matching. A rank's collectives are taken per stream (streams in the order of their first
 * collective), in start order; the i-th of stream s is the same collective on every rank as
 * long as every rank has an i-th with the same kernel name. The first disagreement ends that
 * stream's matching (the rest are counted unmatched).
 *
 * Waits. After alignment, a collective's last arrival is the rank whose kernel started last;
 * each rank waited from its start to that start. When the last two starts are closer than the
 * collective's residual (the spread of its ends), which rank was last is undetermined (waits
 * are still counted); its host is still named when every rank of the other hosts started
 * further back than that.
 */
#ifndef SSA_ALIGN_H
#define SSA_ALIGN_H

#include <stddef.h>
#include <stdint.h>

/* The collectives whose ranks end together: X(name, the kernel name's part, said) */
#define SSA_ALIGN_KINDS(X)                                                                     \
    X(ALLREDUCE, "AllReduce", "all-reduce")                                                    \
    X(ALLGATHER, "AllGather", "all-gather")                                                    \
    X(REDUCESCATTER, "ReduceScatter", "reduce-scatter")

/* 1 + the kind of an NCCL collective kernel name (len bytes, not NUL-terminated), 0 for any
 * other kernel. */
int ssa_align_collective(const char *name, size_t len);

#define SSA_ALIGN_STREAMS 16 /* streams told apart per rank; more share the last */
#define SSA_ALIGN_HOST_MAX 64

struct ssa_align_coll {
    uint64_t start, end;
    uint32_t name_hash; /* FNV-1a of the kernel name: the same collective on every rank */
    uint32_t stream;    /* the stream's order of first collective on this rank */
};

struct ssa_align_rank {
    int32_t rank, world_size;
    size_t input;                      /* caller's index of the trace */
    char host_name[SSA_ALIGN_HOST_MAX]; /* as the trace says it (raw bytes: escape to print);
                                         * "" when unknown: a host of its own */
    size_t host;                       /* index into ssa_align.hosts */
    int64_t wall_ns;                   /* median REALTIME - MONOTONIC of its pairs */
    uint32_t n_pairs;                  /* CLOCK records read; 0: the header's pair was used */
    struct ssa_align_coll *coll;       /* owned; by stream order, then start */
    size_t n_coll;
    size_t soff[SSA_ALIGN_STREAMS + 1]; /* stream s is coll[soff[s] .. soff[s+1]) */
    /* its steady steps (the caller's: warm-up and start-up left out), local time; the
     * lowest rank's say which collectives are priced. 0/0/0: not known (all are priced) */
    uint64_t steady_lo, steady_hi;
    size_t steady_steps;
    /* results, over the priced collectives */
    size_t last;      /* collectives it arrived last at (determined) */
    double wait_ns;   /* its waits: its start to the last arrival's, summed */
    double caused_ns; /* every rank's wait in the collectives it arrived last at */
};

struct ssa_align_host {
    size_t n_ranks;
    size_t first;          /* its lowest rank's index in ssa_align.ranks (names it) */
    int32_t rank_lo, rank_hi;
    int contiguous;        /* its ranks are exactly rank_lo..rank_hi */
    /* The reference host's time of local time t: t + offset_ns + drift_ppm/1e6 (t - at_ns) */
    double offset_ns, drift_ppm;
    uint64_t at_ns;
    double coarse_ns;      /* what the REALTIME pairs alone gave for offset_ns */
    size_t n_fit;          /* collectives the fit kept (0: coarse only) */
    double fit_rms_ns;     /* their ends' distance from the reference host's, after the fit */
    size_t last;           /* collectives whose last arrival is one of its ranks, further
                            * ahead of every other host's ranks than the residual */
    double caused_ns;      /* every rank's wait in those collectives, summed */
};

struct ssa_align {
    size_t n_ranks, n_hosts;
    struct ssa_align_rank *ranks; /* owned, by rank number */
    struct ssa_align_host *hosts; /* owned; hosts[0] is the reference */
    size_t n_coll;                /* matched collectives */
    size_t n_unmatched;           /* collectives of any rank left out of matching */
    size_t n_priced;              /* of them, inside the lowest rank's steady steps (all of
                                   * them when those are not known): the waits are theirs */
    size_t n_undetermined;        /* priced, but the last two ranks too close to tell */
    /* the spread (latest - earliest) of a matched collective's ends across ranks, ns:
     * after alignment (the residual) and with the REALTIME pairs alone */
    double resid_p50_ns, resid_p90_ns, resid_max_ns, coarse_p50_ns;
    size_t steps;                 /* the lowest rank's steady steps: waits per step divide by
                                   * it (0: not known, per step not said) */
};

/* Reads what alignment needs of the trace at path into *out (zeroed first; free with
 * ssa_align_rank_free): its PROCESS record, CLOCK pairs and collective kernels. 0, or an
 * ss_error code (SS_ENOMEM, the reader's). Damaged traces give what could be read. */
int ssa_align_load(const char *path, struct ssa_align_rank *out);
void ssa_align_rank_free(struct ssa_align_rank *r);

/* The same, collected from a pass that reads the trace anyway (the analysis' first pass,
 * SSA_ALIGN_KEEP), so that each trace is read once: every record but kernels goes to
 * ssa_align_collect_record (it keeps PROCESS and CLOCK), and each kernel whose name
 * ssa_align_collective accepts to ssa_align_collect_kernel with ssa_align_name_hash of its
 * name (the caller decides that once per name, not per kernel). ssa_align_collect_end fills
 * *out as ssa_align_load would have and frees the collector; ssa_align_collect_free drops it
 * unfinished. The records must come in the reader's order: a hostname is looked up when its
 * PROCESS record comes. */
struct ssa_align_collect;
struct sst_reader;
struct sst_rec_header;
struct sst_rec_kernel;
struct ssa_align_collect *ssa_align_collect_new(void); /* NULL: out of memory */
void ssa_align_collect_record(struct ssa_align_collect *c, struct sst_reader *rd,
                              const struct sst_rec_header *h);
int ssa_align_collect_kernel(struct ssa_align_collect *c, const struct sst_rec_kernel *k,
                             uint32_t name_hash); /* 0 or SS_ENOMEM */
void ssa_align_collect_end(struct ssa_align_collect *c, const struct sst_reader *rd,
                           struct ssa_align_rank *out);
void ssa_align_collect_free(struct ssa_align_collect *c);
uint32_t ssa_align_name_hash(const char *name, size_t len);

/* Aligns n loaded ranks (ranks malloc'ed, taken over: the result owns them, and they are freed
 * on failure) and prices the waits. On success *out is malloc'ed (free with ssa_align_free);
 * SS_ENOMEM otherwise. */
int ssa_align_ranks(struct ssa_align_rank *ranks, size_t n, struct ssa_align **out);
void ssa_align_free(struct ssa_align *a);

/* Local time t of host h on the reference host's clock. */
double ssa_align_map(const struct ssa_align *a, size_t h, uint64_t t);

#endif
