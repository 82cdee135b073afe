/*
 * report.h — the writers of `stepscope report` (one per format) and what they share.
 *
 * The analysis (src/analysis/ssa.h) produces a struct ssa_result per trace; these files only
 * print it: report_text.c (the one-screen text), report_json.c (docs/report-json.md),
 * report_md.c (Markdown) and report_html.c (one self-contained HTML file). Every string from
 * a trace goes through an escaper of its format. cmd_report.c parses the options, expands
 * folders, orders processes and writes -o files atomically; cmd_diff.c compares two traces;
 * cmd_record.c calls report_after_record() at the end of a run.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analysis/ssa.h"

struct json_out;

enum report_format { REPORT_TEXT = 0, REPORT_JSON, REPORT_MD, REPORT_HTML };

struct report_opts {
    int format; /* enum report_format */
    int verbose, color;
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

/* Opens and analyses path with ssa_analyze_file_ex's flags (0: full mode, SSA_COMPACT);
 * a failure is one cli_error line ("stepscope VERB: FILE: ...").
 * 0 with *out owned by the caller (ssa_result_free), or -1. */
int report_load(const char *verb, const char *path, const struct ssa_opts *opts, unsigned flags,
                struct ssa_result **out);

/* The analysis mode a report with options o needs: SSA_COMPACT (about 40 bytes per step,
 * issue #5's memory goal) unless it prints per-step detail that the step briefs lack —
 * the -v step table (text) and step list (json), and the html median-step panel — then
 * 0, full mode. */
unsigned report_ssa_flags(const struct report_opts *o);

/* Who had the GPU activity when the trace was recorded, when the collector did not: the other
 * tool's injection library that `record` left in place (collector.foreign_cuda_injection), or
 * "another CUPTI client" (cupti.conflict). NULL when the collector had CUPTI. The string is
 * borrowed from r and comes from the trace: escape it. */
const char *report_gpu_left_to(const struct ssa_result *r);

/* The sentence on the recording's own cost (ssa_summary.rec_cost_ms) for text, md and html:
 * 1 with buf filled, 0 when there is nothing to say (an import, no cost in the gaps). */
int report_rec_cost_text(const struct ssa_summary *s, char *buf, size_t size);

/* The sentence on damage for text, md and html ("only 43 of the 9555 records (0.5 %) could
 * be read: ..."): 1 with buf filled, 0 when the trace is not damaged. */
int report_damage_text(const struct ssa_result *r, char *buf, size_t size);

/* Any kernel, copy or memset recorded for the process. */
int report_has_gpu(const struct ssa_result *r);

/* The step of median duration among the steady steps: the timeline step when the analysis
 * kept one (SSA_TIMELINE, either mode), else searched in full mode; NULL when there is none
 * or r is a compact result without a timeline step. */
const struct ssa_step *report_median_step(const struct ssa_result *r);

/* Ranked findings of r, none when it has no step markers (no per-step saving). */
void report_findings(const struct ssa_result *r, const struct ssa_summary *s,
                     struct ssa_findings *f);

/* One trace each. f is where the report goes (stdout, stderr, a file). */
void report_text(FILE *f, const struct ssa_result *r, const struct report_opts *o);
void report_json(struct json_out *j, const struct ssa_result *r, const struct report_opts *o);
void report_md(FILE *f, const struct ssa_result *r, const struct report_opts *o);

/* HTML: one document around one section per trace. title is escaped. */
void report_html_begin(FILE *f, const char *title);
void report_html(FILE *f, const struct ssa_result *r, const struct report_opts *o);
void report_html_end(FILE *f);

/* Writes text after label, word-wrapped at 78 columns under the text, escaped. */
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

/* Writes s HTML-escaped (& < > " ' and control bytes); NULL writes "-". */
void html_escaped(FILE *f, const char *s);
/* The HTML entity for & < > " ' (static storage), or NULL for any other code point. */
const char *html_entity(uint32_t c);

/* Writes s for a Markdown table cell or paragraph: HTML-escaped too (Markdown renders
 * inline HTML), and | ` * _ [ ] \ backslash-escaped, newlines as spaces. NULL writes "-". */
void md_escaped(FILE *f, const char *s);

/* The .sstrace names a folder held before a `record` run (tools/cmd_record.c). */
struct trace_names {
    char **v;
    size_t n, cap;
};
/* 1 when name is a trace that was not among `before` (written by this run). */
int record_trace_is_new(const struct trace_names *before, const char *name);

/* End of `stepscope record`: the text report of the trace of the process it started (the
 * file of this run whose PROCESS pid is child, else this run's largest .sstrace in dir) on f.
 * Never fails the run: a problem is one line on f. */
void report_after_record(FILE *f, const char *dir, pid_t child, const struct trace_names *before);

#endif
