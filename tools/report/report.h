/*
 * report.h — `stepscope report` and `stepscope diff`: the writer table and what the writers
 * share.
 *
 * The analysis (src/analysis/ssa.h) produces a struct ssa_result per trace; report_view.h
 * turns it into the view a report shows, once; a writer prints views. There is one writer per
 * format, each a const struct report_writer of function pointers (like uftrace's
 * uftrace_dump_ops), found by name in one table (report_writer_find): report_text.c,
 * report_json.c (docs/report-json.md), report_md.c, report_html.c. The verb (cmd_report.c)
 * drives them: begin, the ranks of a multi-GPU job, one section per process, the traces that
 * could not be read, end; `diff` (cmd_diff.c) hands the same writers its own view. Every
 * string from a trace goes through the format's escaper (src/util/text_esc.h, json_out.h).
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analysis/ssa.h"
#include "json_out.h"
#include "report_view.h"

enum report_format { REPORT_TEXT = 0, REPORT_JSON, REPORT_MD, REPORT_HTML };

struct report_opts {
    int format; /* enum report_format */
    int verbose, color;
    unsigned width; /* text: columns (report_text_cols); below REPORT_TEXT_MIN_COLS: that */
    unsigned jobs; /* report: traces analysed at once (0: one per online CPU, at most 64) */
    unsigned out_flags; /* -o: SS_OUT_FORCE with --force (src/util/ss_out.h) */
    int accept_damage;  /* exit 0 although a trace lost more than REPORT_DAMAGE_FAIL */
    struct ssa_opts ssa;
};

/* A trace of which less than this share of its records could be read fails the report
 * (exit 1) unless --accept-damage: its numbers are of a fragment. */
#define REPORT_DAMAGE_FAIL 0.9

#define TOP_KERNELS 10

static inline double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* ---- the document and the writer table ---- */

/* What one report holds beyond its sections: the job, how many sections, what is missing. */
struct report_doc {
    const char *title;              /* html's title: the one trace's path, else NULL */
    size_t n_sections, hidden;      /* sections written; rank sections left out (-v) */
    int as_array;                   /* json: several inputs (or a folder): an array */
    const struct ssa_job *job;      /* job->n >= 2: a multi-rank job */
    const struct ssa_result *const *rs; /* the results in argument order (NULL: unreadable) */
    const char *const *unreadable;  /* paths of the inputs that could not be read */
    size_t n_unreadable, n_inputs;
};

/* Where a writer writes. */
struct report_sink {
    FILE *f;
    struct json_out j;               /* json */
    const struct report_opts *o;
    const struct report_doc *d;
    size_t index;                    /* of the section being written */
};

struct diff_view; /* cmd_diff.c: two sides, their pairing of findings, the verdict */

struct report_writer {
    const char *name;
    /* json: every input in argument order, an unreadable one as an error entry in its place
     * (unreadable() gets it alone); the others: processes with GPU activity first, hidden
     * rank sections left out, the unreadable ones listed together at the end */
    int all_inputs;
    void (*begin)(struct report_sink *k);
    void (*ranks)(struct report_sink *k);
    void (*sections)(struct report_sink *k); /* after ranks, before the first section */
    void (*process)(struct report_sink *k, const struct report_view *v);
    void (*unreadable)(struct report_sink *k, const char *const *paths, size_t n);
    void (*end)(struct report_sink *k);
    void (*diff)(FILE *f, const struct diff_view *d);
};

extern const struct report_writer report_writer_text, report_writer_json, report_writer_md,
    report_writer_html;

/* The writer named name ("text", "json", "md", "html") and its enum report_format, or NULL
 * and -1; the writer of a format. (report_load.c: the one table) */
const struct report_writer *report_writer_find(const char *name);
int report_writer_index(const char *name);
const struct report_writer *report_writer_at(int format);
/* "text, json, md or html", for usage errors. */
const char *report_writer_names(void);

/* ---- shared with diff and record ---- */

/* The step options report and diff share, as getopt long options (val 'W', 'w', 'm', 'R') and
 * their help lines. report_step_option applies one to o: 0, or a usage error's exit code
 * (an unreadable count, a regex that does not compile). */
#define REPORT_STEP_LONGOPTS                                                                       \
    {"no-warmup", no_argument, NULL, 'W'}, {"warmup", required_argument, NULL, 'w'},               \
        {"step-marker", required_argument, NULL, 'm'},                                             \
    {                                                                                              \
        "recording-cost-us", required_argument, NULL, 'R'                                          \
    }
#define REPORT_STEP_HELP                                                                           \
    "      --no-warmup    keep the first steps even when they look like warm-up\n"                 \
    "      --warmup N     exclude exactly the first N steps as warm-up (no detection)\n"           \
    "      --step-marker NAME  steps are the NVTX ranges named NAME (any domain), or\n"            \
    "                     matching the extended regex after re: (re:^train_step); no\n"            \
    "                     other step marker counts\n"                                              \
    "      --recording-cost-us US  stepscope's own cost per launch to leave out of the\n"          \
    "                     findings (default: as calibrated for the trace's mode; 0: none)\n"
int report_step_option(const char *verb, int c, const char *arg, struct ssa_opts *o);

/* Opens path once and analyses it with ssa_analyze_reader's flags (0: full mode,
 * SSA_COMPACT); a failure is one cli_error line ("stepscope VERB: FILE: ...").
 * 0 with *out owned by the caller (ssa_result_free), or -1. (report_load.c) */
int report_load(const char *verb, const char *path, const struct ssa_opts *opts, unsigned flags,
                struct ssa_result **out);

/* The analysis mode a report with options o needs: SSA_COMPACT (about 40 bytes per step,
 * issue #5's memory goal) unless it prints per-step detail that the step briefs lack —
 * the -v step table (text) and step list (json) — then 0, full mode. html: compact with the
 * timeline's steps (SSA_TIMELINE) and the per-step bins of its run chart (SSA_STEP_BINS). */
unsigned report_ssa_flags(const struct report_opts *o);

/* One trace's report on f in o->format, through the writer table (the fuzzers' way in). */
void report_write_single(FILE *f, const struct ssa_result *r, const struct report_opts *o);

/* One trace's text report on f (the end of `stepscope record`). */
void report_text_one(FILE *f, const struct ssa_result *r, const struct report_opts *o);

/* The text report's width: $COLUMNS, else the terminal's on fd (-1: none), else 80; never
 * below REPORT_TEXT_MIN_COLS (the fixed tables need 80) nor above REPORT_TEXT_MAX_COLS. */
#define REPORT_TEXT_MIN_COLS 80
#define REPORT_TEXT_MAX_COLS 1000
unsigned report_text_cols(int fd);

/* Writes text after label, word-wrapped 2 columns short of the width, escaped. */
void report_text_wrapped(FILE *f, const char *label, const char *text);

/* The ranks section of a multi-rank job (report_ranks.c; job->n >= 2, rs the results given
 * to ssa_ranks_analyze). Text, md and html print it before the per-process sections and say
 * that `omitted` rank sections are left out (-v shows them); json writes the value of the
 * top-level "ranks" key (docs/report-json.md). */
void report_ranks_text(FILE *f, const struct ssa_job *job, const struct ssa_result *const *rs,
                       size_t omitted);
void report_ranks_md(FILE *f, const struct ssa_job *job, const struct ssa_result *const *rs,
                     size_t omitted);
void report_ranks_html(FILE *f, const struct ssa_job *job, const struct ssa_result *const *rs,
                       size_t omitted);
void report_ranks_json(struct json_out *j, const struct ssa_job *job,
                       const struct ssa_result *const *rs);
#define REPORT_RANKS_ALL 16    /* more ranks: the table shows the 5 slowest and 5 fastest */
#define REPORT_RANK_SECTIONS 8 /* more ranks: only the straggler's and median's sections */

/* The environment block of each format (report_env.c), from the view's judged checks. */
void report_env_text(FILE *f, const struct report_env *e, int verbose);
void report_env_md(FILE *f, const struct report_env *e, int verbose);
void report_env_html(FILE *f, const struct report_env *e, int verbose);
void report_env_json(struct json_out *j, const struct report_env *e);

/* Where the GPU-idle host time is in the code (report_host.c): Markdown's table of the
 * view's hotspots (REPORT_HOST_SHORT per category unless verbose), HTML's table and flame
 * graph. Nothing without Python stack samples. */
#define REPORT_HOST_SHORT 3
void report_host_md(FILE *f, const struct report_view *v, int verbose);
void report_host_html(FILE *f, const struct report_view *v);
/* The HTML fill colour of a category (report_html.c). */
const char *report_cat_fill(int cat);
/* "sync", "alloc" or "sync, alloc": the categories whose lines come from call sites. */
const char *report_site_cats(const struct ssa_host *h);

/* The data of a process section's charts (report_html_data.c): a JSON document in a
 * <script type="application/json" class="ss-data"> element, read by the page's script;
 * nothing when the view has neither a run chart nor a timeline. */
void report_html_data(FILE *f, const struct report_view *v);

/* HTML's page around the sections (report_html.c): the style sheet, and the script that
 * draws the charts, sorts the tables and links findings to the timeline; title is escaped.
 * diff uses them too. */
void report_html_begin(FILE *f, const char *title);
void report_html_end(FILE *f);

#endif
