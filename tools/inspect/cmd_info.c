/*
 * cmd_info.c — `stepscope info`: what is in a trace and what state it is in.
 *
 * The first thing to run on a trace someone sent you: who wrote it, on which machine and
 * GPUs, how many records of each kind, what was lost (dropped records, notices from the
 * collector) and whether the file is whole. One pass over the records in constant memory;
 * the lists it keeps (processes, devices, notices, problems) are capped, with the number
 * left out reported, so a hostile file cannot make it grow without bound.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "flag_names.h"
#include "json_out.h"
#include "rec_fields.h"
#include "text_esc.h"
#include "trace/sst_clock.h"
#include "trace/sst_names.h"
#include "util/ss_error.h"

static const char info_usage[] =
    "usage: stepscope info TRACE... [--json] [--accept-damage]\n"
    "\n"
    "Summarises each TRACE: format version, producer, clock and features, time span,\n"
    "processes and devices, record counts by kind, dropped records, the collector's\n"
    "notices, and the file's state (complete, truncated, damaged chunks skipped).\n"
    "\n"
    "  -f, --format FMT  text (default) or json: one JSON object (an array of them\n"
    "               for several traces); --json is the same as --format json\n"
    CLI_ACCEPT_DAMAGE_HELP
    "  -h, --help   this text\n"
    "\n"
    "Exit status: 0 every trace was read whole, 1 a trace could not be read or is damaged,\n"
    "truncated, inconsistent or dropped records (its state says how; --accept-damage: 0),\n"
    "2 usage error.\n";

#define INFO_MAX_PROCS 64
#define INFO_MAX_DEVICES 64
#define INFO_MAX_NOTICES 64
#define INFO_MAX_PROBLEMS 32
#define INFO_DROP_SOURCES 256 /* sst_rec_dropped.source is a byte */

struct info_problem {
    int err;
    uint64_t offset;
    char msg[160];
};

/* Everything info learns in its pass over one trace. */
struct info_acc {
    const char *path;
    uint64_t counts[SST_REC_TYPE_LIMIT];
    uint64_t record_bytes; /* sum of record sizes: the uncompressed payload */
    int have_span;
    uint64_t first_ns, last_ns;
    uint64_t dropped_total;
    uint64_t dropped_by_source[INFO_DROP_SOURCES];
    struct sst_rec_process procs[INFO_MAX_PROCS];
    struct sst_rec_device devices[INFO_MAX_DEVICES];
    struct sst_rec_notice notices[INFO_MAX_NOTICES];
    struct info_problem problems[INFO_MAX_PROBLEMS];
    uint64_t n_procs, n_devices, n_notices, n_problems; /* seen; kept up to the caps */
    int read_error; /* a negative ss_error when reading stopped early */
    struct sst_clock_fit clock; /* the CLOCK pairs: this host's clock against UTC */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s; /* hostile counts saturate */
}

/* The reader reports each damaged chunk here; info lists them with their offsets. */
static void note_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    struct info_acc *a = ctx;
    if (err == SS_ETRUNC) return; /* the state line says it, with the offset */
    if (a->n_problems < INFO_MAX_PROBLEMS) {
        struct info_problem *p = &a->problems[a->n_problems];
        p->err = err;
        p->offset = offset;
        snprintf(p->msg, sizeof p->msg, "%s", msg);
    }
    a->n_problems++;
}

/* Keeps a copy of a record in a capped list (the counter keeps counting past the cap). */
#define KEEP(list, n, cap, h)                                                                      \
    do {                                                                                           \
        if ((n) < (cap)) sst_rec_load((h), &(list)[(n)], sizeof((list)[0]));                           \
        (n)++;                                                                                     \
    } while (0)

static void note_dropped(struct info_acc *a, const struct sst_rec_header *h)
{
    struct sst_rec_dropped d;
    sst_rec_load(h, &d, sizeof d);
    a->dropped_total = sat_add(a->dropped_total, d.count);
    a->dropped_by_source[d.source] = sat_add(a->dropped_by_source[d.source], d.count);
}

static void note_record(struct info_acc *a, const struct sst_rec_header *h)
{
    uint64_t t0, t1;
    if (h->type < SST_REC_TYPE_LIMIT) a->counts[h->type]++;
    a->record_bytes += h->size;
    if (sst_rec_time_range(h, &t0, &t1)) {
        if (!a->have_span || t0 < a->first_ns) a->first_ns = t0;
        if (!a->have_span || t1 > a->last_ns) a->last_ns = t1;
        a->have_span = 1;
    }
    switch (h->type) {
    case SST_REC_PROCESS:
        KEEP(a->procs, a->n_procs, INFO_MAX_PROCS, h);
        break;
    case SST_REC_DEVICE:
        KEEP(a->devices, a->n_devices, INFO_MAX_DEVICES, h);
        break;
    case SST_REC_NOTICE:
        KEEP(a->notices, a->n_notices, INFO_MAX_NOTICES, h);
        break;
    case SST_REC_DROPPED:
        note_dropped(a, h);
        break;
    case SST_REC_CLOCK: {
        struct sst_rec_clock c;
        sst_rec_load(h, &c, sizeof c);
        sst_clock_fit_add(&a->clock, &c);
        break;
    }
    default:
        break;
    }
}

static void read_all(struct sst_reader *r, struct info_acc *a)
{
    const struct sst_rec_header *h;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1)
        note_record(a, h);
    if (rc < 0) a->read_error = rc;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* ---- text output ---- */

static void text_header(const struct sst_file_header *fh)
{
    char buf[128];
    printf("  format       v%u (min reader v%u), producer pid %" PRIu32 ", clock %s\n",
           fh->format_version, fh->min_reader_version, fh->pid,
           rn_enum(buf, sizeof buf, sst_clock_name(fh->clock), fh->clock));
    printf("  features     %s\n", rn_features(buf, sizeof buf, fh->features));
    if (fh->start_unix_ns) {
        time_t secs = (time_t)(fh->start_unix_ns / 1000000000u);
        struct tm tm;
        if (gmtime_r(&secs, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
            printf("  started      %s\n", buf);
    }
}

/* The compression ratio (record bytes per file byte) when chunks may be compressed;
 * 0 when the file says it is not (the ratio of an uncompressed file is just overhead). */
static double compression_ratio(struct sst_reader *r, const struct info_acc *a)
{
    const struct sst_read_status *st = sst_reader_status(r);
    if (!(sst_reader_header(r)->features & SST_FEAT_ZSTD) || !st->file_bytes) return 0;
    return (double)a->record_bytes / (double)st->file_bytes;
}

static void text_span_and_size(struct sst_reader *r, const struct info_acc *a)
{
    char b1[32], b2[32], b3[32];
    if (a->have_span)
        printf("  time span    %" PRIu64 " .. %" PRIu64 " ns (%s)\n", a->first_ns, a->last_ns,
               cli_fmt_duration(b1, sizeof b1, a->last_ns - a->first_ns));
    else
        printf("  time span    none (no timestamped records)\n");
    printf("  size         %s file, %s of records",
           cli_fmt_bytes(b2, sizeof b2, sst_reader_status(r)->file_bytes),
           cli_fmt_bytes(b3, sizeof b3, a->record_bytes));
    double ratio = compression_ratio(r, a);
    if (ratio > 0) printf(" (zstd, %.2fx)", ratio);
    printf("\n");
}

static void text_state(struct sst_reader *r, const struct info_acc *a)
{
    const struct sst_read_status *st = sst_reader_status(r);
    printf("  state        %s\n", sst_reader_state_line(r));
    if (a->read_error) printf("    reading stopped: %s\n", ss_strerror(a->read_error));
    for (uint64_t i = 0; i < min_u64(a->n_problems, INFO_MAX_PROBLEMS); i++)
        printf("    problem: %s\n", a->problems[i].msg);
    if (a->n_problems > INFO_MAX_PROBLEMS)
        printf("    ... and %" PRIu64 " more problems\n", a->n_problems - INFO_MAX_PROBLEMS);
    if (st->bad_bytes) printf("    %" PRIu64 " bytes skipped as damaged\n", st->bad_bytes);
    /* A closed file whose END chunk counts more records than were read lost some to damage. */
    if (st->closed && st->end.records != st->records)
        printf("    the END chunk counts %" PRIu64 " records; %" PRIu64 " were read\n",
               st->end.records, st->records);
}

static void text_counts(const struct info_acc *a, const struct sst_read_status *st)
{
    printf("  records      %" PRIu64 "\n", st->records);
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++)
        if (a->counts[t]) printf("    %-12s %" PRIu64 "\n", sst_rec_type_name(t), a->counts[t]);
    if (st->unknown_chunks)
        printf("  unknown      %" PRIu32 " chunks of types this version does not know\n",
               st->unknown_chunks);
    if (st->unknown_records)
        printf("  unknown      %" PRIu64 " records of types this version does not know\n",
               st->unknown_records);
    if (st->malformed) printf("  malformed    %" PRIu64 " records\n", st->malformed);
}

static void text_dropped(const struct info_acc *a, const struct sst_read_status *st)
{
    char buf[32];
    printf("  dropped      %" PRIu64, a->dropped_total);
    const char *sep = " (";
    for (unsigned s = 0; s < INFO_DROP_SOURCES; s++) {
        if (!a->dropped_by_source[s]) continue;
        printf("%s%s %" PRIu64, sep,
               rn_enum(buf, sizeof buf, sst_drop_source_name((uint8_t)s), s),
               a->dropped_by_source[s]);
        sep = ", ";
    }
    if (*sep == ',') printf(")");
    if (st->closed) printf("; END chunk counts %" PRIu64, st->end.dropped);
    printf("\n");
}

/* Only for traces with CLOCK records: older traces print what they always did. */
static void text_clock(struct info_acc *a)
{
    struct sst_clock_fit *f = &a->clock;
    if (!f->n) return;
    printf("  clock sync   %" PRIu64 " pairs: REALTIME - MONOTONIC %" PRId64
           " ns (median), moved %+.3f ppm, largest spread %" PRIu32 " ns\n",
           f->n, sst_clock_fit_median(f), sst_clock_fit_ppm(f), f->max_spread_ns);
}

static void text_processes(struct sst_reader *r, const struct info_acc *a)
{
    printf("  processes    %" PRIu64 "\n", a->n_procs);
    for (uint64_t i = 0; i < min_u64(a->n_procs, INFO_MAX_PROCS); i++) {
        const struct sst_rec_process *p = &a->procs[i];
        printf("    pid %" PRIu32 " ppid %" PRIu32, p->pid, p->ppid);
        if (p->rank >= 0) printf(" rank %" PRId32 "/%" PRId32, p->rank, p->world_size);
        if (p->local_rank >= 0) printf(" local_rank %" PRId32, p->local_rank);
        printf(" host ");
        rec_text_string(stdout, r, p->hostname);
        printf(" cmdline ");
        rec_text_string(stdout, r, p->cmdline);
        printf("\n");
    }
    if (a->n_procs > INFO_MAX_PROCS)
        printf("    ... and %" PRIu64 " more\n", a->n_procs - INFO_MAX_PROCS);
}

static void text_devices(struct sst_reader *r, const struct info_acc *a)
{
    char buf[32];
    printf("  devices      %" PRIu64 "\n", a->n_devices);
    for (uint64_t i = 0; i < min_u64(a->n_devices, INFO_MAX_DEVICES); i++) {
        const struct sst_rec_device *d = &a->devices[i];
        printf("    %" PRIu32 ": ", d->device);
        rec_text_string(stdout, r, d->name);
        printf(" cc %u.%u, %" PRIu32 " SMs, %s\n", d->cc_major, d->cc_minor, d->sm_count,
               cli_fmt_bytes(buf, sizeof buf, d->global_mem));
    }
    if (a->n_devices > INFO_MAX_DEVICES)
        printf("    ... and %" PRIu64 " more\n", a->n_devices - INFO_MAX_DEVICES);
}

static void text_notices(struct sst_reader *r, const struct info_acc *a)
{
    char b1[32], b2[32];
    printf("  notices      %" PRIu64 "\n", a->n_notices);
    for (uint64_t i = 0; i < min_u64(a->n_notices, INFO_MAX_NOTICES); i++) {
        const struct sst_rec_notice *n = &a->notices[i];
        printf("    %s %s: ", rn_enum(b1, sizeof b1, sst_notice_level_name(n->level), n->level),
               rn_enum(b2, sizeof b2, sst_notice_code_name(n->code), n->code));
        rec_text_string(stdout, r, n->message);
        printf("\n");
    }
    if (a->n_notices > INFO_MAX_NOTICES)
        printf("    ... and %" PRIu64 " more\n", a->n_notices - INFO_MAX_NOTICES);
}

static void print_text(struct sst_reader *r, struct info_acc *a)
{
    const struct sst_read_status *st = sst_reader_status(r);
    text_write_escaped(stdout, a->path, strlen(a->path), 0);
    printf("\n");
    text_header(sst_reader_header(r));
    text_state(r, a);
    text_span_and_size(r, a);
    text_clock(a);
    text_processes(r, a);
    text_devices(r, a);
    text_counts(a, st);
    text_dropped(a, st);
    text_notices(r, a);
}

/* ---- JSON output ---- */

static void json_enum(struct json_out *j, const char *key, const char *name, unsigned v)
{
    char buf[32];
    json_kv_string(j, key, rn_enum(buf, sizeof buf, name, v));
}

static void json_header(struct json_out *j, const struct sst_file_header *fh)
{
    char buf[32];
    json_kv_u64(j, "format_version", fh->format_version);
    json_kv_u64(j, "min_reader_version", fh->min_reader_version);
    json_kv_u64(j, "producer_pid", fh->pid);
    json_enum(j, "clock", sst_clock_name(fh->clock), fh->clock);
    json_kv_u64(j, "start_mono_ns", fh->start_mono_ns);
    json_kv_u64(j, "start_unix_ns", fh->start_unix_ns);
    json_key(j, "features");
    json_begin_array(j);
    for (unsigned bit = 0; bit < 32; bit++) /* one name per set bit; unknown bits in hex */
        if (fh->features & (1u << bit)) json_string(j, rn_features(buf, sizeof buf, 1u << bit));
    json_end_array(j);
}

/* The one damage model (sst_reader_damage): every kind with its count, and the line. */
static void json_damage(struct json_out *j, struct sst_reader *r)
{
    struct sst_damage d;
    char line[1024];
    sst_reader_damage(r, &d);
    json_kv_bool(j, "damaged", d.any);
    json_key(j, "damage");
    json_begin_object(j);
    for (uint8_t k = 1; k < SST_DAMAGE_LIMIT; k++) json_kv_u64(j, sst_damage_kind_name(k), d.count[k]);
    json_kv_string(j, "said", sst_damage_describe(&d, line, sizeof line));
    json_end_object(j);
}

static void json_state(struct json_out *j, struct sst_reader *r, const struct info_acc *a)
{
    const struct sst_read_status *st = sst_reader_status(r);
    json_kv_string(j, "state", sst_reader_state_line(r));
    json_kv_bool(j, "closed", st->closed);
    struct sst_damage d;
    sst_reader_damage(r, &d);
    json_kv_bool(j, "truncated", st->truncated || d.count[SST_DAMAGE_TRUNCATED]); /* an import's too */
    json_key(j, "truncated_at");
    if (st->truncated)
        json_u64(j, st->truncated_at);
    else
        json_null(j);
    json_kv_u64(j, "chunks", st->chunks);
    json_kv_u64(j, "bad_chunks", st->bad_chunks);
    json_kv_u64(j, "bad_bytes", st->bad_bytes);
    json_key(j, "read_error");
    json_string(j, a->read_error ? ss_strerror(a->read_error) : NULL);
    json_key(j, "problems");
    json_begin_array(j);
    for (uint64_t i = 0; i < min_u64(a->n_problems, INFO_MAX_PROBLEMS); i++) {
        json_begin_object(j);
        json_kv_u64(j, "offset", a->problems[i].offset);
        json_kv_string(j, "error", ss_err_name(a->problems[i].err));
        json_kv_string(j, "message", a->problems[i].msg);
        json_end_object(j);
    }
    json_end_array(j);
    json_kv_u64(j, "problems_omitted", a->n_problems - min_u64(a->n_problems, INFO_MAX_PROBLEMS));
    json_damage(j, r);
}

static void json_span_and_size(struct json_out *j, struct sst_reader *r, const struct info_acc *a)
{
    json_key(j, "time_span_ns");
    json_begin_object(j);
    json_key(j, "first");
    a->have_span ? json_u64(j, a->first_ns) : json_null(j);
    json_key(j, "last");
    a->have_span ? json_u64(j, a->last_ns) : json_null(j);
    json_key(j, "duration");
    a->have_span ? json_u64(j, a->last_ns - a->first_ns) : json_null(j);
    json_end_object(j);
    json_kv_u64(j, "file_bytes", sst_reader_status(r)->file_bytes);
    json_kv_u64(j, "record_bytes", a->record_bytes);
    double ratio = compression_ratio(r, a);
    json_key(j, "compression_ratio"); /* record bytes per file byte; null when not zstd */
    ratio > 0 ? json_double(j, ratio) : json_null(j);
}

static void json_counts(struct json_out *j, const struct info_acc *a,
                        const struct sst_read_status *st)
{
    json_kv_u64(j, "records_total", st->records);
    json_key(j, "records");
    json_begin_object(j);
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++) /* every known kind, even when 0 */
        if (sst_rec_type_name(t)) json_kv_u64(j, sst_rec_type_name(t), a->counts[t]);
    json_end_object(j);
    json_kv_u64(j, "unknown_records", st->unknown_records);
    json_kv_u64(j, "unknown_chunks", st->unknown_chunks);
    json_kv_u64(j, "malformed_records", st->malformed);
}

static void json_dropped(struct json_out *j, const struct info_acc *a,
                         const struct sst_read_status *st)
{
    char buf[32];
    json_kv_u64(j, "dropped", a->dropped_total);
    json_key(j, "dropped_by_source");
    json_begin_object(j);
    for (unsigned s = 0; s < INFO_DROP_SOURCES; s++)
        if (a->dropped_by_source[s])
            json_kv_u64(j, rn_enum(buf, sizeof buf, sst_drop_source_name((uint8_t)s), s),
                        a->dropped_by_source[s]);
    json_end_object(j);
    json_key(j, "end"); /* the END chunk's own counters; null when the file was not closed */
    if (!st->closed) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_u64(j, "end_mono_ns", st->end.end_mono_ns);
    json_kv_u64(j, "records", st->end.records);
    json_kv_u64(j, "dropped", st->end.dropped);
    json_kv_u64(j, "chunks", st->end.chunks);
    json_end_object(j);
}

/* null when the trace has no CLOCK record (older traces, importers). */
static void json_clock(struct json_out *j, struct info_acc *a)
{
    struct sst_clock_fit *f = &a->clock;
    json_key(j, "clock_sync");
    if (!f->n) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kv_u64(j, "pairs", f->n);
    json_kv_i64(j, "offset_ns", sst_clock_fit_median(f));
    json_key(j, "drift_ppm");
    json_double(j, sst_clock_fit_ppm(f));
    json_kv_u64(j, "max_spread_ns", f->max_spread_ns);
    json_end_object(j);
}

static void json_processes(struct json_out *j, struct sst_reader *r, const struct info_acc *a)
{
    json_key(j, "processes");
    json_begin_array(j);
    for (uint64_t i = 0; i < min_u64(a->n_procs, INFO_MAX_PROCS); i++) {
        const struct sst_rec_process *p = &a->procs[i];
        json_begin_object(j);
        json_kv_u64(j, "pid", p->pid);
        json_kv_u64(j, "ppid", p->ppid);
        json_kv_i64(j, "rank", p->rank);
        json_kv_i64(j, "local_rank", p->local_rank);
        json_kv_i64(j, "world_size", p->world_size);
        json_kv_u64(j, "start_ns", p->start_ns);
        json_key(j, "hostname");
        rec_json_string(j, r, p->hostname);
        json_key(j, "cmdline");
        rec_json_string(j, r, p->cmdline);
        json_key(j, "exe");
        rec_json_string(j, r, p->exe);
        json_end_object(j);
    }
    json_end_array(j);
    json_kv_u64(j, "processes_omitted", a->n_procs - min_u64(a->n_procs, INFO_MAX_PROCS));
}

static void json_devices(struct json_out *j, struct sst_reader *r, const struct info_acc *a)
{
    json_key(j, "devices");
    json_begin_array(j);
    for (uint64_t i = 0; i < min_u64(a->n_devices, INFO_MAX_DEVICES); i++) {
        const struct sst_rec_device *d = &a->devices[i];
        json_begin_object(j);
        json_kv_u64(j, "device", d->device);
        json_key(j, "name");
        rec_json_string(j, r, d->name);
        json_kv_u64(j, "cc_major", d->cc_major);
        json_kv_u64(j, "cc_minor", d->cc_minor);
        json_kv_u64(j, "sm_count", d->sm_count);
        json_kv_u64(j, "global_mem", d->global_mem);
        json_kv_u64(j, "mem_clock_khz", d->mem_clock_khz);
        json_kv_u64(j, "mem_bus_width", d->mem_bus_width);
        json_kv_u64(j, "pci_bus", d->pci_bus);
        json_kv_u64(j, "uuid_crc", d->uuid_hi_crc);
        json_end_object(j);
    }
    json_end_array(j);
    json_kv_u64(j, "devices_omitted", a->n_devices - min_u64(a->n_devices, INFO_MAX_DEVICES));
}

static void json_notices(struct json_out *j, struct sst_reader *r, const struct info_acc *a)
{
    json_key(j, "notices");
    json_begin_array(j);
    for (uint64_t i = 0; i < min_u64(a->n_notices, INFO_MAX_NOTICES); i++) {
        const struct sst_rec_notice *n = &a->notices[i];
        json_begin_object(j);
        json_kv_u64(j, "t", n->ts_ns);
        json_enum(j, "level", sst_notice_level_name(n->level), n->level);
        json_enum(j, "code", sst_notice_code_name(n->code), n->code);
        json_key(j, "message");
        rec_json_string(j, r, n->message);
        json_end_object(j);
    }
    json_end_array(j);
    json_kv_u64(j, "notices_omitted", a->n_notices - min_u64(a->n_notices, INFO_MAX_NOTICES));
}

static void print_json(struct json_out *j, struct sst_reader *r, struct info_acc *a)
{
    const struct sst_read_status *st = sst_reader_status(r);
    json_begin_object(j);
    json_kv_string(j, "file", a->path);
    json_header(j, sst_reader_header(r));
    json_state(j, r, a);
    json_span_and_size(j, r, a);
    json_clock(j, a);
    json_processes(j, r, a);
    json_devices(j, r, a);
    json_counts(j, a, st);
    json_dropped(j, a, st);
    json_notices(j, r, a);
    json_end_object(j);
}

/* ---- the verb ---- */

/* Reads and prints one trace. Returns CLI_EXIT_OK, or CLI_EXIT_FAIL after one error line
 * (and, in a JSON array, an {"file", "error"} entry so entries line up with arguments). */
static void print_one(struct sst_reader *r, struct info_acc *a, struct json_out *j, int first)
{
    if (j) {
        print_json(j, r, a);
        return;
    }
    if (!first) printf("\n");
    print_text(r, a);
}

/* In a JSON array, a trace that could not be opened still gets its entry, so the entries
 * line up with the arguments; the reason is on stderr. */
static void json_error_entry(struct json_out *j, const char *path)
{
    json_begin_object(j);
    json_kv_string(j, "file", path);
    json_kv_string(j, "error", "cannot read this file as a trace (see stderr)");
    json_end_object(j);
}

/* Reads and prints one trace. Returns CLI_EXIT_OK, or CLI_EXIT_FAIL after one error line. */
static int info_one(const char *path, struct json_out *j, int first, int accept)
{
    struct info_acc *a = calloc(1, sizeof *a);
    struct cli_trace t;
    if (!a) {
        cli_error("info", path, "%s", ss_strerror(SS_ENOMEM));
        return CLI_EXIT_FAIL;
    }
    a->path = path;
    sst_clock_fit_init(&a->clock);
    int rc = CLI_EXIT_OK;
    if (cli_trace_open(&t, "info", path, note_problem, a) == 0) {
        read_all(t.r, a);
        print_one(t.r, a, j, first);
        if (a->read_error) {
            cli_error("info", path, "reading stopped: %s", ss_strerror(a->read_error));
            rc = CLI_EXIT_FAIL;
        }
        struct sst_damage d;
        sst_reader_damage(t.r, &d);
        if (!a->read_error && cli_damage_said("info", path, &d, accept,
                                              "its state says what was read (--accept-damage "
                                              "to accept it)") != CLI_EXIT_OK)
            rc = CLI_EXIT_FAIL;
        cli_trace_close(&t);
    } else {
        if (j && j->depth > 0) json_error_entry(j, path);
        rc = CLI_EXIT_FAIL;
    }
    free(a);
    return rc;
}

enum { OPT_ACCEPT_DAMAGE = 1000 };

static int parse_info_args(int argc, char **argv, int *json, int *accept)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"json", no_argument, NULL, 'J'},
        {"accept-damage", no_argument, NULL, OPT_ACCEPT_DAMAGE}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    *json = 0, *accept = 0;
    cli_opt_reset();
    for (int c; (c = cli_getopt("info", argc, argv, "f:h", longopts)) != -1;) {
        if (c == 'h') {
            fputs(info_usage, stdout);
            return -1; /* --help: done, success */
        }
        if (c == 'J') *json = 1;
        if (c == OPT_ACCEPT_DAMAGE) *accept = 1;
        if (c == 'f' && cli_parse_text_json("info", optarg, json) != 0) return CLI_EXIT_USAGE;
        if (c == '?') return CLI_EXIT_USAGE;
    }
    if (optind >= argc) return cli_usage_error("info", "missing TRACE");
    return 0;
}

int cmd_info(int argc, char **argv)
{
    int json_mode, accept;
    int rc = parse_info_args(argc, argv, &json_mode, &accept);
    if (rc == -1) return cli_finish_stdout("info");
    if (rc) return rc;
    struct json_out j;
    json_init(&j, stdout, 1);
    int several = argc - optind > 1;
    if (json_mode && several) json_begin_array(&j);
    int status = CLI_EXIT_OK;
    for (int i = optind; i < argc; i++)
        if (info_one(argv[i], json_mode ? &j : NULL, i == optind, accept) != CLI_EXIT_OK)
            status = CLI_EXIT_FAIL;
    if (json_mode && several) json_end_array(&j);
    if (json_mode && (several || status == CLI_EXIT_OK)) json_finish(&j);
    int out = cli_finish_stdout("info");
    return status != CLI_EXIT_OK ? status : out;
}
