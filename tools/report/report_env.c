/*
 * report_env.c — the environment block of each trace's report: the checks `stepscope doctor`
 * shares with the report (src/analysis/ssa_env_checks.c), judged on the trace's environment
 * record by the view (report_view.c), so a report made on another machine still shows them.
 * Text and Markdown show the warn and fail lines (every check with verbose); HTML every
 * check, folded away when none warns or fails; JSON
 * writes every check (docs/report-json.md, "environment"). Values quote the trace, so every
 * one goes through the format's escaper. A check whose facts are absent is a skip ("not
 * recorded"), never a failure.
 */
#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "report.h"
#include "text_esc.h"

/* Without verbose only the checks that found something: warn and fail. */
static int env_shown(const struct ssa_env_verdict *v, int verbose)
{
    return verbose || v->status == SSA_ENV_WARN || v->status == SSA_ENV_FAIL;
}

/* The table of checks: without verbose only when one found something. */
static int env_table_shown(const struct report_env *b, int verbose)
{
    return verbose || b->counts[SSA_ENV_WARN] || b->counts[SSA_ENV_FAIL];
}

static void counts_line(FILE *f, const struct report_env *b)
{
    fprintf(f, "%d pass, %d warn, %d fail, %d skip", b->counts[SSA_ENV_PASS],
            b->counts[SSA_ENV_WARN], b->counts[SSA_ENV_FAIL], b->counts[SSA_ENV_SKIP]);
}

void report_env_text(FILE *f, const struct report_env *e, int verbose)
{
    const struct report_env *b = e;
    char label[32], line[SSA_ENV_VALUE_MAX + 64];
    fputs("  env        ", f); /* the labels of report_text.c's headline */
    if (!b->recorded) {
        fputs("no environment record in the trace\n", f);
        return;
    }
    counts_line(f, b);
    fputs(verbose ? " (doctor's checks on\n             the trace's record)\n"
                  : " (-v lists every check)\n",
          f);
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        if (!env_shown(v, verbose)) continue;
        snprintf(label, sizeof label, "    [%s] ", ssa_env_status_name(v->status));
        snprintf(line, sizeof line, "%s: %s", ssa_env_checks[i].id, v->value);
        report_text_wrapped(f, label, line);
        if (v->fix[0]) report_text_wrapped(f, "           fix: ", v->fix);
    }
}

void report_env_md(FILE *f, const struct report_env *e, int verbose)
{
    const struct report_env *b = e;
    fputs("\n### Environment\n\n", f);
    if (!b->recorded) {
        fputs("Not recorded in the trace.\n", f);
        return;
    }
    counts_line(f, b);
    fputs(" (the checks of `stepscope doctor`, from the trace's environment record)\n", f);
    if (!env_table_shown(b, verbose)) return;
    fputs("\n| status | check | value | fix |\n|---|---|---|---|\n", f);
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        if (!env_shown(v, verbose)) continue;
        fprintf(f, "| %s | `%s` | ", ssa_env_status_name(v->status), ssa_env_checks[i].id);
        md_escaped(f, v->value);
        fputs(" | ", f);
        md_escaped(f, v->fix[0] ? v->fix : NULL);
        fputs(" |\n", f);
    }
}

/* Every check, in a table folded away unless some check warns or fails (or verbose). */
void report_env_html(FILE *f, const struct report_env *e, int verbose)
{
    const struct report_env *b = e;
    fputs("<h3>Environment</h3>\n<p class=\"note\">", f);
    if (!b->recorded) {
        fputs("not recorded in the trace</p>\n", f);
        return;
    }
    counts_line(f, b);
    fputs(" (the checks of <code>stepscope doctor</code>, from the trace's environment "
          "record)</p>\n",
          f);
    int open = verbose || b->counts[SSA_ENV_WARN] || b->counts[SSA_ENV_FAIL];
    fprintf(f, "<details%s><summary>every check</summary>\n<table class=\"sortable\">\n"
               "<thead><tr><th>status</th><th>check</th><th>value</th><th>fix</th></tr>"
               "</thead>\n<tbody>\n", open ? " open" : "");
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        int bad = v->status == SSA_ENV_WARN || v->status == SSA_ENV_FAIL;
        fprintf(f, "<tr><td>%s%s%s</td><td>%s</td><td>", bad ? "<b>" : "",
                ssa_env_status_name(v->status), bad ? "</b>" : "", ssa_env_checks[i].id);
        html_escaped(f, v->value);
        fputs("</td><td><code>", f);
        html_escaped(f, v->fix[0] ? v->fix : NULL);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n</details>\n", f);
}

void report_env_json(struct json_out *j, const struct report_env *e)
{
    const struct report_env *b = e;
    json_key(j, "environment");
    json_begin_array(j);
    for (size_t i = 0; i < b->n; i++) {
        const struct ssa_env_verdict *v = &b->v[i];
        json_begin_object(j);
        json_kv_string(j, "id", ssa_env_checks[i].id);
        json_kv_string(j, "title", ssa_env_checks[i].title);
        json_kv_string(j, "status", ssa_env_status_name(v->status));
        json_kv_string(j, "value", v->value);
        json_kv_string(j, "fix", v->fix[0] ? v->fix : NULL);
        json_end_object(j);
    }
    json_end_array(j);
}
