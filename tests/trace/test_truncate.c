/* test_truncate — a small multi-chunk trace cut at every byte offset: the reader never
 * crashes, says the file is truncated, and returns exactly the records of complete chunks. */
#include "trace/sst_zstd.h"
#include "trace_util.h"

#define MAX_CHUNKS 256

static void write_sample(const char *path, int level)
{
    struct sst_writer_opts o = {.chunk_bytes = 400};
    if (level)
        REQUIRE(sst_zstd_compressor_init(&o.compressor, level) == 0);
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    for (int i = 0; i < 60; i++) {
        char name[32];
        snprintf(name, sizeof name, "kernel_%d", i % 9);
        uint32_t id = sst_writer_intern_cstr(w, name);
        struct sst_rec_kernel *k = sst_writer_reserve(w, SST_REC_KERNEL, sizeof *k);
        REQUIRE(k);
        k->name = id, k->start_ns = 1000 + i * 100u, k->end_ns = k->start_ns + 50;
        struct sst_rec_nvtx *n = sst_writer_reserve(w, SST_REC_NVTX_PUSH, sizeof *n);
        REQUIRE(n);
        n->ts_ns = 999 + i * 100u;
    }
    CHECK_EQ(sst_writer_close(w, 0), 0);
    sst_zstd_compressor_free(&o.compressor);
}

/* Records in complete RECORDS chunks within the first len bytes; *last_seq of the last one. */
static uint64_t expected_records(const struct chunk_info *c, size_t n, size_t len, int *last)
{
    uint64_t recs = 0;
    *last = -1;
    for (size_t i = 0; i < n && c[i].off + c[i].len <= len; i++) {
        recs += c[i].records;
        *last = (int)c[i].seq;
    }
    return recs;
}

static void check_cut(const uint8_t *buf, size_t full, size_t len, const struct chunk_info *c,
                      size_t nc)
{
    struct read_summary s = read_all(buf, len, 0);
    if (len == 0) {
        CHECK_EQ(s.open_rc, SS_EEMPTY);
        return;
    }
    if (len < 64) {
        CHECK_EQ(s.open_rc, SS_ETRUNC);
        return;
    }
    REQUIRE(s.open_rc == 0);
    CHECK_EQ(s.next_rc, 0);
    int last;
    uint64_t want = expected_records(c, nc, len, &last);
    if (s.records != want || s.st.bad_chunks != 0 || s.st.truncated != (len < full))
        SS_FAIL_AT("cut at %zu: %" PRIu64 " records (want %" PRIu64 "), %u bad chunks, %s", len,
                   s.records, want, s.st.bad_chunks, s.state);
    char line[128];
    if (len == full)
        snprintf(line, sizeof line, "complete");
    else if (last < 0)
        snprintf(line, sizeof line, "truncated before the first chunk");
    else
        snprintf(line, sizeof line, "truncated after chunk %d (offset ", last);
    CHECK_CONTAINS(s.state, line);
}

static void every_offset_raw(void)
{
    const char *path = ss_test_path("raw.sst");
    write_sample(path, 0);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    struct chunk_info c[MAX_CHUNKS];
    size_t nc = map_chunks(buf, len, c, MAX_CHUNKS);
    printf("raw sample: %zu bytes, %zu chunks\n", len, nc);
    REQUIRE(nc >= 5);
    for (size_t cut = 0; cut <= len; cut++)
        check_cut(buf, len, cut, c, nc);
    free(buf);
}

/* Compressed chunks: the count can only grow with the cut, and only the full file is whole. */
static void every_offset_zstd(void)
{
    const char *path = ss_test_path("zstd.sst");
    write_sample(path, 3);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    uint64_t prev = 0;
    for (size_t cut = 64; cut <= len; cut++) {
        struct read_summary s = read_all(buf, cut, 0);
        REQUIRE(s.open_rc == 0);
        CHECK(s.records >= prev);
        CHECK(s.st.bad_chunks == 0 && s.st.truncated == (cut < len));
        prev = s.records;
    }
    CHECK_EQ_U64(prev, 129); /* 60 kernels, 60 ranges, 9 strings */
    free(buf);
}

int main(void)
{
    every_offset_raw();
    every_offset_zstd();
    return ss_test_result();
}
