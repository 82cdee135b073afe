/*
 * ssi_window.h — the part of a trace an export writes (`stepscope export --steps A-B |
 * --time A-B`, issue #29), and what the export will weigh.
 *
 * A record that carries a time (sst_rec_time_range) is kept when it overlaps [from_ns, to_ns];
 * a range written as two records (NVTX push/pop and start/end, step begin/end) is kept whole,
 * both records, when the range overlaps the window, so that no viewer meets an end without its
 * start; what defines things (strings, threads, processes, devices, Python frames and stacks,
 * NVTX domains, notices) is always kept. One pass over the trace before the export
 * (ssi_window_prepare) pairs the ranges and counts what will be written.
 */
#ifndef SSI_WINDOW_H
#define SSI_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "trace/sst_format.h"
#include "trace/sst_reader.h"

struct ssi_window {
    uint64_t from_ns, to_ns; /* inclusive, the trace's clock; 0 and UINT64_MAX: everything */
    /* what the export will hold: records kept by kind, and those that carry a time */
    uint64_t kept[SST_REC_TYPE_LIMIT];
    uint64_t kept_events;
    uint64_t first_ns, last_ns; /* the times of the whole trace's records (0, 0: none) */
    struct sst_damage damage;   /* the trace's, as the preparing pass read all of it */
    /* private: one bit per range record (in reading order): kept or not */
    uint8_t *range_keep;
    uint64_t n_ranges, next_range;
};

/* Reads r once from its start (and rewinds it): pairs the ranges and fills w->kept for the
 * window [from_ns, to_ns], and w->damage (the whole trace's, known before the export writes
 * anything). 0 or a negative ss_error (the reader's). The window owns its memory until
 * ssi_window_free. */
int ssi_window_prepare(struct sst_reader *r, uint64_t from_ns, uint64_t to_ns,
                       struct ssi_window *w);
void ssi_window_free(struct ssi_window *w);

/* Rewinds r and w together: the export reads the trace from its start. */
int ssi_window_rewind(struct sst_reader *r, struct ssi_window *w);

/* The next record the export writes: sst_reader_next, skipping what w leaves out (w NULL: no
 * record left out). Call for every record, in order, after ssi_window_rewind. */
int ssi_window_next(struct sst_reader *r, struct ssi_window *w, const struct sst_rec_header **h);

/* 1 when [t0, t1] overlaps w's window (w NULL: always): an instant inside it, a span over
 * more than an end (the step before the window ends where the window starts). */
int ssi_window_overlaps(const struct ssi_window *w, uint64_t t0, uint64_t t1);

#endif
