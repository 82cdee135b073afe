/*
 * fuzz_mkseeds.c — seed corpora for the trace fuzzers, made from the real fixtures.
 *
 *   fuzz_mkseeds OUTDIR FIXTURE...
 *
 * For each fixture it writes into OUTDIR:
 *   NAME.head     its first 4 KiB as they are (a cut, zstd-compressed file);
 *   NAME.r300     its first 300 records rewritten uncompressed in 1 KiB chunks;
 *   NAME.r1000    its first 1000 records in 4 KiB chunks.
 *
 *   fuzz_mkseeds --strings OUTDIR
 *
 * writes the seeds of fuzz_escape: strings hostile to HTML, Markdown, JSON and terminals.
 * Uncompressed, small chunks: a mutation then lands in a record, not in a zstd frame, and
 * the targets' checksum repair (fuzz_util.h) lets it reach the parsers. Records are copied
 * byte for byte (STRING records included), so every string id keeps its meaning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/sst_reader.h"
#include "trace/sst_writer.h"

static int write_head(const char *fixture, const char *out)
{
    FILE *in = fopen(fixture, "rb");
    if (!in) return -1;
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    FILE *o = fopen(out, "wb");
    if (!o) return -1;
    int bad = fwrite(buf, 1, n, o) != n;
    return fclose(o) != 0 || bad ? -1 : 0;
}

static int write_prefix(const char *fixture, const char *out, uint64_t max_records,
                        uint32_t chunk_bytes)
{
    struct sst_reader *r;
    if (sst_reader_open(fixture, NULL, &r) != 0) return -1;
    const struct sst_file_header *fh = sst_reader_header(r);
    struct sst_writer_opts o = {.chunk_bytes = chunk_bytes,
                                .features = fh->features & ~(uint32_t)SST_FEAT_ZSTD,
                                .clock = fh->clock,
                                .pid = fh->pid ? fh->pid : 1,
                                .start_mono_ns = fh->start_mono_ns ? fh->start_mono_ns : 1,
                                .start_unix_ns = fh->start_unix_ns ? fh->start_unix_ns : 1};
    unlink(out);
    struct sst_writer *w;
    if (sst_writer_open(out, &o, &w) != 0) {
        sst_reader_close(r);
        return -1;
    }
    const struct sst_rec_header *h;
    uint64_t n = 0;
    int rc = 0;
    while (n < max_records && sst_reader_next(r, &h) == 1 && rc == 0) {
        rc = sst_writer_append(w, h);
        n++;
    }
    sst_reader_close(r);
    int crc = sst_writer_close(w, 0);
    return rc || crc ? -1 : 0;
}

static const char *const k_strings[] = {
    "</script><img src=x onerror=alert(1)>",
    "<script>alert('x')</script>\"&amp;|*_`[a](javascript:alert(1))",
    "\x1b[31mred\x1b[0m\x07\x7f\xc2\x9b\x32J",
    "caf\xc3\xa9 \xe2\x80\xae\xe2\x80\xa8 \xf0\x9f\x98\x80 \xed\xa0\x80",
    "\xff\xfe\xc0\xaf\xe0\x80\xaf\xf4\x90\x80\x80\xc3",
    "void at::native::elementwise_kernel<128, 4>(int, \"quoted\\path\")",
    "",
};

static int write_strings(const char *dir)
{
    for (size_t i = 0; i < sizeof k_strings / sizeof k_strings[0]; i++) {
        char out[4096];
        snprintf(out, sizeof out, "%s/string-%zu", dir, i);
        FILE *o = fopen(out, "wb");
        if (!o) return 1;
        size_t n = strlen(k_strings[i]);
        int bad = fwrite(k_strings[i], 1, n, o) != n;
        if (fclose(o) != 0 || bad) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--strings") == 0) return write_strings(argv[2]);
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_mkseeds OUTDIR FIXTURE...\n");
        return 2;
    }
    int failed = 0;
    for (int i = 2; i < argc; i++) {
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        char out[4096];
        snprintf(out, sizeof out, "%s/%s.head", argv[1], base);
        failed |= write_head(argv[i], out) != 0;
        snprintf(out, sizeof out, "%s/%s.r300", argv[1], base);
        failed |= write_prefix(argv[i], out, 300, 1024) != 0;
        snprintf(out, sizeof out, "%s/%s.r1000", argv[1], base);
        failed |= write_prefix(argv[i], out, 1000, 4096) != 0;
        if (failed) {
            fprintf(stderr, "fuzz_mkseeds: %s: cannot make seeds\n", argv[i]);
            return 1;
        }
    }
    return 0;
}
