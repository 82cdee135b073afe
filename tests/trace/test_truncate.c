/* test_truncate — a small multi-chunk trace cut at every byte offset: the reader never
 * crashes, says the file is truncated, and returns exactly the records of complete chunks. */
#include <unistd.h>

#include "trace/sst_zstd.h"
#include "trace_util.h"

#define MAX_CHUNKS 256

static void write_sample(const char *path, int level)
{
    struct sst_writer_opts o = {.chunk_bytes = 400, .clock = SST_CLOCK_SYNTHETIC};
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

/* As read_all, but opening the file by path (the pread path, not stdio). */
static struct read_summary read_path(const char *path)
{
    struct read_summary s;
    memset(&s, 0, sizeof s);
    struct sst_reader_opts o = {.on_problem = note_problem, .problem_ctx = &s};
    struct sst_reader *r;
    if ((s.open_rc = sst_reader_open(path, &o, &r)) != 0)
        return s;
    const struct sst_rec_header *h;
    while ((s.next_rc = sst_reader_next(r, &h)) == 1)
        s.records++;
    s.st = *sst_reader_status(r);
    snprintf(s.state, sizeof s.state, "%s", sst_reader_state_line(r));
    sst_reader_close(r);
    return s;
}

static void write_bytes(const char *path, const uint8_t *buf, size_t len, const char *mode)
{
    FILE *f = fopen(path, mode);
    REQUIRE(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
}

/* A regular file opened by path is read with pread: every cut reads exactly as the same
 * bytes through stdio do. */
static void every_offset_by_path(void)
{
    const char *path = ss_test_path("raw.sst"), *cut_path = ss_test_path("cut.sst");
    write_sample(path, 0);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    for (size_t cut = 1; cut <= len; cut++) {
        write_bytes(cut_path, buf, cut, "wb");
        struct read_summary a = read_path(cut_path), b = read_all(buf, cut, 0);
        if (a.open_rc != b.open_rc || a.records != b.records || a.next_rc != b.next_rc ||
            a.st.truncated != b.st.truncated || strcmp(a.state, b.state) != 0)
            SS_FAIL_AT("cut at %zu: by path %d/%" PRIu64 " \"%s\", stdio %d/%" PRIu64 " \"%s\"",
                       cut, a.open_rc, a.records, a.state, b.open_rc, b.records, b.state);
    }
    free(buf);
}

/* A file another process truncates while it is being read: the reader reports a truncation
 * (pread returns short), it does not crash. */
static void shrinks_while_open(void)
{
    const char *path = ss_test_path("shrink.sst");
    write_sample(path, 0);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    uint64_t n = 0;
    CHECK_EQ(sst_reader_next(r, &h), 1); /* the first chunk is in memory now */
    n++;
    REQUIRE(truncate(path, (off_t)(len / 2)) == 0);
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1)
        n++;
    CHECK_EQ(rc, 0);
    CHECK(sst_reader_status(r)->truncated && !sst_reader_status(r)->closed);
    CHECK(n > 0 && n < 129);
    sst_reader_close(r);
    free(buf);
}

/* A file a live collector is still appending to: only the bytes there at open are read. */
static void grows_while_open(void)
{
    const char *path = ss_test_path("raw.sst"), *live = ss_test_path("live.sst");
    write_sample(path, 0);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    struct chunk_info c[MAX_CHUNKS];
    size_t nc = map_chunks(buf, len, c, MAX_CHUNKS);
    size_t head = c[nc / 2].off + 10; /* inside a chunk, as a writer's flush would leave it */
    write_bytes(live, buf, head, "wb");
    struct sst_reader *r;
    REQUIRE(sst_reader_open(live, NULL, &r) == 0);
    write_bytes(live, buf + head, len - head, "ab"); /* the rest, END chunk included */
    const struct sst_rec_header *h;
    uint64_t n = 0;
    while (sst_reader_next(r, &h) == 1)
        n++;
    int last;
    CHECK_EQ_U64(n, expected_records(c, nc, head, &last));
    CHECK(sst_reader_status(r)->truncated && !sst_reader_status(r)->closed);
    sst_reader_close(r);
    free(buf);
}

int main(void)
{
    every_offset_raw();
    every_offset_zstd();
    every_offset_by_path();
    shrinks_while_open();
    grows_while_open();
    return ss_test_result();
}
