/*
 * sst_gen_lib.h — writes a synthetic training trace through sst_writer: the records a real
 * PyTorch training loop would produce (process, devices, NVTX step and data ranges, kernel
 * launches and kernels, copies, syncs, host samples), with plausible timestamps. Used by
 * build/sst-gen and by bench-trace for its "realistic mix".
 */
#ifndef SST_GEN_LIB_H
#define SST_GEN_LIB_H

#include <stdint.h>

#include "trace/sst_writer.h"

/* The file header values the generator uses: pass them to sst_writer_open so that the same
 * options always give the same bytes. */
#define SST_GEN_START_MONO_NS 1000000000000ull    /* 1000 s after boot */
#define SST_GEN_START_UNIX_NS 1795910400000000000ull /* 2026-11-29T00:00:00Z */
#define SST_GEN_PID 4242u

struct sst_gen_opts {
    uint64_t max_records; /* stop after the step that reaches this many records (0: none) */
    uint64_t max_bytes;   /* stop once this many bytes are in the file (0: none) */
    uint64_t steps;       /* stop after this many steps (0: none; one limit must be set) */
    uint64_t seed;
};

struct sst_gen_result {
    uint64_t steps;
    uint64_t kernels;
    uint64_t end_ns; /* synthetic clock at the last record: pass to sst_writer_close */
};

/* Fills writer options for a synthetic trace (clock, features, pid, start times). */
void sst_gen_writer_opts(struct sst_writer_opts *o);

/* Writes the trace into w (opened with sst_gen_writer_opts). Returns 0 or the writer's
 * error. */
int sst_gen_write(struct sst_writer *w, const struct sst_gen_opts *o, struct sst_gen_result *res);

#endif
