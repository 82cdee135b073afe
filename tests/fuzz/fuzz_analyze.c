/*
 * fuzz_analyze.c — libFuzzer target: the analysis (ssa_analyze_file_ex, ssa_summarize,
 * ssa_find, ssa_outliers) and every report writer on a fuzzed trace.
 *
 * The input is a trace; its checksums are repaired first (fuzz_util.h) so that mutations
 * reach the records. It is analysed once and written once, to /dev/null; the input's last
 * byte (which in a real trace sits in the END chunk) chooses the analysis options (warm-up,
 * marker name or regex, window) and its second-to-last byte the mode, the writer and its
 * verbosity and colour: full mode with text or JSON, or compact mode with the median-step
 * timeline and HTML or Markdown. One analysis per input keeps the rate up; the corpus covers the
 * combinations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "fuzz_util.h"
#include "json_out.h"
#include "report.h"

static FILE *g_null;

static void options_from(uint8_t sel, struct ssa_opts *o)
{
    static const char *const markers[] = {NULL, "step", "re:^ProfilerStep", "re:(a|b)*c"};
    memset(o, 0, sizeof *o);
    o->no_warmup = sel & 1;
    o->ignore_markers = (sel >> 1) & 1;
    if (sel & 4) o->warmup_fixed = 1, o->warmup_steps = (sel >> 3) & 3;
    o->step_marker = markers[(sel >> 5) & 3];
    if (sel & 0x80) o->window_ns = 10000000ull * ((sel & 0x0f) + 1); /* 10..160 ms */
}

static void analyse(const char *path, const struct ssa_opts *so, uint8_t how)
{
    unsigned flags = how & 1 ? SSA_COMPACT | SSA_TIMELINE | SSA_STEP_BINS : 0;
    struct ssa_result *r = NULL;
    if (ssa_analyze_file_ex(path, so, flags, &r) != 0) return;
    struct ssa_summary s;
    struct ssa_findings f;
    struct ssa_outlier out[4];
    ssa_summarize(r, &s);
    ssa_find(r, &s, NULL, &f);
    ssa_outliers(r, &s, out, 4);
    struct report_opts ro = {.verbose = (how >> 2) & 1, .color = (how >> 3) & 1, .ssa = *so};
    static const int formats[] = {REPORT_TEXT, REPORT_HTML, REPORT_JSON, REPORT_MD};
    ro.format = formats[how & 3];
    report_write_single(g_null, r, &ro); /* through the writer table, as `report` does */
    ssa_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz_file file = {.fd = -1};
    if (file.fd < 0) {
        fz_file_init(&file, "fuzz-analyze");
        g_null = fopen("/dev/null", "w");
        if (!g_null) abort();
    }
    uint8_t *fixed = malloc(size ? size : 1);
    if (!fixed) return 0;
    if (size) memcpy(fixed, data, size);
    fz_fix_crcs(fixed, size);
    fz_file_set(&file, fixed, size);
    free(fixed);
    struct ssa_opts so;
    options_from(size ? data[size - 1] : 0, &so);
    analyse(file.path, &so, size > 1 ? data[size - 2] : 0);
    clearerr(g_null);
    return 0;
}
