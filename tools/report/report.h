/*
 * report.h — `stepscope report` and `stepscope diff`: the format table and what the writers
 * share.
 *
 * The analysis (src/analysis/ssa.h) produces a struct ssa_result per trace; report_view.h
 * turns it into the view a report shows, once; a writer prints views. Each format is one file
 * holding all of its sections (report_text.c, report_json.c: docs/report-json.md,
 * report_md.c, report_html.c with its charts' data in report_html_data.c) and one const
 * struct report_writer of function pointers (like uftrace's uftrace_dump_ops), and one row of
 * REPORT_FORMATS below: the enum, the table the verbs look formats up in (report_formats.c),
 * the names in usage errors and the --format help all come from the rows. The verb
 * (cmd_report.c) drives a writer: begin, the ranks of a multi-GPU job, one section per
 * process, the traces that could not be read, end; `diff` (cmd_diff.c) hands the same
 * writers its own view. Writers include report.h and report_view.h, never one another. Every
 * string from a trace goes through the format's escaper (src/util/text_esc.h, json_out.h).
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analysis/ssa.h"
#include "report_view.h"

/* One row per report format: X(ID, name, flags, verbose_flags, help, diff_help).
 *   ID            enum report_format_id: REPORT_ID
 *   name          -f NAME; the writer is report_writer_NAME (report_NAME.c: a row without
 *                 its writer does not link)
 *   flags         what ssa_analyze_reader must keep for the format (SSA_COMPACT: about 40
 *                 bytes per step, issue #5's memory goal; html adds the timeline's steps
 *                 and the run chart's bins)
 *   verbose_flags the same with -v (0: full mode, for the per-step detail the step briefs
 *                 lack: text's step table, json's step list)
 *   help          its words in `report --help`, diff_help in `diff --help` (the first row is
 *                 the default) */
#define REPORT_FORMATS(X)                                                                          \
    X(TEXT, text, SSA_COMPACT, 0, "text (default)", "text (default)")                              \
    X(JSON, json, SSA_COMPACT, 0, "json (docs/report-json.md)",                                    \
      "json (docs/report-json.md, \"stepscope.diff\")")                                            \
    X(MD, md, SSA_COMPACT, SSA_COMPACT, "md (Markdown)", "md (Markdown)")                          \
    X(HTML, html, SSA_COMPACT | SSA_TIMELINE | SSA_STEP_BINS,                                      \
      SSA_COMPACT | SSA_TIMELINE | SSA_STEP_BINS,                                                  \
      "html (one self-contained page to explore: every step by category, a zoomable timeline "     \
      "of the median and the slowest step, findings linked to it, sortable tables)",               \
      "html (one self-contained page)")

enum report_format_id {
#define REPORT_X_ENUM(ID, name, flags, verbose_flags, help, diff_help) REPORT_##ID,
    REPORT_FORMATS(REPORT_X_ENUM)
#undef REPORT_X_ENUM
        REPORT_FORMAT_COUNT
};

struct report_opts {
    int format; /* enum report_format_id: its row in report_formats[] */
    int verbose, color;
    unsigned width; /* text: columns (report_text_cols); below REPORT_TEXT_MIN_COLS: that */
    unsigned jobs; /* report: traces analysed at once (0: one per online CPU, at most 64) */
    unsigned out_flags; /* -o: SS_OUT_FORCE with --force (src/util/ss_out.h) */
    int accept_damage;  /* exit 0 although a trace is incomplete (report_incomplete) */
    struct ssa_opts ssa;
};

static inline double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* ---- the document, the writers and the format table ---- */

/* What one report holds beyond its sections: the job, how many sections, what is missing. */
struct report_doc {
    const char *title;              /* the one trace's path (a page's title), else NULL */
    size_t n_sections, hidden;      /* sections written; rank sections left out (-v) */
    int as_array;                   /* several inputs (or a folder): a list of reports */
    const struct ssa_job *job;      /* job->n >= 2: a multi-rank job */
    const struct report_input *inputs; /* in argument order (the job's input index) */
    const char *const *unreadable;  /* paths of the inputs that could not be read */
    size_t n_unreadable, n_inputs;
};

/* Where a writer writes. */
struct report_sink {
    FILE *f;
    void *state;                     /* the writer's own (report_writer.state_size bytes,
                                      * zeroed before begin; json: its json_out) */
    const struct report_opts *o;
    const struct report_doc *d;
    size_t index;                    /* of the section being written */
};

struct diff_view; /* cmd_diff.c: two sides, their pairing of findings, the verdict */

struct report_writer {
    /* json: every input in argument order, an unreadable one as an error entry in its place
     * (unreadable() gets it alone); the others: processes with GPU activity first, hidden
     * rank sections left out, the unreadable ones listed together at the end */
    int all_inputs;
    size_t state_size; /* bytes of its own state the driver hands it in report_sink.state */
    void (*begin)(struct report_sink *k);
    void (*ranks)(struct report_sink *k, const struct report_ranks_view *v); /* job->n >= 2 */
    void (*sections)(struct report_sink *k); /* after ranks, before the first section */
    void (*process)(struct report_sink *k, const struct report_view *v);
    void (*unreadable)(struct report_sink *k, const char *const *paths, size_t n);
    void (*end)(struct report_sink *k);
    void (*diff)(FILE *f, const struct diff_view *d);
};

#define REPORT_X_WRITER(ID, name, flags, verbose_flags, help, diff_help)                           \
    extern const struct report_writer report_writer_##name;
REPORT_FORMATS(REPORT_X_WRITER)
#undef REPORT_X_WRITER

/* A row of REPORT_FORMATS, as the verbs use it (report_formats.c). */
struct report_format {
    const char *name;
    unsigned flags, verbose_flags;
    const char *help, *diff_help;
    const struct report_writer *writer;
};
extern const struct report_format report_formats[REPORT_FORMAT_COUNT]; /* enum order */

/* The format named name, or NULL. */
const struct report_format *report_format_find(const char *name);
/* The names joined by sep, the last two by last ("text, json, md or html" with ", " and
 * " or "), into buf (cut at cap). */
void report_format_names(char *buf, size_t cap, const char *sep, const char *last);
/* The usage text of a verb that takes --format (report, diff): "usage: stepscope OPERANDS
 * [--format a|b|c] MORE", then about, the --format option's help lines (the rows' diff_help
 * with diff), then options. */
struct report_usage {
    const char *operands; /* "report TRACE|DIR..." */
    const char *more;     /* after the formats: "[-o FILE] [-v]" */
    const char *about, *options;
    int diff;
};
void report_usage_print(FILE *f, const struct report_usage *u);
/* The analysis mode a report with options o needs: its format's flags, verbose_flags with -v. */
unsigned report_ssa_flags(const struct report_opts *o);

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

/* The one line that fails report and diff on an incomplete trace (report_incomplete). */
/* Says it once (cli_damage_said: an error, or with accept a warning); CLI_EXIT_FAIL when not
 * accepted, else CLI_EXIT_OK. */
int report_say_incomplete(const char *verb, const char *path, const struct ssa_result *r,
                          int accept);

/* One trace's report on f in o->format, through the writer table (the fuzzers' way in). */
void report_write_single(FILE *f, const struct ssa_result *r, const struct report_opts *o);

/* One trace's text report on f (the end of `stepscope record`): report_write_single in text. */
void report_text_one(FILE *f, const struct ssa_result *r, const struct report_opts *o);

/* The text report's width: $COLUMNS, else the terminal's on fd (-1: none), else 80; never
 * below REPORT_TEXT_MIN_COLS (the fixed tables need 80) nor above REPORT_TEXT_MAX_COLS. */
#define REPORT_TEXT_MIN_COLS 80
#define REPORT_TEXT_MAX_COLS 1000
unsigned report_text_cols(int fd);

#endif
