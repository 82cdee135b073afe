/*
 * report_md.c — `stepscope report --format md`: the headline, the breakdown table and the
 * ranked findings as Markdown (for a pull request or a wiki). Strings from the trace go
 * through md_escaped(): Markdown renders inline HTML, so they are HTML-escaped too.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"
#include "report_env.h"
#include "text_esc.h"

void md_escaped(FILE *f, const char *s)
{
    if (!s) {
        fputc('-', f);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        const char *e = html_entity(cp); /* Markdown renders inline HTML */
        if (e)
            fputs(e, f);
        else if (cp < 0x80 && strchr("\\`*_[]|#~!", (int)cp))
            fprintf(f, "\\%c", (char)cp);
        else if (cp == UTF8_INVALID)
            fputs("\xEF\xBF\xBD", f);
        else if (text_cp_is_unsafe(cp))
            fputc(' ', f);
        else
            fwrite(p + i, 1, len, f);
        i += len;
    }
}

static void md_headline(FILE *f, const struct ssa_result *r, const struct ssa_summary *s)
{
    char damage[256];
    fputs("## stepscope report: ", f);
    md_escaped(f, r->path);
    if (report_damage_text(r, damage, sizeof damage)) fprintf(f, "\n\n> **DAMAGED trace**: %s", damage);
    fprintf(f, "\n\n- **process**: pid %" PRIu32, r->pid);
    if (r->rank >= 0 && r->world_size > 0)
        fprintf(f, ", rank %" PRId32 "/%" PRId32, r->rank, r->world_size);
    fprintf(f, ", %" PRIu32 " device(s), first ", r->n_devices);
    md_escaped(f, r->device_name);
    fputs("\n- **command**: ", f);
    md_escaped(f, r->cmdline);
    fputs("\n- **trace**: ", f);
    md_escaped(f, r->state_line);
    fprintf(f, "; %" PRIu64 " records, %" PRIu64 " kernels, %" PRIu64 " copies\n", r->records,
            r->kernels, r->memcpys);
    if (r->step_source == SSA_STEPS_NONE)
        fprintf(f, "- **steps**: no step markers: whole trace as one interval (%.1f ms)\n",
                ms(s->total_ns));
    else
        fprintf(f, "- **steps**: %zu of %zu (%s), %zu warm-up excluded%s%s\n", s->steps, r->n_steps,
                ssa_step_source_name(r->step_source), r->n_warmup,
                r->marker_unmatched ? "; no complete NVTX range matched --step-marker" : "",
                 r->outside_capture ? "; steps outside the GPU capture window not counted" : "");
    if (s->steps && r->step_source != SSA_STEPS_NONE)
        fprintf(f,
                "- **step time**: median %.2f ms, p10 %.2f, p90 %.2f, mean %.2f; "
                "%.2f steps/s\n",
                ms(s->median_ns), ms(s->p10_ns), ms(s->p90_ns), ms(s->mean_ns), s->steps_per_s);
    char rec[256];
    if (report_rec_cost_text(s, rec, sizeof rec)) fprintf(f, "- **recording**: %s\n", rec);
    if (s->host_ahead)
        fprintf(f,
                "- **caution**: the GPU ran behind the host (%.1f launches, %.1f GPU operations "
                "per step): these step times understate the training step\n",
                s->launches_per_step, s->gpu_ops_per_step);
    const char *left_to = report_gpu_left_to(r);
    if (left_to) {
        fputs("- **GPU busy**: not recorded: GPU activity was left to another tool (", f);
        md_escaped(f, left_to);
        fputs(")\n", f);
        return;
    }
    fprintf(f, "- **GPU busy**: %.1f %%%s\n", s->gpu_busy_pct,
            report_has_gpu(r) ? "" : " (no GPU activity recorded: every instant is GPU idle)");
}

static void md_breakdown(FILE *f, const struct ssa_result *r, const struct ssa_summary *s)
{
    int per_step = r->step_source != SSA_STEPS_NONE;
    fprintf(f,
            "\n### Where the step time goes\n\n| category | %s | %% | meaning |\n"
            "|---|---:|---:|---|\n",
            per_step ? "ms/step" : "ms");
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        if (s->cat_pct[c] <= 0) continue;
        double v = per_step ? s->cat_ms[c] : s->cat_ms[c] * (double)s->steps;
        fprintf(f, "| %s | %.3f | %.1f | %s |\n", ssa_cat_name(c), v, s->cat_pct[c],
                ssa_cat_description(c));
    }
    fprintf(f, "| **total** | %.3f | 100.0 | |\n", per_step ? ms(s->mean_ns) : ms(s->total_ns));
}

static void md_findings(FILE *f, const struct ssa_result *r, const struct ssa_summary *s,
                        int verbose)
{
    struct ssa_findings fs;
    report_findings(r, s, &fs);
    fputs("\n### Findings, ranked by estimated saving\n\n", f);
    if (!fs.n) fprintf(f, "None above %.0f %% of the step.\n", SSA_FINDING_MIN_PCT);
    for (size_t i = 0; i < fs.n; i++) {
        const struct ssa_finding *x = &fs.v[i];
        fprintf(f, "%zu. **[%s] ", i + 1, ssa_level_name(x->severity));
        md_escaped(f, x->title);
        fprintf(f, "**: saves ~%.2f ms/step (%.0f %%, %.2fx), confidence %s  \n   Evidence: ",
                x->saving_ms, x->saving_pct, x->speedup, ssa_level_name(x->confidence));
        md_escaped(f, x->evidence);
        if (verbose) {
            fputs("  \n   Estimate: ", f);
            md_escaped(f, x->estimate);
        }
        fputs("  \n   Fix: ", f);
        md_escaped(f, x->fix);
        fputc('\n', f);
    }
}

void report_md(FILE *f, const struct ssa_result *r, const struct report_opts *o)
{
    struct ssa_summary s;
    ssa_summarize(r, &s);
    md_headline(f, r, &s);
    report_env_md(f, r, o->verbose);
    if (!s.steps) {
        fputs("\nNothing to attribute: the trace has no timed records inside a step.\n\n", f);
        return;
    }
    md_breakdown(f, r, &s);
    md_findings(f, r, &s, o->verbose);
    fputc('\n', f);
}
