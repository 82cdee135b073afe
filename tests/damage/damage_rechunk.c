/*
 * damage_rechunk.c — a whole trace written again uncompressed, in small chunks, for the
 * hostile-input harness (harness.py): its mutations then reach every record and chunk with
 * plain bytes (Python has no zstd), and there are chunks enough to remove, repeat and swap.
 *
 *   damage-rechunk IN OUT [CHUNK_BYTES]
 *   damage-rechunk --time-fields      where each record kind keeps its times (the C table:
 *                                     "NUMBER NAME FIRST LAST" per timed kind), so that the
 *                                     harness keeps no copy of the layouts
 *
 * The header keeps IN's clock, pid, features (but zstd) and start times; the END chunk its
 * time and dropped count; every record is copied as it is (string ids included). IN must be
 * whole: the harness damages the copy, not the source. Exit 0, or 1 with one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sst_names.h"
#include "trace/sst_reader.h"
#include "trace/sst_writer.h"
#include "util/ss_error.h"

static int fail(const char *what, const char *path, int rc)
{
    fprintf(stderr, "damage-rechunk: %s: %s: %s\n", path, what, ss_strerror(rc));
    return 1;
}

static int copy_records(struct sst_reader *r, struct sst_writer *w)
{
    const struct sst_rec_header *h;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1)
        if ((rc = sst_writer_append(w, h)) != 0) return rc;
    return rc;
}

static int time_fields(void)
{
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++) {
        size_t first, last;
        if (sst_rec_time_fields(t, &first, &last))
            printf("%u %s %zu %zu\n", (unsigned)t, sst_rec_type_name(t), first, last);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--time-fields") == 0) return time_fields();
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: damage-rechunk IN OUT [CHUNK_BYTES]\n");
        return 2;
    }
    struct sst_reader *r;
    int rc = sst_reader_open(argv[1], NULL, &r);
    if (rc) return fail("cannot read", argv[1], rc);
    const struct sst_file_header *fh = sst_reader_header(r);
    struct sst_writer_opts o = {.chunk_bytes = argc == 4 ? (uint32_t)atoi(argv[3]) : 16384,
                                .features = fh->features & ~(uint32_t)SST_FEAT_ZSTD,
                                .clock = fh->clock,
                                .pid = fh->pid,
                                .start_mono_ns = fh->start_mono_ns,
                                .start_unix_ns = fh->start_unix_ns};
    struct sst_writer *w;
    if ((rc = sst_writer_open(argv[2], &o, &w)) != 0) return fail("cannot write", argv[2], rc);
    rc = copy_records(r, w);
    struct sst_damage d;
    sst_reader_damage(r, &d);
    const struct sst_read_status *st = sst_reader_status(r);
    if (rc == 0 && d.any) rc = SS_ECORRUPT; /* the harness's sources are whole */
    if (rc == 0) sst_writer_count_dropped(w, st->end.dropped);
    int crc = sst_writer_close(w, st->end.end_mono_ns);
    sst_reader_close(r);
    if (rc || crc) return fail("cannot copy", argv[1], rc ? rc : crc);
    return 0;
}
