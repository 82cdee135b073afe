/*
 * report_html_data.c — the data the HTML report's charts draw (report_html.js), one JSON
 * document per process section inside <script type="application/json" class="ss-data">: the
 * run's steps (bins of step times with their categories), the timeline's lanes, its steps'
 * intervals and their names. The page reads it with JSON.parse and puts names on screen as
 * text nodes only; the document itself escapes '<', '>' and '&' (which JSON allows only inside
 * strings) as \u003c..., so no string from the trace can end the element. Times are in
 * microseconds with three decimals. From the view only (report_view.h).
 *
 * docs/report-json.md ("Other formats") describes the document's keys.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "report.h"
#include "report_html.h"
#include "trace/sst_cbid.h"
#include "util/ss_num.h"

#define HTML_TL_LANES 48    /* lanes drawn; the intervals of more are left out (said) */
#define HTML_TL_NAME 300    /* characters of a kernel's name on hover (shortened by structure) */
#define HTML_API_NAMES 128  /* distinct API names */

struct html_lanes {
    size_t n;
    int more; /* some lanes past HTML_TL_LANES */
    uint64_t key[HTML_TL_LANES];
};

/* ---- a FILE that escapes what JSON.parse reads back unchanged ---- */

static ssize_t script_safe_write(void *cookie, const char *buf, size_t n)
{
    FILE *f = cookie;
    for (size_t i = 0; i < n; i++) {
        switch (buf[i]) {
        case '<':
            fputs("\\u003c", f);
            break;
        case '>':
            fputs("\\u003e", f);
            break;
        case '&':
            fputs("\\u0026", f);
            break;
        default:
            putc(buf[i], f);
        }
    }
    return (ssize_t)n;
}

/* ---- lanes ---- */

/* A lane's key: its order (attribution, GPU streams, host threads) in the top bits, so that
 * sorting keys sorts lanes. */
static uint64_t lane_key(const struct ssa_tl_item *it)
{
    static const uint64_t order[] = {[SSA_TL_ATTR] = 0, [SSA_TL_GPU] = 1, [SSA_TL_HOST] = 2,
                                     [SSA_TL_MEM] = 3};
    return order[it->kind <= SSA_TL_MEM ? it->kind : SSA_TL_HOST] << 62 |
           (it->lane & ((1ull << 62) - 1));
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t *p = x, *q = y;
    return *p < *q ? -1 : *p > *q;
}

/* The distinct lanes of every drawn step, sorted; at most HTML_TL_LANES. */
static void find_lanes(const struct report_view *v, struct html_lanes *l)
{
    memset(l, 0, sizeof *l);
    for (size_t t = 0; t < v->n_tls; t++)
        for (size_t i = 0; i < v->tls[t].tl->n; i++) {
            uint64_t key = lane_key(&v->tls[t].tl->items[i]);
            size_t k = 0;
            while (k < l->n && l->key[k] != key)
                k++;
            if (k == l->n && l->n < HTML_TL_LANES)
                l->key[l->n++] = key;
            else if (k == l->n)
                l->more = 1;
        }
    qsort(l->key, l->n, sizeof *l->key, cmp_u64);
}

/* The row of an item's lane, or -1 past HTML_TL_LANES. */
static int lane_row(const struct html_lanes *l, const struct ssa_tl_item *it)
{
    uint64_t key = lane_key(it);
    for (size_t k = 0; k < l->n; k++)
        if (l->key[k] == key) return (int)k;
    return -1;
}

/* [kind, a, b]: [0] the attribution, [1, device, stream], [2, thread id, 1 if training],
 * [3] memory */
static void write_lanes(struct json_out *j, const struct html_lanes *l, uint32_t train_tid)
{
    json_key(j, "lanes");
    json_begin_array(j);
    for (size_t k = 0; k < l->n; k++) {
        uint64_t kind = l->key[k] >> 62, lane = l->key[k] & ((1ull << 62) - 1);
        json_begin_array(j);
        json_u64(j, kind);
        if (kind == 1) json_u64(j, lane >> 32), json_u64(j, lane & 0xffffffffu);
        if (kind == 2) json_u64(j, lane), json_u64(j, lane == train_tid && train_tid);
        json_end_array(j);
    }
    json_end_array(j);
}

/* ---- names: each distinct name of the drawn items once, spans refer to its index ---- */

struct names {
    size_t n;                     /* names so far */
    const char **text;            /* [name index]: its text, raw from the trace */
    uint8_t *kernel_name;         /* [name index]: a kernel's (shown shortened) */
    uint32_t *kernel;             /* [kname index]: name index + 1 (0: not yet) */
    uint32_t range[SSA_TL_NAMES]; /* [tl_names index]: likewise */
    const char *api[HTML_API_NAMES]; /* the API names seen (constant table strings) */
    uint32_t api_ix[HTML_API_NAMES];
    size_t n_api;
};

static int64_t name_new(struct names *nm, const char *text, int kernel)
{
    nm->text[nm->n] = text;
    nm->kernel_name[nm->n] = (uint8_t)kernel;
    return (int64_t)nm->n++;
}

static int64_t api_name(struct names *nm, uint32_t name)
{
    const char *api = sst_cbid_name((uint8_t)(name >> 24), name & 0xffffffu);
    if (!api) return -1;
    for (size_t k = 0; k < nm->n_api; k++)
        if (nm->api[k] == api) return nm->api_ix[k];
    if (nm->n_api == HTML_API_NAMES) return -1;
    nm->api[nm->n_api] = api;
    nm->api_ix[nm->n_api++] = (uint32_t)nm->n;
    return name_new(nm, api, 0);
}

/* The name index of an item (-1: none), given one when first seen. */
static int64_t name_of(const struct report_view *v, struct names *nm, const struct ssa_tl_item *it)
{
    uint32_t *slot = NULL;
    const char *text = NULL;
    if (it->name_kind == SSA_TLN_KERNEL && it->name < v->n_knames)
        slot = &nm->kernel[it->name], text = v->kname_text[it->name];
    else if (it->name_kind == SSA_TLN_RANGE && it->name < v->n_tl_names)
        slot = &nm->range[it->name], text = v->tl_names[it->name];
    else if (it->name_kind == SSA_TLN_API)
        return api_name(nm, it->name);
    if (!slot) return -1;
    if (!*slot) *slot = (uint32_t)name_new(nm, text, it->name_kind == SSA_TLN_KERNEL) + 1;
    return (int64_t)*slot - 1;
}

static void write_names(struct json_out *j, const struct names *nm)
{
    json_key(j, "names");
    json_begin_array(j);
    for (size_t i = 0; i < nm->n; i++) {
        char *shown = nm->kernel_name[i] ? report_kernel_name(nm->text[i], HTML_TL_NAME) : NULL;
        json_string(j, shown ? shown : nm->text[i]);
        free(shown);
    }
    json_end_array(j);
}

/* ---- the timelines ---- */

/* [lane, category, start us, duration us, name index (-1: none)] and, for copies, graphs
 * and memory, [.., detail kind (1 copy, 2 pageable copy, 3 graph, 4 allocation, 5 free), its
 * bytes or graph id] */
static void write_span(struct json_out *j, const struct ssa_step *st, int row, int64_t name,
                       const struct ssa_tl_item *it)
{
    json_begin_array(j);
    json_i64(j, row);
    json_u64(j, it->cat);
    json_ns_as_us(j, (int64_t)(it->start_ns - st->begin_ns));
    json_ns_as_us(j, (int64_t)(it->end_ns - it->start_ns));
    json_i64(j, name);
    static const int details[] = {[SSA_TLN_COPY] = 1, [SSA_TLN_COPY_PAGEABLE] = 2,
                                  [SSA_TLN_GRAPH] = 3, [SSA_TLN_MEM_ALLOC] = 4,
                                  [SSA_TLN_MEM_FREE] = 5};
    int detail = it->name_kind <= SSA_TLN_MEM_FREE ? details[it->name_kind] : 0;
    if (detail) json_i64(j, detail), json_u64(j, it->name);
    json_end_array(j);
}

static void write_timeline(struct json_out *j, const struct report_view *v,
                           const struct report_tl *t, const struct html_lanes *l,
                           struct names *nm)
{
    static const char *const which[SSA_TL_WHICH] = {"median", "slowest", "step"};
    size_t cut = 0;
    json_begin_object(j);
    json_kv_string(j, "which", which[t->which]);
    json_kv_u64(j, "number", t->st->number);
    if (t->warmup) json_kv_bool(j, "warmup", 1);
    json_key(j, "dur");
    json_ns_as_us(j, (int64_t)(t->st->end_ns - t->st->begin_ns));
    json_kv_u64(j, "kernels", t->st->n.kernels);
    json_kv_u64(j, "launches", t->st->n.launches);
    json_key(j, "spans");
    json_begin_array(j);
    for (size_t i = 0; i < t->tl->n; i++) {
        const struct ssa_tl_item *it = &t->tl->items[i];
        int row = lane_row(l, it);
        if (row < 0) {
            cut++;
            continue;
        }
        write_span(j, t->st, row, name_of(v, nm, it), it);
    }
    json_end_array(j);
    json_kv_u64(j, "dropped", t->tl->dropped);
    json_kv_u64(j, "cut", cut);
    json_end_object(j);
}

/* ---- the run's steps ---- */

static void write_bin(struct json_out *j, const struct report_bin *b, const int *used, int n_used)
{
    json_begin_array(j);
    json_u64(j, b->number);
    json_u64(j, b->steps);
    json_ns_as_us(j, ss_i64_clamped(b->mean_ms * 1e6));
    json_ns_as_us(j, ss_i64_clamped(b->max_ms * 1e6));
    json_u64(j, (uint64_t)b->warmup);
    json_u64(j, b->outliers);
    json_begin_array(j);
    for (int k = 0; k < n_used; k++)
        json_ns_as_us(j, ss_i64_clamped(b->cat_ms[used[k]] * 1e6));
    json_end_array(j);
    json_end_array(j);
}

/* {"width", "cats": the categories with time in some bin, "bins": [[first step number,
 * steps, mean us, max us, warm-up, outliers, [us per used category]]], "median", "outlier"} */
static void write_run(struct json_out *j, const struct report_view *v)
{
    int used[SSA_CAT_COUNT], n_used = 0;
    for (int c = 0; c < SSA_CAT_COUNT; c++)
        for (size_t k = 0; k < v->n_bins; k++)
            if (v->bins[k].cat_ms[c] > 0) {
                used[n_used++] = c;
                break;
            }
    json_key(j, "run");
    json_begin_object(j);
    json_kv_u64(j, "width", v->bin_width);
    json_key(j, "cats");
    json_begin_array(j);
    for (int k = 0; k < n_used; k++)
        json_i64(j, used[k]);
    json_end_array(j);
    json_key(j, "bins");
    json_begin_array(j);
    for (size_t k = 0; k < v->n_bins; k++)
        write_bin(j, &v->bins[k], used, n_used);
    json_end_array(j);
    json_key(j, "median");
    json_ns_as_us(j, (int64_t)v->s.median_ns);
    json_key(j, "outlier");
    json_ns_as_us(j, ss_i64_clamped(v->outlier_ms * 1e6));
    json_end_object(j);
}

/* [{"name", "color", "text", "idle"}] in enum ssa_cat order */
static void write_cats(struct json_out *j)
{
    json_key(j, "cats");
    json_begin_array(j);
    for (int c = 0; c < SSA_CAT_COUNT; c++) {
        json_begin_object(j);
        json_kv_string(j, "name", ssa_cat_name(c));
        json_kv_string(j, "color", report_cat_fill(c));
        json_kv_string(j, "text", ssa_cat_description(c));
        json_kv_bool(j, "idle", c >= SSA_CAT_FIRST_IDLE);
        json_end_object(j);
    }
    json_end_array(j);
}

/* Names every item drawn, in the order the spans meet them. */
static void name_items(const struct report_view *v, const struct html_lanes *l, struct names *nm)
{
    for (size_t t = 0; t < v->n_tls; t++)
        for (size_t i = 0; i < v->tls[t].tl->n; i++)
            if (lane_row(l, &v->tls[t].tl->items[i]) >= 0)
                name_of(v, nm, &v->tls[t].tl->items[i]);
}

static void write_document(FILE *f, const struct report_view *v, struct names *nm)
{
    struct html_lanes l;
    struct json_out j;
    find_lanes(v, &l);
    name_items(v, &l, nm);
    json_init(&j, f, 0);
    json_begin_object(&j);
    json_kv_u64(&j, "version", 1);
    write_cats(&j);
    if (v->n_bins) write_run(&j, v);
    write_lanes(&j, &l, v->steps.train_tid);
    json_kv_bool(&j, "lanes_cut", l.more);
    write_names(&j, nm);
    json_key(&j, "timelines");
    json_begin_array(&j);
    for (size_t t = 0; t < v->n_tls; t++)
        write_timeline(&j, v, &v->tls[t], &l, nm);
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

static void names_free(struct names *nm)
{
    free(nm->text);
    free(nm->kernel_name);
    free(nm->kernel);
}

/* Room for every name there can be: each kernel's, each range's, each API's. */
static int names_alloc(struct names *nm, const struct report_view *v)
{
    size_t cap = v->n_knames + SSA_TL_NAMES + HTML_API_NAMES;
    memset(nm, 0, sizeof *nm);
    nm->text = malloc(cap * sizeof *nm->text);
    nm->kernel_name = malloc(cap);
    nm->kernel = calloc(v->n_knames + 1, sizeof *nm->kernel);
    return nm->text && nm->kernel_name && nm->kernel ? 0 : -1;
}

void report_html_data(FILE *f, const struct report_view *v)
{
    struct names nm;
    if (!v->n_bins && !v->n_tls) return;
    FILE *safe = NULL;
    if (names_alloc(&nm, v) == 0)
        safe = fopencookie(f, "w", (cookie_io_functions_t){.write = script_safe_write});
    if (safe) {
        fputs("<script type=\"application/json\" class=\"ss-data\">", f);
        write_document(safe, v, &nm);
        fclose(safe); /* flushes into f */
        fputs("</script>\n", f);
    }
    names_free(&nm); /* out of memory: no data, and the page says the charts are missing */
}
