/*
 * fuzz_reader.c — libFuzzer target: the trace reader (src/trace/sst_reader.c) on any bytes.
 *
 * Each input is read three ways: by path (the pread path) as it is, lenient; by path after
 * its checksums were repaired (fuzz_util.h), lenient, so mutations reach the record and
 * string-table code; and through stdio (sst_reader_open_file on fmemopen, the path of pipes)
 * after repair, strict. Every record returned is touched over its whole declared size and
 * every 32-bit word in it is looked up as a string id, whose text is touched over its whole
 * returned length: AddressSanitizer then proves that no length from the file lets the
 * reader hand out memory it does not own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "trace/sst_reader.h"

static volatile uint32_t g_sink;

static void on_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    (void)ctx;
    g_sink += (uint32_t)err + (uint32_t)offset + (uint32_t)strlen(msg);
}

/* Ids are small (1, 2, 3... in writing order); larger words are timestamps and the like. */
#define MAX_ID_PROBED (1u << 20)

FZ_NO_COVERAGE __attribute__((noinline)) static void touch_record(struct sst_reader *r,
                                                                  const struct sst_rec_header *h)
{
    const uint8_t *p = (const uint8_t *)h;
    uint32_t sum = 0;
    for (size_t i = 0; i < h->size; i++)
        sum += p[i];
    for (size_t i = 4; i + 4 <= h->size; i += 4) {
        uint32_t id, len = 0;
        memcpy(&id, p + i, sizeof id);
        if (id == 0 || id > MAX_ID_PROBED) continue;
        const char *s = sst_reader_string(r, id, &len);
        if (!s) continue;
        for (uint32_t k = 0; k < len; k++)
            sum += (uint8_t)s[k];
        if (s[len] != '\0') abort(); /* the reader promises NUL-terminated text */
    }
    g_sink += sum;
}

FZ_NO_COVERAGE static void read_all(struct sst_reader *r)
{
    const struct sst_rec_header *h;
    int rc;
    uint64_t n = 0;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        if (h->size < sizeof *h) abort(); /* never a record shorter than its header */
        touch_record(r, h);
        n++;
    }
    const struct sst_read_status *st = sst_reader_status(r);
    if (st->records != n) abort();
    g_sink += (uint32_t)strlen(sst_reader_state_line(r)) + sst_reader_header(r)->features;
}

static void read_path(const char *path, int strict)
{
    struct sst_reader_opts o = {.strict = strict, .on_problem = on_problem};
    struct sst_reader *r;
    if (sst_reader_open(path, &o, &r) != 0) return;
    read_all(r);
    sst_reader_close(r);
}

static void read_stream(uint8_t *data, size_t size, int strict)
{
    if (size == 0) return; /* fmemopen refuses an empty buffer */
    FILE *f = fmemopen(data, size, "rb");
    if (!f) return;
    struct sst_reader_opts o = {.strict = strict, .on_problem = on_problem};
    struct sst_reader *r;
    if (sst_reader_open_file(f, &o, &r) != 0) return; /* it owns f, even on failure */
    read_all(r);
    sst_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz_file file = {.fd = -1};
    if (file.fd < 0) fz_file_init(&file, "fuzz-reader");
    fz_file_set(&file, data, size);
    read_path(file.path, 0);

    uint8_t *fixed = malloc(size ? size : 1);
    if (!fixed) return 0;
    if (size) memcpy(fixed, data, size);
    fz_fix_crcs(fixed, size);
    fz_file_set(&file, fixed, size);
    read_path(file.path, 0);
    read_stream(fixed, size, 1);
    free(fixed);
    return 0;
}
