/* test_roundtrip — every record kind written with distinctive bytes reads back identically,
 * with and without compression, across many chunks; and every type has a name. */
#include "trace/sst_names.h"
#include "trace/sst_zstd.h"
#include "trace_util.h"

#define COPIES 3

/* A record of `type` whose every byte after the header is a function of type, copy, offset. */
static void fill_record(uint8_t *rec, uint16_t type, int copy)
{
    size_t size = sst_rec_min_size(type);
    struct sst_rec_header h = {type, (uint16_t)size};
    memcpy(rec, &h, sizeof h);
    for (size_t i = sizeof h; i < size; i++)
        rec[i] = (uint8_t)(type * 31 + copy * 101 + i * 7 + 1);
    uint64_t none = 0; /* nothing lost: the counts the damage model reads */
    if (type == SST_REC_DROPPED) memcpy(rec + offsetof(struct sst_rec_dropped, count), &none, 8);
    if (type == SST_REC_DAMAGE) memcpy(rec + offsetof(struct sst_rec_damage, count), &none, 8);
    size_t first, last; /* times a reader accepts: an end after its start, under 2^62 */
    if (!sst_rec_time_fields(type, &first, &last)) return;
    uint64_t t0 = 1000u * type + (uint64_t)copy, t1 = t0 + (first != last ? 500u : 0u);
    memcpy(rec + first, &t0, sizeof t0);
    memcpy(rec + last, &t1, sizeof t1);
}

static void write_all_kinds(const char *path, int level)
{
    struct sst_writer_opts o = {.chunk_bytes = 256, .features = SST_FEAT_SYNTHETIC};
    if (level)
        REQUIRE(sst_zstd_compressor_init(&o.compressor, level) == 0);
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    CHECK_EQ(sst_writer_intern_cstr(w, "the first string"), 1);
    uint8_t rec[SST_REC_MAX];
    for (int copy = 0; copy < COPIES; copy++) {
        for (uint16_t t = SST_REC_STRING + 1; t < SST_REC_TYPE_LIMIT; t++) {
            fill_record(rec, t, copy);
            CHECK_EQ(sst_writer_append(w, rec), 0);
        }
    }
    struct sst_writer_stats st;
    sst_writer_get_stats(w, &st);
    CHECK_EQ_U64(st.records, 1 + COPIES * (SST_REC_TYPE_LIMIT - 2));
    CHECK(st.chunks > 3);
    CHECK_EQ(sst_writer_close(w, 12345), 0);
    sst_zstd_compressor_free(&o.compressor);
}

static void check_read_back(const char *path, int compressed)
{
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    CHECK_EQ(sst_reader_header(r)->features & SST_FEAT_ZSTD, compressed ? SST_FEAT_ZSTD : 0);
    const struct sst_rec_header *h;
    uint8_t want[SST_REC_MAX];
    int n = 0;
    REQUIRE(sst_reader_next(r, &h) == 1 && h->type == SST_REC_STRING);
    uint32_t len;
    CHECK_STR(sst_reader_string(r, 1, &len), "the first string");
    CHECK_EQ(len, 16);
    while (sst_reader_next(r, &h) == 1) {
        int copy = n / (SST_REC_TYPE_LIMIT - 2);
        uint16_t t = (uint16_t)(SST_REC_STRING + 1 + n % (SST_REC_TYPE_LIMIT - 2));
        fill_record(want, t, copy);
        CHECK_EQ(h->type, t);
        CHECK(h->size == sst_rec_min_size(t) && memcmp(h, want, h->size) == 0);
        n++;
    }
    CHECK_EQ(n, COPIES * (SST_REC_TYPE_LIMIT - 2));
    const struct sst_read_status *st = sst_reader_status(r);
    CHECK(st->closed && !st->truncated && st->bad_chunks == 0 && st->malformed == 0);
    CHECK_EQ_U64(st->end.end_mono_ns, 12345);
    CHECK_EQ_U64(st->end.records, n + 1);
    CHECK_EQ(st->end.chunks, st->chunks);
    CHECK_CONTAINS(sst_reader_state_line(r), "complete");
    sst_reader_close(r);
}

static void names(void)
{
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++) {
        const char *n = sst_rec_type_name(t);
        CHECK(n != NULL);
        CHECK_EQ(sst_rec_type_from_name(n ? n : ""), t);
    }
    CHECK(sst_rec_type_name(0) == NULL && sst_rec_type_name(SST_REC_TYPE_LIMIT) == NULL);
    CHECK_STR(sst_rec_type_name(SST_REC_KERNEL), "kernel");
    CHECK_STR(sst_copy_kind_name(SST_COPY_H2D), "h2d");
    CHECK_STR(sst_mem_kind_name(SST_MEM_PAGEABLE), "pageable");
    CHECK_STR(sst_sync_kind_name(SST_SYNC_CONTEXT), "context");
    CHECK_STR(sst_capture_reason_name(SST_CAP_TAKEN_OVER), "taken_over");
    CHECK_STR(sst_step_source_name(SST_STEPSRC_PYSHIM), "pyshim");
    CHECK_STR(sst_notice_code_name(SST_NOTICE_WRITE_ERROR), "write_error");
    CHECK_STR(sst_api_domain_name(SST_API_DRIVER), "driver");
    CHECK(sst_mem_kind_name(200) == NULL && sst_notice_code_name(0) == NULL);
}

int main(void)
{
    names();
    write_all_kinds(ss_test_path("raw.sst"), 0);
    check_read_back(ss_test_path("raw.sst"), 0);
    write_all_kinds(ss_test_path("zstd.sst"), 3);
    check_read_back(ss_test_path("zstd.sst"), 1);
    return ss_test_result();
}
