/* test_compress — zstd chunks read back like raw ones; a chunk that does not compress, or a
 * compressor that fails, leaves the chunk raw; compressed files are smaller. */
#include "trace/sst_zstd.h"
#include "trace_util.h"

static uint64_t rng = 0x1234567;
static uint64_t next_rand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* 2000 similar kernel records, then one chunk's worth of random (incompressible) text. */
static void write_mix(const char *path, struct sst_compressor comp, uint64_t *records)
{
    struct sst_writer_opts o = {.chunk_bytes = 64 << 10, .compressor = comp,
                                .clock = SST_CLOCK_SYNTHETIC};
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    for (int i = 0; i < 2000; i++) {
        struct sst_rec_kernel *k = sst_writer_reserve(w, SST_REC_KERNEL, sizeof *k);
        REQUIRE(k);
        k->name = 1 + i % 5, k->start_ns = 1000000 + i * 5000u, k->end_ns = k->start_ns + 4000;
        k->correlation = i, k->stream = 7, k->grid[0] = 132, k->block[0] = 256;
    }
    REQUIRE(sst_writer_flush(w) == 0);
    char text[4000];
    for (int i = 0; i < 16; i++) { /* 64 KB of random bytes: one chunk that stays raw */
        for (size_t j = 0; j < sizeof text; j++)
            text[j] = (char)next_rand();
        CHECK(sst_writer_intern(w, text, sizeof text) != SST_NO_STRING);
    }
    struct sst_writer_stats st;
    sst_writer_get_stats(w, &st);
    *records = st.records;
    CHECK_EQ(sst_writer_close(w, 0), 0);
}

/* Counts chunks by flags, walking the (valid) file's chunk headers. */
static void count_chunks(const uint8_t *buf, size_t len, int *zstd, int *raw)
{
    *zstd = *raw = 0;
    for (size_t off = 64; off + 24 <= len;) {
        struct sst_chunk_header h;
        memcpy(&h, buf + off, sizeof h);
        REQUIRE(h.magic == SST_CHUNK_MAGIC);
        if (h.type == SST_CHUNK_RECORDS)
            (h.flags & SST_CHUNK_F_ZSTD) ? (*zstd)++ : (*raw)++;
        off += 24 + h.stored_len;
    }
}

static size_t failing_compress(void *ctx, void *dst, size_t cap, const void *src, size_t n)
{
    (void)ctx, (void)dst, (void)cap, (void)src, (void)n;
    return 0;
}

static size_t run(const char *name, struct sst_compressor comp, int want_zstd_chunks)
{
    const char *path = ss_test_path(name);
    uint64_t written;
    write_mix(path, comp, &written);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    int z, raw;
    count_chunks(buf, len, &z, &raw);
    if (want_zstd_chunks)
        CHECK(z >= 1 && raw >= 1); /* the random chunk stayed raw */
    else
        CHECK(z == 0 && raw >= 2);
    struct read_summary s = read_all(buf, len, 1);
    CHECK_EQ(s.open_rc, 0);
    CHECK_EQ(s.next_rc, 0);
    CHECK_EQ_U64(s.records, written);
    CHECK(s.st.closed && s.problems == 0);
    free(buf);
    return len;
}

int main(void)
{
    struct sst_compressor none = {0}, failing = {failing_compress, NULL, NULL}, z1, z19;
    REQUIRE(sst_zstd_compressor_init(&z1, 1) == 0);
    REQUIRE(sst_zstd_compressor_init(&z19, 19) == 0);
    size_t plain = run("plain.sst", none, 0);
    size_t fail = run("failing.sst", failing, 0);
    size_t small = run("z1.sst", z1, 1);
    size_t smaller = run("z19.sst", z19, 1);
    printf("file bytes: raw %zu, failing compressor %zu, zstd-1 %zu, zstd-19 %zu\n", plain, fail,
           small, smaller);
    CHECK_EQ(plain, fail);
    CHECK(small < plain - 100000); /* 144 KB of kernels shrink to a few KB */
    CHECK(smaller <= small);
    sst_zstd_compressor_free(&z1);
    sst_zstd_compressor_free(&z19);
    return ss_test_result();
}
