/*
 * ssi_sstrace.c — `stepscope export --format sstrace`: a part of a trace (--steps, --time) as a
 * trace of its own, to share a slice of a long run or to keep a small recording (the test
 * fixtures). The records ssi_window keeps are copied byte for byte, string records included,
 * so every string id keeps its meaning (nothing is interned again); what says how the trace was
 * recorded (ENV, CAPTURE, COST, DEVICE...) is always kept, so the part's report is the report
 * of those steps. The part says what it is: ENV `export.part` (its window in words), after
 * every copied string, under the id past the largest one copied. A part of a trace that was
 * cut short or damaged gets no END chunk: it reads as incomplete too, never as a whole run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ssi.h"
#include "ssi_window.h"
#include "trace/sst_writer.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"

/* The writer of the part: the original's header (clock, pid, start, features), zstd. */
static int open_part(const struct sst_reader *r, const char *path, struct sst_compressor *zc,
                     struct sst_writer **w)
{
    const struct sst_file_header *fh = sst_reader_header(r);
    struct sst_writer_opts o = {.features = fh->features, .clock = fh->clock, .pid = fh->pid,
                                .start_mono_ns = fh->start_mono_ns,
                                .start_unix_ns = fh->start_unix_ns};
    if (sst_zstd_compressor_init(zc, 3) == 0) o.compressor = *zc;
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return ss_from_errno(errno);
    int rc = sst_writer_open_fd(fd, &o, w);
    if (rc) close(fd);
    return rc;
}

/* Copies what the window keeps; *max_id: the largest string id copied. */
static int copy_records(const struct ssi_export_in *in, struct sst_writer *w, uint32_t *max_id)
{
    const struct sst_rec_header *h;
    int rc;
    while ((rc = ssi_window_next(in->r, in->win, &h)) == 1) {
        if (h->type == SST_REC_STRING) {
            struct sst_rec_string s;
            sst_rec_load(h, &s, sizeof s);
            if (s.id > *max_id) *max_id = s.id;
        }
        int wrc = sst_writer_append(w, h);
        if (wrc) return wrc;
    }
    return rc;
}

/* A string record with its id, appended raw (the writer's own ids would clash with the copy). */
static int append_string(struct sst_writer *w, uint32_t id, const char *text)
{
    size_t len = strlen(text);
    if (len > 1024) len = 1024;
    unsigned char buf[sizeof(struct sst_rec_string) + 1024];
    struct sst_rec_string s = {{SST_REC_STRING, (uint16_t)(sizeof s + len)}, id, (uint32_t)len, 0};
    memcpy(buf, &s, sizeof s);
    memcpy(buf + sizeof s, text, len);
    return sst_writer_append(w, buf);
}

/* ENV export.part = the window in words, under two ids past every copied one. */
static int mark_part(const struct ssi_export_in *in, struct sst_writer *w, uint32_t max_id)
{
    if (!in->win_desc || max_id >= UINT32_MAX - 2) return 0;
    int rc = append_string(w, max_id + 1, "export.part");
    if (!rc) rc = append_string(w, max_id + 2, in->win_desc);
    struct sst_rec_env e = {{SST_REC_ENV, sizeof e}, max_id + 1, max_id + 2, 0};
    return rc ? rc : sst_writer_append(w, &e);
}

/* Ends the part: closed like the original, or, when that was read only in part, flushed and
 * left without its END chunk (with a warning in msg). */
static int end_part(const struct sst_reader *r, struct sst_writer *w, char *msg, size_t cap)
{
    const struct sst_read_status *st = sst_reader_status(r);
    if (st->closed && !st->truncated && !st->bad_chunks && !st->malformed)
        return sst_writer_close(w, st->end.end_mono_ns);
    int rc = sst_writer_flush(w);
    sst_writer_abandon(w, 0);
    snprintf(msg, cap, "warning: the trace is %s: the part holds what could be read and has no "
             "end, as its source", st->truncated || !st->closed ? "truncated" : "damaged");
    return rc;
}

static int sstrace_to_path(const struct ssi_export_in *in, const char *path, char *msg,
                           size_t cap)
{
    struct sst_compressor zc = {0};
    struct sst_writer *w = NULL;
    uint32_t max_id = 0;
    int rc = ssi_window_rewind(in->r, in->win);
    if (!rc) rc = open_part(in->r, path, &zc, &w);
    if (!rc) rc = copy_records(in, w, &max_id);
    if (!rc) rc = mark_part(in, w, max_id);
    if (!rc)
        rc = end_part(in->r, w, msg, cap);
    else if (w)
        sst_writer_abandon(w, 0);
    sst_zstd_compressor_free(&zc);
    if (rc) snprintf(msg, cap, "cannot write the part: %s", ss_strerror(rc));
    return rc;
}

const struct ssi_exporter ssi_export_sstrace = {
    "sstrace", ".part.sstrace",
    "stepscope's own trace format, the records of the part kept byte for byte\n"
    "(with --steps or --time: a slice to share, which `report` reads like any\n"
    "trace; ENV export.part says which part).",
    0, NULL, sstrace_to_path, 0, 40};
