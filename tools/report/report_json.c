/*
 * report_json.c — the JSON format, every section of it (the schema of docs/report-json.md;
 * keys are only ever added within a version): one object per trace, the "ranks" object of a
 * multi-GPU job, diff's "stepscope.diff" object.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "report.h"
#include "util/ss_cxxname.h"
#include "report_diff.h"
#include "trace/sst_names.h"
#include "analysis/ssa_align.h"

/* ---- JSON (docs/report-json.md) ---- */

/* The damage model's counts by kind (only the kinds with a count), issue #41. */
static void json_damage_kinds(struct json_out *j, const struct sst_damage *d)
{
    json_key(j, "kinds");
    json_begin_object(j);
    for (uint8_t k = 1; k < SST_DAMAGE_LIMIT; k++)
        if (d->count[k]) json_kv_u64(j, sst_damage_kind_name(k), d->count[k]);
    json_end_object(j);
}

static void json_damaged(struct json_out *j, const struct sst_damage *d)
{
    json_key(j, "damaged");
    if (!d->damaged) {
        json_bool(j, 0);
        return;
    }
    json_begin_object(j);
    json_kv_u64(j, "records_read", d->records_read);
    json_kv_u64(j, "records_expected", d->records_expected);
    json_kv_u64(j, "chunks_read", d->chunks_read);
    json_kv_u64(j, "chunks_expected", d->chunks_expected);
    json_kv_double(j, "read_fraction", d->read_fraction);
    json_damage_kinds(j, d);
    json_end_object(j);
}

static void json_process(struct json_out *j, const struct report_view *v)
{
    const struct report_trace *t = &v->trace;
    json_key(j, "process");
    json_begin_object(j);
    json_kv_u64(j, "pid", t->pid);
    json_kv_i64(j, "rank", t->rank);
    json_kv_i64(j, "world_size", t->world_size);
    json_kv_string(j, "cmdline", t->cmdline);
    json_kv_string(j, "device", t->device);
    json_kv_u64(j, "devices", t->n_devices);
    json_end_object(j);
    json_key(j, "trace");
    json_begin_object(j);
    json_kv_string(j, "state", t->state);
    json_kv_bool(j, "closed", t->closed);
    json_kv_bool(j, "truncated", t->truncated);
    json_kv_u64(j, "bad_chunks", t->bad_chunks);
    json_kv_u64(j, "problems", t->problems);
    json_kv_u64(j, "records", t->records);
    json_kv_u64(j, "kernels", t->kernels);
    json_kv_u64(j, "memcpys", t->memcpys);
    json_kv_u64(j, "memsets", t->memsets);
    if (t->graphs) json_kv_u64(j, "graphs", t->graphs);
    json_kv_u64(j, "api_calls", t->api_calls);
    json_kv_u64(j, "dropped", t->dropped);
    json_damaged(j, t->damage);
    json_key(j, "incomplete"); /* issue #29: damaged or truncated; report exits 1 then */
    json_bool(j, v->damaged);
    json_end_object(j);
}

/* Up to 10 of the slowest steps over SSA_OUTLIER_FACTOR x the median. */
static void json_outliers(struct json_out *j, const struct report_view *v)
{
    const struct ssa_outlier *o = v->outliers;
    size_t n = v->n_outliers;
    json_kv_u64(j, "outliers_total", n);
    json_key(j, "outliers");
    json_begin_array(j);
    for (size_t i = 0; i < n && i < 10; i++) {
        json_begin_object(j);
        json_kv_u64(j, "step", o[i].number);
        json_kv_double(j, "ms", ms(o[i].dur_ns));
        json_kv_double(j, "over_median_ms", ms(o[i].over_median_ns));
        json_kv_string(j, "category", ssa_cat_name(o[i].cat));
        json_kv_string(j, "category_is", o[i].excess ? "largest_excess" : "largest");
        if (o[i].excess) json_kv_double(j, "category_excess_ms", ms(o[i].cat_excess_ns));
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_recording_cost(struct json_out *j, const struct ssa_summary *s);

/* Where the steps came from, as the analysis counted them. */
static void json_step_source(struct json_out *j, const struct report_steps *t,
                             const struct ssa_summary *s)
{
    int none = t->source == SSA_STEPS_NONE;
    json_kv_string(j, "source", ssa_step_source_name(t->source));
    json_kv_u64(j, "training_tid", t->train_tid);
    json_kv_u64(j, "total", none ? 0 : t->total);
    json_kv_u64(j, "warmup_excluded", t->warmup);
    if (t->price_outliers) json_kv_u64(j, "outliers_left_out", t->price_outliers);
    if (t->warmup_asked) json_kv_u64(j, "warmup_requested", t->warmup_asked);
    json_kv_bool(j, "warmup_autotune", t->warmup_autotune);
    json_kv_u64(j, "warmup_fill", t->warmup_fill);
    json_kv_bool(j, "marker_unmatched", t->marker_unmatched);
    json_kv_bool(j, "host_ahead", s->host_ahead);
    json_kv_bool(j, "gpu_paced", t->gpu_paced);
    if (t->gpu_paced) json_kv_double(j, "host_pace_ms", ms(t->host_pace_ns));
    if (t->source == SSA_STEPS_GRAPHS) {
        json_kv_u64(j, "graph_id", t->graph_id == SSA_GRAPH_UNTOLD ? 0 : t->graph_id);
        json_kv_u64(j, "graph_launches", t->graph_launches);
        json_kv_u64(j, "markers_set_aside", t->markers_set_aside);
    }
    json_kv_u64(j, "analysed", none ? 0 : s->steps);
}

/* What the capture and the recording left out of the steps. */
static void json_step_capture(struct json_out *j, const struct report_steps *t)
{
    json_kv_u64(j, "unended_ranges", t->unended);
    json_kv_u64(j, "outside_capture", t->outside_capture);
    if (t->queued_at_open) json_kv_u64(j, "queued_at_open", t->queued_at_open);
    if (t->launch_sample) json_kv_u64(j, "launch_sample", t->launch_sample);
    json_kv_u64(j, "launch_unsampled", t->launch_unsampled);
    if (t->capture_never_opened) json_kv_bool(j, "capture_never_opened", 1);
    if (t->window_opened != SSA_WINDOW_AT_STEP)
        json_kv_string(j, "window_opened", ssa_window_opener_token(t->window_opened));
    if (t->gpu_ends_at_close) json_kv_u64(j, "gpu_ends_at_close", t->gpu_ends_at_close);
}

static void json_steps(struct json_out *j, const struct report_view *v)
{
    const struct ssa_summary *s = &v->s;
    json_key(j, "steps");
    json_begin_object(j);
    json_step_source(j, &v->steps, s);
    json_step_capture(j, &v->steps);
    json_kv_double(j, "interval_ms", ms(s->total_ns));
    json_kv_double(j, "median_ms", ms(s->median_ns));
    json_kv_double(j, "p10_ms", ms(s->p10_ns));
    json_kv_double(j, "p90_ms", ms(s->p90_ns));
    json_kv_double(j, "mean_ms", ms(s->mean_ns));
    json_kv_double(j, "steps_per_s", s->steps_per_s);
    json_outliers(j, v);
    json_end_object(j);
    json_recording_cost(j, s);
}

/* docs/report-json.md "recording_cost": the basis, the figure, and what the run measured. */
static void json_recording_cost(struct json_out *j, const struct ssa_summary *s)
{
    json_key(j, "recording_cost");
    json_begin_object(j);
    json_kv_string(j, "basis", ssa_rec_basis_name(s->rec_basis));
    json_kv_double(j, "us_per_launch", s->rec_us_per_launch);
    json_kv_double(j, "ms_per_step", s->rec_cost_ms);
    json_kv_double(j, "gpu_busy_pct_without", s->gpu_busy_pct_unrecorded);
    json_kv_double(j, "inline_ms_per_step", s->rec_inline_ms);
    if (s->rec_launch_call_us > 0) json_kv_double(j, "launch_call_us", s->rec_launch_call_us);
    if (s->graph_launches_per_step >= 0.5)
        json_kv_double(j, "us_per_graph_launch", s->rec_cost_ms * 1e3 / s->graph_launches_per_step);
    if (s->rec_launch_pairs) {
        json_kv_double(j, "launch_calls_ms_per_step", s->rec_launch_ms);
        json_kv_double(j, "launch_calls_low", s->rec_launch_lo_ms);
        json_kv_double(j, "launch_calls_high", s->rec_launch_hi_ms);
        json_kv_u64(j, "launch_calls_steps", s->rec_launch_pairs);
    }
    if (ssa_rec_has_range(s->rec_basis)) {
        json_kv_double(j, "ms_per_step_low", s->rec_cost_lo_ms);
        json_kv_double(j, "ms_per_step_high", s->rec_cost_hi_ms);
    }
    if (s->rec_basis == SSA_REC_MEASURED) {
        json_kv_double(j, "baseline_ms", s->rec_baseline_ms);
        json_kv_u64(j, "baseline_steps", s->rec_baseline_steps);
    }
    const char *unusable = ssa_baseline_unusable(s->rec_baseline_verdict);
    if (unusable) {
        json_kv_string(j, "baseline_unusable", unusable);
        json_kv_u64(j, "unrecorded_steps", s->rec_unrecorded_steps);
        json_kv_double(j, "unrecorded_ms", s->rec_unrecorded_ms);
        json_kv_double(j, "recorded_ms", s->rec_recorded_ms);
    }
    if (s->rec_baseline_verdict == SSA_BASELINE_IMPRECISE) {
        json_kv_double(j, "baseline_measured_ms", s->rec_measured_ms);
        json_kv_double(j, "baseline_measured_half_ms", s->rec_measured_half_ms);
    }
    json_end_object(j);
}

static void json_categories(struct json_out *j, const struct ssa_summary *s, int per_step)
{
    json_kv_double(j, "gpu_busy_pct", s->gpu_busy_pct);
    json_key(j, "categories");
    json_begin_array(j);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        json_begin_object(j);
        json_kv_string(j, "name", ssa_cat_name(c));
        json_kv_bool(j, "gpu_busy", c < SSA_CAT_FIRST_IDLE);
        json_kv_double(j, "ms", s->cat_ms[c] * (double)s->steps);
        json_key(j, "ms_per_step");
        if (per_step)
            json_double(j, s->cat_ms[c]);
        else
            json_null(j);
        json_kv_double(j, "pct", s->cat_pct[c]);
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "kernel_classes");
    json_begin_array(j);
    for (int k = 0; k < SSA_KC_COUNT; k++) {
        json_begin_object(j);
        json_kv_string(j, "name", ssa_kclass_name(k));
        json_kv_double(j, "kernel_ms_per_step", s->steps ? s->kclass_ms[k] : 0);
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_per_step_means(struct json_out *j, const struct ssa_summary *s)
{
    json_key(j, "per_step");
    json_begin_object(j);
    json_kv_double(j, "kernels", s->kernels_per_step);
    json_kv_double(j, "launches", s->launches_per_step);
    json_kv_double(j, "gpu_ops", s->gpu_ops_per_step);
    json_kv_double(j, "syncs", s->syncs_per_step);
    json_kv_double(j, "h2d_copies", s->h2d_copies_per_step);
    json_kv_double(j, "h2d_mib", s->h2d_mib_per_step);
    json_kv_double(j, "pageable_h2d_mib", s->pageable_h2d_mib_per_step);
    if (s->graph_launches_per_step > 0 || s->graph_gpu_ms > 0) {
        json_kv_double(j, "graph_launches", s->graph_launches_per_step);
        json_kv_double(j, "graph_kernels", s->graph_kernels_per_step);
        json_kv_double(j, "graph_gpu_ms", s->graph_gpu_ms);
    }
    json_end_object(j);
}

static void json_reason(struct json_out *j, const char *key, const char *reason)
{
    json_kv_string(j, key, reason[0] ? reason : NULL); /* NULL writes null */
}

static void json_program(struct json_out *j, const struct ssa_program *p)
{
    json_key(j, "program");
    json_begin_object(j);
    json_kv_string(j, "kind", ssa_program_kind_name(p->kind));
    json_kv_bool(j, "kind_recorded", p->kind_recorded);
    json_kv_bool(j, "compiled", p->compiled);
    json_kv_double(j, "triton_pct", p->triton_pct);
    json_kv_u64(j, "compiles", p->compiles);
    json_kv_u64(j, "recompiles", p->recompiles);
    json_kv_u64(j, "graph_breaks", p->graph_breaks);
    json_kv_double(j, "compile_ms", (double)p->compile_ns / 1e6);
    json_reason(j, "recompile_reason", p->recompile_reason);
    json_reason(j, "graph_break_reason", p->graph_break_reason);
    json_end_object(j);
}

/* A number, or null when unknown (0: not marked, no peak). */
static void json_kv_known(struct json_out *j, const char *key, double v)
{
    json_key(j, key);
    if (v > 0)
        json_double(j, v);
    else
        json_null(j);
}

static void json_peak(struct json_out *j, const struct ssa_device_peak *p)
{
    json_key(j, "device_peak");
    if (!p) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_string(j, "row", p->name);
    json_kv_double(j, "bf16_tflops", p->bf16_tflops);
    json_kv_double(j, "tf32_tflops", p->tf32_tflops);
    json_kv_double(j, "fp32_tflops", p->fp32_tflops);
    json_kv_double(j, "hbm_gb_per_s", p->hbm_gbps);
    json_end_object(j);
}

static void json_throughput(struct json_out *j, const struct report_view *v)
{
    const struct ssa_throughput *t = &v->tp;
    const struct ssa_batch *b = &v->batch;
    json_key(j, "throughput");
    json_begin_object(j);
    json_kv_double(j, "steps_per_s", t->steps_per_s);
    json_kv_u64(j, "batch_marks", b->marks);
    json_kv_string(j, "batch_source", b->marks ? "marks" : b->from_loader ? "dataloader" : NULL);
    json_kv_known(j, "samples_per_step", b->samples);
    json_kv_known(j, "tokens_per_step", b->tokens);
    json_kv_known(j, "flops_per_step", b->flops);
    json_kv_string(j, "flops_source", b->flops <= 0 ? NULL : b->marks ? "marks" : "6 x params x tokens");
    json_kv_known(j, "params", b->params);
    json_kv_known(j, "samples_per_s", t->samples_per_s);
    json_kv_known(j, "tokens_per_s", t->tokens_per_s);
    json_kv_known(j, "flops_per_s", t->flops_per_s);
    json_kv_known(j, "gemm_flops_per_s", t->gemm_flops_per_s);
    json_kv_string(j, "peak_basis", t->peak_basis);
    json_kv_known(j, "mfu_pct", t->mfu_pct);
    json_kv_known(j, "gemm_peak_pct", t->gemm_peak_pct);
    json_peak(j, t->peak);
    json_end_object(j);
}

static void json_frame(struct json_out *j, const struct ssa_pyframe *f)
{
    json_begin_object(j);
    json_kv_string(j, "function", f->function);
    json_kv_string(j, "file", f->file);
    json_kv_u64(j, "line", f->line);
    json_end_object(j);
}

/* One hotspot (docs/report-json.md, "host_hotspots"). */
/* with_calls: the trace has PY_CALL records, and every hotspot says how many it caught. */
static void json_hotspot(struct json_out *j, const struct ssa_hotspot *h, int with_calls)
{
    json_begin_object(j);
    json_kv_string(j, "function", h->frame->function);
    json_kv_string(j, "file", h->frame->file);
    json_kv_u64(j, "line", h->frame->line);
    json_kv_u64(j, "first_line", h->frame->first_line);
    json_key(j, "library_frame");
    if (h->lib)
        json_frame(j, h->lib);
    else
        json_null(j);
    json_kv_double(j, "ms_per_step", h->ms_per_step);
    json_kv_double(j, "sampled_ms_per_step", h->raw_ms_per_step);
    json_kv_u64(j, "samples", h->samples);
    if (with_calls) json_kv_u64(j, "sync_calls", h->sync_calls);
    json_end_object(j);
}

/* The rule's prices on the fix-truth zoo's held-out programs (docs/report-json.md, held_out). */
static void json_held_out(struct json_out *j, const struct ssa_held_out *h)
{
    json_key(j, "held_out");
    json_begin_object(j);
    json_kv_i64(j, "programs", h->judged);
    json_kv_i64(j, "worst_error_pct", h->worst_pct);
    json_kv_i64(j, "median_error_pct", h->median_pct);
    json_kv_i64(j, "saved_nothing", h->nothing);
    json_kv_i64(j, "re_measure", h->remeasure);
    json_end_object(j);
}

static void json_hotspot_array(struct json_out *j, const struct ssa_hotspot *h, size_t n,
                               int with_calls)
{
    json_key(j, "host_hotspots");
    json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        json_hotspot(j, &h[i], with_calls);
    json_end_array(j);
}

/* The Python stack samples and, per GPU-idle category, the functions they were in: only in
 * reports of traces that have samples (the others stay as they were). */
static void json_host(struct json_out *j, const struct report_view *v)
{
    const struct ssa_host *h = v->host;
    json_key(j, "host_samples");
    json_begin_object(j);
    json_kv_u64(j, "samples", h->samples);
    json_kv_u64(j, "counted", h->counted);
    json_kv_double(j, "interval_ms", h->interval_ms);
    json_kv_u64(j, "late", h->late);
    json_kv_double(j, "gpu_idle_ms_per_step", v->sampled_idle_ms);
    if (h->sync_calls) {
        json_kv_u64(j, "sync_calls", h->sync_calls);
        json_kv_u64(j, "sync_calls_used", h->sync_calls_used);
    }
    json_end_object(j);
    json_key(j, "host_hotspots");
    json_begin_object(j);
    for (size_t c = 0; c < v->n_hostcats; c++) {
        const struct report_hostcat *hc = &v->hostcats[c];
        json_key(j, ssa_cat_name(hc->cat));
        json_begin_array(j);
        for (size_t i = 0; i < hc->n; i++)
            json_hotspot(j, &hc->v[i].h, h->sync_calls > 0);
        json_end_array(j);
    }
    json_end_object(j);
}

/* Every finding fixed at once: its estimate, and whether the savings overlap. */
static void json_all_fixed(struct json_out *j, const struct ssa_findings *f)
{
    if (!f->n) return;
    json_key(j, "all_fixed");
    json_begin_object(j);
    json_kv_double(j, "ms_per_step", f->all_ms);
    json_kv_double(j, "sum_ms_per_step", f->sum_ms);
    json_kv_double(j, "floor_ms", f->floor_ms);
    json_kv_bool(j, "overlap", f->overlap);
    json_end_object(j);
}

static void json_findings(struct json_out *j, const struct ssa_findings *f, int has_samples,
                          int with_calls)
{
    /* alternative_to: the id of a finding above whose fix removes the same time */
    json_key(j, "findings");
    json_begin_array(j);
    for (size_t i = 0; i < f->n; i++) {
        const struct ssa_finding *x = &f->v[i];
        json_begin_object(j);
        json_kv_string(j, "id", x->id);
        json_kv_string(j, "title", x->title);
        json_kv_string(j, "severity", ssa_level_name(x->severity));
        json_kv_string(j, "confidence", ssa_level_name(x->confidence));
        json_kv_double(j, "saving_ms_per_step", x->saving_ms);
        json_held_out(j, &x->held_out);
        if (x->note) json_kv_bool(j, "note", 1);
        json_kv_double(j, "saving_pct", x->saving_pct);
        json_kv_double(j, "speedup", x->speedup);
        json_kv_string(j, "evidence", x->evidence);
        json_kv_string(j, "estimate", x->estimate);
        json_kv_string(j, "fix", x->fix);
        if (x->alternative_to) json_kv_string(j, "alternative_to", x->alternative_to);
        if (has_samples) json_hotspot_array(j, x->hot, x->n_hot, with_calls);
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_top_kernels(struct json_out *j, const struct report_view *v)
{
    json_key(j, "top_kernels");
    json_begin_array(j);
    for (size_t i = 0; i < v->n_knames && i < TOP_KERNELS; i++) {
        json_begin_object(j);
        char *dem = ss_demangle(v->kname_text[i], strlen(v->kname_text[i]));
        json_kv_string(j, "name", dem ? dem : v->kname_text[i]);
        if (dem) json_kv_string(j, "mangled", v->kname_text[i]);
        free(dem);
        json_kv_string(j, "class", ssa_kclass_name(v->knames[i].kclass));
        /* Triton kernels are torch.compile's (Inductor) own, generated for this program */
        if (v->triton[i]) json_kv_string(j, "generated_by", "triton");
        json_kv_u64(j, "count", v->knames[i].count);
        json_kv_double(j, "total_ms", ms(v->knames[i].total_ns));
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_u64_array(struct json_out *j, const char *key, const void *v, size_t n, int is32)
{
    json_key(j, key);
    json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        json_u64(j, is32 ? ((const uint32_t *)v)[i] : ((const uint64_t *)v)[i]);
    json_end_array(j);
}

static void json_step_counts(struct json_out *j, const struct ssa_step_counts *n)
{
    json_key(j, "counts");
    json_begin_object(j);
    json_kv_u64(j, "kernels", n->kernels);
    json_u64_array(j, "kernels_by_class", n->kernels_by_class, SSA_KC_COUNT, 1);
    json_u64_array(j, "kernel_ns_by_class", n->kernel_ns_by_class, SSA_KC_COUNT, 0);
    json_kv_u64(j, "launches", n->launches);
    json_kv_u64(j, "launch_api_ns", n->launch_api_ns);
    json_kv_u64(j, "syncs", n->syncs);
    json_kv_u64(j, "sync_api_ns", n->sync_api_ns);
    json_kv_u64(j, "allocs", n->allocs);
    json_kv_u64(j, "alloc_api_ns", n->alloc_api_ns);
    json_u64_array(j, "copies", n->copies, SSA_COPY_KINDS, 1);
    json_u64_array(j, "copy_bytes", n->copy_bytes, SSA_COPY_KINDS, 0);
    json_u64_array(j, "copy_ns", n->copy_ns, SSA_COPY_KINDS, 0);
    json_u64_array(j, "pageable_copies", n->pageable_copies, SSA_COPY_KINDS, 1);
    json_u64_array(j, "pageable_bytes", n->pageable_bytes, SSA_COPY_KINDS, 0);
    json_u64_array(j, "pageable_ns", n->pageable_ns, SSA_COPY_KINDS, 0);
    json_kv_u64(j, "blocking_copies", n->blocking_copies);
    json_kv_u64(j, "blocking_pageable_h2d_ns", n->blocking_pageable_h2d_ns);
    json_kv_u64(j, "short_gaps", n->short_gaps);
    json_kv_u64(j, "short_gap_ns", n->short_gap_ns);
    json_kv_u64(j, "post_sync_runs", n->post_sync_runs);
    json_kv_u64(j, "post_sync_ns", n->post_sync_ns);
    json_kv_u64(j, "pre_h2d_runs", n->pre_h2d_runs);
    json_kv_u64(j, "pre_h2d_ns", n->pre_h2d_ns);
    json_kv_u64(j, "memsets", n->memsets);
    json_kv_u64(j, "sync_records", n->sync_records);
    json_kv_u64(j, "data_ranges", n->data_ranges);
    json_kv_u64(j, "data_ns", n->data_ns);
    json_end_object(j);
}

static void json_step_list(struct json_out *j, const struct report_view *v)
{
    json_key(j, "step_list");
    json_begin_array(j);
    for (size_t i = 0; v->step_list && i < v->steps.total; i++) {
        const struct ssa_step *st = &v->step_list[i];
        json_begin_object(j);
        json_kv_u64(j, "number", st->number);
        json_kv_u64(j, "begin_ns", st->begin_ns);
        json_kv_u64(j, "end_ns", st->end_ns);
        json_kv_bool(j, "warmup", st->warmup);
        json_key(j, "cat_ns");
        json_begin_object(j);
        for (int c = 0; c < SSA_CAT_COUNT; c++)
            json_kv_u64(j, ssa_cat_name(c), st->cat_ns[c]);
        json_end_object(j);
        json_step_counts(j, &st->n);
        json_end_object(j);
    }
    json_end_array(j);
}

/* Every check of the view (docs/report-json.md, "environment"); values quote the trace. */
static void json_env(struct json_out *j, const struct report_env *b)
{
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

/* A whole-run line and its library frame (index + 1 into the samples' frames), or null. */
static void json_run_where(struct json_out *j, const struct report_view *v,
                           const struct ssa_run_where *w)
{
    const struct ssa_pytab *t = &v->host->tab;
    json_kv_string(j, "cause", ssa_run_cause(w->cause)->name);
    json_key(j, "where");
    if (w->frame && w->frame <= t->n_frames)
        json_frame(j, &t->frames[w->frame - 1]);
    else
        json_null(j);
    json_key(j, "library_frame");
    if (w->lib && w->lib <= t->n_frames)
        json_frame(j, &t->frames[w->lib - 1]);
    else
        json_null(j);
}

static void json_run_stalls(struct json_out *j, const struct report_view *v,
                            const struct ssa_run_stalls *s)
{
    json_begin_object(j);
    json_key(j, "every_steps"); /* null: at irregular steps */
    if (s->every)
        json_u64(j, s->every);
    else
        json_null(j);
    json_kv_u64(j, "count", s->count);
    json_kv_u64(j, "first_step", s->first_step);
    json_kv_u64(j, "last_step", s->last_step);
    json_kv_double(j, "each_ms", s->each_ms);
    json_kv_double(j, "extra_ms", s->extra_ms);
    json_kv_double(j, "share_of_run", s->share);
    json_run_where(j, v, &s->where);
    json_kv_double(j, "where_ms_each", s->where_ms);
    json_kv_double(j, "cause_ms_each", s->cause_ms);
    json_end_object(j);
}

static void json_run_drift(struct json_out *j, const struct report_view *v,
                           const struct ssa_run_drift *d)
{
    json_key(j, "drift");
    if (!d->found) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_u64(j, "first_from", d->a_from);
    json_kv_u64(j, "first_to", d->a_to);
    json_kv_u64(j, "last_from", d->b_from);
    json_kv_u64(j, "last_to", d->b_to);
    json_kv_double(j, "first_ms", d->a_ms);
    json_kv_double(j, "last_ms", d->b_ms);
    json_kv_double(j, "change", d->change);
    json_kv_double(j, "trend", d->trend);
    json_kv_double(j, "extra_ms", d->extra_ms);
    json_kv_double(j, "share_of_run", d->share);
    json_run_where(j, v, &d->where);
    json_kv_double(j, "where_first_ms", d->where_a_ms);
    json_kv_double(j, "where_last_ms", d->where_b_ms);
    json_end_object(j);
}

static void json_run_windows(struct json_out *j, const struct ssa_run *run)
{
    json_key(j, "windows");
    json_begin_array(j);
    for (size_t k = 0; k < run->n_windows && k < SSA_RUN_MAX_WINDOWS; k++) {
        const struct ssa_run_window *w = &run->windows[k];
        json_begin_object(j);
        json_kv_u64(j, "first_step", run->number[w->from]);
        json_kv_u64(j, "last_step", run->number[w->to - 1]);
        json_kv_u64(j, "steps_compared", w->steps);
        json_kv_double(j, "ms_per_step", w->steps ? (double)w->ns / 1e6 / (double)w->steps : 0);
        json_end_object(j);
    }
    json_end_array(j);
}

static void json_run_series(struct json_out *j, const struct report_run *w)
{
    json_key(j, "series");
    json_begin_object(j);
    json_kv_u64(j, "steps_per_point", w->steps_per_point);
    json_key(j, "first_step");
    json_begin_array(j);
    for (size_t p = 0; p < w->n_points; p++) json_u64(j, w->point_step[p]);
    json_end_array(j);
    json_key(j, "ms");
    json_begin_array(j);
    for (size_t p = 0; p < w->n_points; p++) json_double(j, w->point_ms[p]);
    json_end_array(j);
    json_end_object(j);
}

/* The whole run (docs/report-json.md, "run"): only where the text report shows it. */
static void json_run(struct json_out *j, const struct report_view *v)
{
    const struct report_run *w = &v->run;
    const struct ssa_run *run = w->run;
    json_key(j, "run");
    json_begin_object(j);
    json_kv_u64(j, "steps", run->n);
    json_kv_double(j, "seconds", (double)ssa_run_span_ns(run) / 1e9);
    json_kv_double(j, "usual_ms", (double)run->usual_ns / 1e6);
    json_kv_bool(j, "incomplete", v->damaged);
    json_run_windows(j, run);
    json_key(j, "stalls");
    json_begin_array(j);
    for (size_t k = 0; k < run->n_stalls; k++) json_run_stalls(j, v, &run->stalls[k]);
    json_end_array(j);
    json_run_drift(j, v, &run->drift);
    json_run_series(j, w);
    json_end_object(j);
}

static void json_process_object(struct json_out *j, const struct report_view *v, int verbose)
{
    json_begin_object(j);
    json_kv_string(j, "schema", "stepscope.report");
    json_kv_u64(j, "version", 1);
    json_kv_string(j, "file", v->trace.path);
    json_process(j, v);
    json_steps(j, v);
    json_kv_string(j, "gpu_left_to", v->gpu_left_to); /* null: the collector had it */
    json_categories(j, &v->s, v->per_step);
    if (v->has_samples) json_host(j, v);
    json_per_step_means(j, &v->s);
    if (v->has_throughput) json_throughput(j, v);
    json_program(j, v->prog);
    json_findings(j, &v->f, v->has_samples, v->host->sync_calls > 0);
    json_all_fixed(j, &v->f);
    json_env(j, &v->env);
    json_top_kernels(j, v);
    if (v->run.shown) json_run(j, v);
    if (verbose) json_step_list(j, v);
    json_end_object(j);
}

/* ---- the ranks of a multi-GPU job: the top-level "ranks" object ---- */

static void json_spread(struct json_out *j, const char *key, const struct ssa_spread *s)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_double(j, "p10", s->p10);
    json_kv_double(j, "median", s->p50);
    json_kv_double(j, "p90", s->p90);
    json_end_object(j);
}

static void json_rank(struct json_out *j, const struct ssa_rank *k, const struct report_input *r)
{
    json_begin_object(j);
    json_kv_i64(j, "rank", k->rank);
    json_kv_string(j, "file", r->path);
    json_kv_u64(j, "pid", r->pid);
    json_kv_bool(j, "compared", k->usable);
    json_kv_double(j, "step_mean_ms", k->step_ms);
    json_kv_double(j, "step_median_ms", k->median_ms);
    json_kv_double(j, "gpu_busy_pct", k->busy_pct);
    json_kv_double(j, "nccl_kernel_ms_per_step", k->nccl_ms);
    json_kv_double(j, "exposed_comm_ms_per_step", k->comm_ms);
    json_kv_double(j, "overlapped_pct", k->overlap_pct);
    json_kv_double(j, "noncomm_ms_per_step", k->noncomm_ms);
    json_kv_string(j, "largest_noncomm_category", ssa_cat_name(k->top_cat));
    json_kv_double(j, "largest_noncomm_ms_per_step", k->top_ms);
    json_kv_double(j, "waiting_ms_per_step", k->wait_ms);
    json_end_object(j);
}

static void json_straggler(struct json_out *j, const struct ssa_job *job,
                           const struct report_input *in)
{
    json_key(j, "straggler");
    if (!job->has_straggler) {
        json_null(j);
        return;
    }
    const struct ssa_rank *s = &job->ranks[job->straggler];
    json_begin_object(j);
    json_kv_i64(j, "rank", s->rank);
    json_kv_string(j, "file", in[s->input].path);
    json_kv_string(j, "why_category", ssa_cat_name(job->why_cat));
    json_kv_double(j, "why_excess_ms_per_step", job->why_ms);
    json_kv_double(j, "price_ms_per_step", job->price_ms);
    json_kv_double(j, "price_pct", s->step_ms > 0 ? 100 * job->price_ms / s->step_ms : 0);
    json_end_object(j);
}

/* ---- the alignment of the ranks (docs/report-json.md, "alignment") ---- */

/* ms, and ms per step (NaN, written null, when the steps are not known) */
static void json_ms_pair(struct json_out *j, const char *key, const char *key_step, double ns,
                         size_t steps)
{
    json_kv_double(j, key, ns / 1e6);
    json_kv_double(j, key_step, steps ? ns / 1e6 / (double)steps : NAN);
}

static void json_align_host(struct json_out *j, const struct ssa_align *a, size_t h)
{
    const struct ssa_align_host *x = &a->hosts[h];
    json_begin_object(j);
    json_kv_string(j, "host", a->ranks[x->first].host_name);
    json_kv_i64(j, "rank_lo", x->rank_lo);
    json_kv_i64(j, "rank_hi", x->rank_hi);
    json_kv_u64(j, "ranks", x->n_ranks);
    json_kv_double(j, "offset_ns", x->offset_ns);
    json_kv_u64(j, "offset_at_ns", x->at_ns);
    json_kv_double(j, "drift_ppm", x->drift_ppm);
    json_kv_double(j, "wall_clock_offset_ns", x->coarse_ns);
    json_kv_u64(j, "collectives_fitted", x->n_fit);
    json_kv_double(j, "fit_rms_us", x->fit_rms_ns / 1e3);
    json_kv_u64(j, "last_arrivals", x->last);
    json_ms_pair(j, "caused_wait_ms", "caused_wait_ms_per_step", x->caused_ns, a->steps);
    json_end_object(j);
}

static void json_align_rank(struct json_out *j, const struct ssa_align *a, size_t r)
{
    const struct ssa_align_rank *k = &a->ranks[r];
    json_begin_object(j);
    json_kv_i64(j, "rank", k->rank);
    json_kv_u64(j, "host", k->host);
    json_kv_u64(j, "clock_pairs", k->n_pairs);
    json_kv_u64(j, "collectives", k->n_coll);
    json_kv_u64(j, "last_arrivals", k->last);
    json_ms_pair(j, "wait_ms", "wait_ms_per_step", k->wait_ns, a->steps);
    json_ms_pair(j, "caused_wait_ms", "caused_wait_ms_per_step", k->caused_ns, a->steps);
    json_end_object(j);
}

static void json_align(struct json_out *j, const struct ssa_align *a)
{
    json_key(j, "alignment");
    if (!a) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_u64(j, "matched", a->n_coll);
    json_kv_u64(j, "unmatched", a->n_unmatched);
    json_kv_u64(j, "priced", a->n_priced);
    json_kv_u64(j, "undetermined", a->n_undetermined);
    json_kv_u64(j, "steps", a->steps);
    json_kv_double(j, "end_spread_p50_us", a->resid_p50_ns / 1e3);
    json_kv_double(j, "end_spread_p90_us", a->resid_p90_ns / 1e3);
    json_kv_double(j, "end_spread_max_us", a->resid_max_ns / 1e3);
    json_kv_double(j, "wall_clock_end_spread_p50_us", a->coarse_p50_ns / 1e3);
    json_key(j, "hosts");
    json_begin_array(j);
    for (size_t h = 0; h < a->n_hosts; h++) json_align_host(j, a, h);
    json_end_array(j);
    json_key(j, "ranks");
    json_begin_array(j);
    for (size_t r = 0; r < a->n_ranks; r++) json_align_rank(j, a, r);
    json_end_array(j);
    json_end_object(j);
}

static void json_ranks(struct json_out *j, const struct ssa_job *job,
                       const struct report_input *in)
{
    json_begin_object(j);
    json_kv_i64(j, "world_size", job->world_size);
    json_kv_u64(j, "ranks", job->n);
    json_kv_u64(j, "compared", job->n_usable);
    json_kv_u64(j, "missing", job->missing);
    json_kv_u64(j, "duplicates", job->duplicates);
    json_kv_u64(j, "other_jobs", job->other_jobs);
    int two = job->n_usable >= 2;
    json_key(j, "slowest_rank");
    two ? json_i64(j, job->ranks[job->straggler].rank) : json_null(j);
    json_key(j, "median_rank");
    two ? json_i64(j, job->ranks[job->reference].rank) : json_null(j);
    json_straggler(j, job, in);
    json_key(j, "quantiles");
    json_begin_object(j);
    json_spread(j, "step_ms", &job->step_ms);
    json_spread(j, "noncomm_ms_per_step", &job->noncomm_ms);
    json_spread(j, "exposed_comm_ms_per_step", &job->comm_ms);
    json_spread(j, "waiting_ms_per_step", &job->wait_ms);
    json_end_object(j);
    json_key(j, "list");
    json_begin_array(j);
    for (size_t i = 0; i < job->n; i++)
        json_rank(j, &job->ranks[i], &in[job->ranks[i].input]);
    json_end_array(j);
    json_align(j, job->align);
    json_end_object(j);
}

/* ---- stepscope diff ---- */

static void json_diff_side(struct json_out *j, const char *key, const struct diff_side *x)
{
    json_key(j, key);
    json_begin_object(j);
    json_kv_string(j, "file", x->path);
    json_kv_string(j, "step_source", ssa_step_source_name(x->v.steps.source));
    json_kv_u64(j, "steps", x->v.s.steps);
    json_kv_double(j, "median_ms", ms(x->v.s.median_ns));
    json_kv_double(j, "mean_ms", ms(x->v.s.mean_ns));
    json_kv_double(j, "steps_per_s", x->v.s.steps_per_s);
    json_kv_double(j, "gpu_busy_pct", x->v.s.gpu_busy_pct);
    json_end_object(j);
}

static void json_diff_finding(struct json_out *j, const struct diff_pair *p)
{
    json_begin_object(j);
    json_kv_string(j, "id", p->x->id);
    json_kv_string(j, "title", p->x->title);
    json_kv_string(j, "status", p->status);
    json_kv_double(j, "before_saving_ms_per_step", p->bf ? p->bf->saving_ms : NAN);
    json_kv_double(j, "after_saving_ms_per_step", p->af ? p->af->saving_ms : NAN);
    json_end_object(j);
}

static void json_diff(FILE *f, const struct diff_view *d)
{
    const struct diff_side *b = &d->b, *a = &d->a;
    struct json_out j;
    json_init(&j, f, 1);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "stepscope.diff");
    json_kv_u64(&j, "version", 1);
    json_diff_side(&j, "before", &d->b);
    json_diff_side(&j, "after", &d->a);
    json_kv_double(&j, "speedup_median", d->speedup_median);
    json_kv_double(&j, "speedup_mean", d->speedup_mean);
    json_kv_string(&j, "verdict", d->verdict);
    json_kv_double(&j, "noise_ms", d->noise_ms);
    json_key(&j, "categories");
    json_begin_array(&j);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        json_begin_object(&j);
        json_kv_string(&j, "name", ssa_cat_name(c));
        json_kv_double(&j, "before_ms_per_step", b->v.s.cat_ms[c]);
        json_kv_double(&j, "after_ms_per_step", a->v.s.cat_ms[c]);
        json_kv_double(&j, "change_ms_per_step", a->v.s.cat_ms[c] - b->v.s.cat_ms[c]);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_key(&j, "findings");
    json_begin_array(&j);
    for (size_t i = 0; i < d->n_pairs; i++) json_diff_finding(&j, &d->pairs[i]);
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}


/* ---- the writer: a job is {"schema": "stepscope.job", ..., "ranks": {...}, "processes":
 * [...]}; several inputs are an array of report objects; one is the object alone ---- */

static struct json_out *json_of(struct report_sink *k)
{
    return k->state;
}

static void json_w_begin(struct report_sink *k)
{
    json_init(json_of(k), k->f, 1);
    if (k->d->job->n < 2) return;
    json_begin_object(json_of(k));
    json_kv_string(json_of(k), "schema", "stepscope.job");
    json_kv_u64(json_of(k), "version", 1);
}

static void json_w_ranks(struct report_sink *k, const struct report_ranks_view *t)
{
    json_key(json_of(k), "ranks");
    json_ranks(json_of(k), t->job, t->inputs);
}

static void json_w_sections(struct report_sink *k)
{
    if (k->d->job->n >= 2) json_key(json_of(k), "processes");
    if (k->d->as_array) json_begin_array(json_of(k));
}

static void json_w_process(struct report_sink *k, const struct report_view *v)
{
    json_process_object(json_of(k), v, k->o->verbose);
}

/* In the array, in the input's place; a lone input that cannot be read writes nothing. */
static void json_w_unreadable(struct report_sink *k, const char *const *paths, size_t n)
{
    for (size_t i = 0; k->d->as_array && i < n; i++) {
        json_begin_object(json_of(k));
        json_kv_string(json_of(k), "file", paths[i]);
        json_kv_string(json_of(k), "error", "cannot read this file as a trace (see stderr)");
        json_end_object(json_of(k));
    }
}

static void json_w_end(struct report_sink *k)
{
    if (k->d->as_array) json_end_array(json_of(k));
    if (k->d->job->n >= 2) json_end_object(json_of(k));
    if (k->d->as_array || k->d->n_sections) json_finish(json_of(k));
}


const struct report_writer report_writer_json = {
    .all_inputs = 1,
    .state_size = sizeof(struct json_out),
    .begin = json_w_begin,
    .ranks = json_w_ranks,
    .sections = json_w_sections,
    .process = json_w_process,
    .unreadable = json_w_unreadable,
    .end = json_w_end,
    .diff = json_diff,
};
