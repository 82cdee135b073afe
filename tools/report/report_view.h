/*
 * report_view.h — what a report shows of one trace, computed once (report_view_build) from
 * the analysis result; every writer (text, json, md, html: the format table of report.h)
 * takes it const and computes nothing of its own. The view is all a writer reads: the result
 * stays outside it (what a report shows of it is copied or borrowed here, field by field), and
 * every sentence a writer prints is built here once, so that a fact is worded in one place
 * however many formats say it. Writers lay the sentences and numbers out, and read the
 * analysis's constant name tables (ssa_cat_name and the like); no other ssa_ function.
 */
#ifndef REPORT_VIEW_H
#define REPORT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/ssa.h"
#include "analysis/ssa_env.h"

/* Whether a report of r is built from less than the whole trace (records or chunks lost, or
 * the file ends without its END chunk: the program was killed or the file was cut; an import
 * cut short): report and diff then exit 1 unless --accept-damage (issue #29), and every format
 * says so at the top. */
static inline int report_incomplete(const struct ssa_result *r)
{
    return r && (r->damage.any || r->truncated);
}

#define REPORT_OUTLIERS 10 /* kept in the view; the text report shows the first 3 */

/* The environment checks of `stepscope doctor` judged on the trace's record. */
struct report_env {
    size_t n;
    int counts[SSA_ENV_N_STATUS];
    char counts_said[80]; /* "N pass, N warn, N fail, N skip" */
    int recorded;         /* some check found its facts in the trace */
    int notable;          /* some check warns or fails: shown without -v */
    struct ssa_env_verdict v[SSA_ENV_N_CHECKS]; /* in the order of ssa_env_checks[] */
};

/* A check that found something (warn or fail): the only ones text and md show without -v. */
static inline int report_env_notable(const struct ssa_env_verdict *v)
{
    return v->status == SSA_ENV_WARN || v->status == SSA_ENV_FAIL;
}

/* Where one GPU-idle category's host time went: the user's lines (ssa_host_hotspots). */
#define REPORT_HOTSPOTS 10 /* kept per category */
#define REPORT_HOST_SHORT 3 /* shown per category by text and md without -v */
struct report_hotspot {
    struct ssa_hotspot h;
    char where[192]; /* "function (file:57,56)": the file by its name, the hottest lines;
                      * raw bytes of the trace (escape them) */
};
struct report_hostcat {
    int cat;   /* enum ssa_cat (GPU idle) */
    double ms; /* the category's ms/step */
    size_t n;
    struct report_hotspot v[REPORT_HOTSPOTS];
};
#define REPORT_HOSTCATS (SSA_CAT_COUNT - SSA_CAT_FIRST_IDLE)

/* A step drawn on the HTML report's timeline (SSA_TIMELINE). */
struct report_tl {
    int which;                     /* enum ssa_tl_which */
    int warmup;                    /* a warm-up step (only among the others) */
    const struct ssa_step *st;     /* its full result */
    const struct ssa_timeline *tl; /* its intervals (borrowed from the result) */
};

/* The run's steps for the HTML chart (SSA_STEP_BINS): bins of bin_width consecutive steps,
 * one step each up to SSA_STEP_BINS_MAX steps. */
struct report_bin {
    uint64_t number; /* of its first step */
    size_t steps;
    double mean_ms, max_ms;
    int warmup;                   /* holds a warm-up step */
    size_t outliers;              /* steady steps over SSA_OUTLIER_FACTOR x the median */
    double cat_ms[SSA_CAT_COUNT]; /* mean per step of the bin */
};

/* The trace and its process as the analysis read them. Strings and the damage model are
 * borrowed from the result: raw bytes of the trace (escape them); cmdline and device NULL when
 * the trace does not say. */
struct report_trace {
    const char *path, *cmdline, *device, *state;
    uint32_t pid, n_devices;
    int32_t rank, world_size; /* rank -1: not a rank of a job */
    int closed, truncated;
    uint32_t bad_chunks;
    uint64_t problems, records, kernels, memcpys, memsets, graphs, api_calls, dropped;
    const struct sst_damage *damage;
};

/* Where the steps came from and what the analysis left out of them, as counts (json says them
 * as they are; the sentences of struct report_view say them for people). */
struct report_steps {
    int source;         /* enum ssa_step_source */
    uint32_t train_tid; /* 0: no thread told apart */
    size_t total, warmup, price_outliers, warmup_asked, warmup_fill;
    int warmup_autotune, marker_unmatched, gpu_paced, capture_never_opened;
    int window_opened;     /* enum ssa_window_opener */
    uint64_t host_pace_ns; /* gpu_paced: the host's own pace */
    uint32_t graph_id;     /* SSA_STEPS_GRAPHS: the graph (SSA_GRAPH_UNTOLD), its launches */
    uint64_t graph_launches;
    size_t markers_set_aside;
    uint64_t unended; /* step ranges that never ended */
    size_t outside_capture, queued_at_open, launch_unsampled;
    uint32_t launch_sample; /* 1 step in N recorded its launch calls (0, 1: all) */
    uint64_t gpu_ends_at_close;
};

#define TOP_KERNELS 10 /* the top kernels of text and json (html shows more) */

/* Sentences the view says beside one another, each at most this long. */
#define REPORT_NOTE 240
#define REPORT_STEP_LINES 8 /* under the text report's steps, before the notes and after */

/* The whole run (ssa_run.c): every marked step, GPU window or not, as a sparkline, a chart
 * and the stalls and drift found in it. Shown when the run has steps outside its GPU windows or
 * stalls or drift (a run recorded whole, without either, says nothing new here). */
#define REPORT_RUN_COLS 60     /* the text sparkline's columns */
#define REPORT_RUN_POINTS 240  /* the HTML chart's points */
#define REPORT_RUN_LINES 5     /* stall sets and the drift */
#define REPORT_RUN_COMPARES 3  /* GPU windows compared with the first */
#define REPORT_RUN_WINDOW_CHANGE 0.10
#define REPORT_RUN_UNRECORDED 200 /* steps outside the GPU windows that show the section */
struct report_run {
    int shown;
    const struct ssa_run *run; /* borrowed: the numbers json says */
    char head[REPORT_NOTE];    /* "1220 steps in 14.6 s, usual step 11.2 ms; GPU windows: ..." */
    /* the sparkline: a glyph a column (mean step time of its steps, _ . : - = + * # low to high),
     * '^' under the columns with steps inside a GPU window, and what the scale is */
    char spark[REPORT_RUN_COLS + 1], marks[REPORT_RUN_COLS + 1], scale[REPORT_NOTE];
    size_t n_lines; /* stall sets, then the drift, the most of the run's time first */
    char lines[REPORT_RUN_LINES][640];
    char none[REPORT_NOTE]; /* no stall or drift: why ("" when some) */
    /* not shown because the program marked no steps while the GPU was recorded in a window
     * only: why there is no series and how to get one ("" otherwise) */
    char why_none[320];
    /* GPU windows whose step departs from the first window's by SSA_RUN_WINDOW_CHANGE, the
     * most first: what changed, by category (as diff says it of two runs) */
    size_t n_compares;
    char compares[REPORT_RUN_COMPARES][REPORT_NOTE * 2];
    size_t n_points, steps_per_point;
    double point_ms[REPORT_RUN_POINTS]; /* mean step time of each point's steps */
    uint64_t point_step[REPORT_RUN_POINTS];
    unsigned char point_window[REPORT_RUN_POINTS]; /* some of its steps in a GPU window */
};
/* Fills w from r (w borrows r). */
void report_run_build(struct report_run *w, const struct ssa_result *r);

struct report_view {
    struct report_trace trace;
    struct report_steps steps;
    struct ssa_summary s;
    int per_step;               /* the steps came from markers or periodicity (not one
                                 * interval): times per step, findings */
    struct ssa_findings f;      /* ranked; none without steps */
    /* alt_of[i]: 1 + the rank index of the finding f.v[i] is an alternative to (0: none), and
     * alt_said[i] that in words ("alternative to 1.: the same time, not additive") */
    size_t alt_of[SSA_MAX_FINDINGS];
    char alt_said[SSA_MAX_FINDINGS][80];
    /* saves[i]: what finding i saves, in words ("saves ~2.10 ms/step (12 %, 1.14x)" or, for a
     * note, "not priced: a note"), and its confidence; every writer says the same */
    char saves[SSA_MAX_FINDINGS][96];
    /* held_out[i]: what the zoo's held-out programs say of finding i's rule ("priced within
     * +-23 % on 4 held-out programs" or "no held-out evidence"), said after saves[i] where the
     * finding is shown in full */
    char held_out[SSA_MAX_FINDINGS][112];
    /* when the findings' savings overlap: what fixing them all saves, not their sum */
    int has_all_fixed;
    char all_fixed[320];
    char no_findings[64];       /* "none above 1 % of the step" */
    struct ssa_peer peer;       /* where the trace stands in its job (known 0: alone) */
    struct report_env env;
    struct ssa_outlier outliers[REPORT_OUTLIERS]; /* the slowest first */
    size_t n_outliers;                             /* steady steps over 1.5x the median (all of
                                                    * them: outliers holds the first ones) */
    /* the outliers in words: the 3 slowest, or (outlier_said) the slowest alone */
    char outliers_said[512], outlier_said[200];
    /* the steps drawn on the timeline: the steady one of median length, the slowest, then
     * the others the analysis kept (every step of a short run) */
    size_t n_tls;
    struct report_tl tls[SSA_TL_STEPS_MAX];
    size_t n_bins, bin_width; /* n_bins 0: no chart of the run (one interval, no bins kept) */
    double outlier_ms;        /* steady steps longer than this are outliers */
    struct report_bin bins[SSA_STEP_BINS_MAX];
    const char *gpu_left_to; /* who had the GPU activity, NULL: the collector (from the trace:
                              * escape it) */
    int has_gpu;             /* any kernel, copy or memset recorded */
    int light;               /* a light recording: no kernel records, no GPU-idle finding */
    char light_note[120];    /* light: why no finding prices GPU idle time */
    /* whose GPU time the breakdown is: gpu_busy, the GPU busy share or who had the GPU, in a
     * headline's words; gpu_note, the line before the text report's bar ("" when the
     * collector recorded GPU activity) */
    char gpu_busy[320], gpu_note[320];
    /* the process and the trace in words: "pid 1478, rank 0/2, 1 device(s)" (md, html) and
     * "pid 1478 rank 0/2, 1 device" (text); "complete, 25 chunks; 34639 records, 13989
     * kernels, 125 copies" (with the graph launches of graph-level tracing). Raw trace bytes:
     * escape them */
    char process[96], process_terse[96], trace_said[512];
    /* the steps in words: "297 of 300 (step_records), 2 warm-up excluded; ..." with what the
     * capture left out (md, html), and "297 of 300 (step_records, thread 4265), 2 warm-up
     * excluded" (text, whose lines of their own say the rest: steps_before, step_notes,
     * steps_after); "no step markers: whole trace as one interval (12.3 ms)" for both */
    char steps_said[320], steps_head[320];
    /* step_time: "median 3.31 ms, p10 2.87, p90 3.99, mean 3.44; 290.50 steps/s" ("" without
     * steady steps); caution (short, md and html) and caution_long (text): the GPU ran behind
     * the host ("" when it did not) */
    char step_time[160], caution[200], caution_long[512];
    size_t n_steps_before, n_steps_after;
    char steps_before[REPORT_STEP_LINES][REPORT_NOTE], steps_after[REPORT_STEP_LINES][REPORT_NOTE];
    int has_rec_cost;        /* rec_cost: the sentence on stepscope's own cost */
    char rec_cost[640];
    int damaged;             /* damage: the sentence on what was lost (report_incomplete) */
    const char *damage_label; /* "DAMAGED" (records lost) or "INCOMPLETE" (no end) */
    char damage[1200];
    int has_problems;        /* problems: the reader's problems, the first named */
    char problems[256];
    int has_lost;             /* lost: what the recording itself lost (records dropped when a
                               * buffer was full; CUPTI that could not be detached), counted */
    char lost[320];
    /* Where the steps came from when it is not what the source's name says: graph launches
     * instead of markers, times measured on the GPU timeline, GPU records whose end CUPTI
     * wrote at the capture's close (sentences; n_step_notes used) */
    size_t n_step_notes;
    char step_notes[6][REPORT_NOTE];
    int has_graphs; /* graphs: the CUDA graph sentence (launches, kernels, GPU time inside) */
    /* program: what kind of program this is and what it already does, when it is not a plain
     * Python program (the fixes are written for it); the facts themselves (borrowed) */
    int has_program;
    char program[200];
    const struct ssa_program *prog;
    /* throughput (ssa_throughput): the step's rate, what the batch marks give, and the
     * device's peaks; sentences for text, md and html (has_throughput: the trace has steady
     * steps; peak[0] 0: no peaks known for the device) */
    struct ssa_throughput tp;
    struct ssa_batch batch; /* the program's batch marks */
    int has_throughput;
    char throughput[360], peak[200];
    char throughput_line[260]; /* both, short: the text report's one line */
    char graphs[256];
    /* The kernels by GPU time (borrowed from the result): the top ones of text, json and
     * html, and the names the timeline's items point at by index; triton[i]: the i-th is
     * torch.compile's (Inductor's Triton kernels, named triton_...) */
    size_t n_knames;
    const struct ssa_kname *knames;
    char *const *kname_text;
    unsigned char triton[TOP_KERNELS];
    char *const *tl_names; /* the timeline's range names (n_tl_names) */
    size_t n_tl_names;
    const struct ssa_step *step_list; /* every step in full mode (-v), else NULL */
    /* Python stack samples of the training thread in the steady steps (host->counted > 0):
     * the GPU-idle categories with samples, the most time first, and the flame graph's nodes
     * (host->flame; the samples and their frames borrowed from the result) */
    const struct ssa_host *host;
    int has_samples;
    double sampled_idle_ms; /* the samples' GPU-idle time per steady step: near the timeline's
                             * GPU-idle time when the weights are right */
    uint64_t sampled_idle_samples; /* the samples of that time: the flame graph's */
    /* the categories whose lines come from the call sites of blocked CUDA calls (PY_CALL):
     * "sync", "alloc" or "sync, alloc"; NULL when the trace has none */
    const char *site_cats;
    size_t n_hostcats;
    struct report_hostcat hostcats[REPORT_HOSTCATS];
    struct report_run run; /* the whole run */
};

/* An input of a report as the ranks' rows name it: its path as given (raw bytes: escape it)
 * and its process (0: unreadable). */
struct report_input {
    const char *path;
    uint32_t pid;
};

/* The ranks section of a multi-rank job (job->n >= 2), computed once for every format: the
 * sentences (numbers, rank numbers and category names only: no string from a trace) and the
 * table's rows. Over REPORT_RANKS_ALL ranks the table shows the slowest and fastest
 * REPORT_RANKS_EDGE, the median rank, and "ranks between" rows. */
#define REPORT_RANKS_ALL 16    /* more ranks: the table shows the 5 slowest and 5 fastest */
#define REPORT_RANKS_EDGE 5
#define REPORT_RANK_SECTIONS 8 /* more ranks: only the straggler's and median's sections */
#define REPORT_RANK_ROWS_MAX (REPORT_RANKS_ALL + 2 * REPORT_RANKS_EDGE + 3)
#define REPORT_RANK_BETWEEN SIZE_MAX /* a row that stands for the ranks between */
struct report_ranks_view {
    const struct ssa_job *job;         /* borrowed */
    const struct report_input *inputs; /* the traces, by the input index of job->ranks
                                        * (borrowed) */
    size_t omitted;                    /* rank sections left out (-v shows them), and that in
                                        * words ("" when none) */
    char omitted_said[64];
    char head[120];
    char notes[240];     /* ranks missing, repeated, of another job, not compared; or "" */
    char straggler[480]; /* the straggler, why, its price; or why there is none */
    char waiting[320];   /* what the median rank's exposed comm is; or "" */
    /* from the alignment (job->align; "" without it): how the ranks' clocks were laid on one
     * timeline, and who arrives last at the collectives, at what cost (hostnames escaped) */
    char clocks[400];
    char arrivals[800];
    size_t n_rows, elided; /* elided: rows that are REPORT_RANK_BETWEEN */
    size_t rows[REPORT_RANK_ROWS_MAX]; /* indices into job->ranks, or REPORT_RANK_BETWEEN */
    char mark[REPORT_RANK_ROWS_MAX];   /* per row: 'S' straggler, 'm' median rank, ' ' */
};

/* Fills v for job (job->n >= 2) over its inputs (in the order given to ssa_ranks_analyze);
 * borrows both. Nothing is allocated. */
void report_ranks_view_build(struct report_ranks_view *v, const struct ssa_job *job,
                             const struct report_input *inputs, size_t omitted);

/* The ranks view's clocks and arrivals sentences of alignment a (both "" when a is NULL). */
struct ssa_align;
void report_align_view(const struct ssa_align *a, char *clocks, size_t ccap, char *arrivals,
                       size_t acap);

/* The HTML fill colour of a category (the fill column of SSA_CATS; grey out of range). */
const char *report_cat_fill(int cat);

/* Fills v from r (and its peer in a multi-rank job, NULL when reported alone). v borrows r,
 * which must outlive it; nothing is allocated. */
void report_view_build(struct report_view *v, const struct ssa_result *r,
                       const struct ssa_peer *peer);

/* A kernel's name for people: raw demangled (C++ "_Z..." names) and shortened by structure
 * (src/util/ss_cxxname.h) to the least shortened form of at most max_chars bytes, else the
 * shortest form. Returns it malloc'ed (caller frees; NULL when out of memory). */
char *report_kernel_name(const char *raw, size_t max_chars);

#endif
