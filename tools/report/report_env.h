/*
 * report_env.h — the "environment" block of `stepscope report` (tools/report_env.c): the
 * checks `stepscope doctor` shares with the report (src/analysis/ssa_env.h), judged on the
 * trace's environment record, so a report made on another machine still shows them.
 * Text, Markdown and HTML show the warn and fail lines (every check with verbose); JSON
 * writes every check (docs/report-json.md, "environment").
 */
#ifndef REPORT_ENV_H
#define REPORT_ENV_H

#include <stdio.h>

#include "analysis/ssa.h"

struct json_out;

void report_env_text(FILE *f, const struct ssa_result *r, int verbose);
void report_env_md(FILE *f, const struct ssa_result *r, int verbose);
void report_env_html(FILE *f, const struct ssa_result *r, int verbose);
/* The key "environment" and its array, inside the report's object. */
void report_env_json(struct json_out *j, const struct ssa_result *r);

#endif
