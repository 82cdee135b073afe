/* test_corrupt — damaged traces: every byte of a small file flipped in turn (a damaged chunk
 * is reported and skipped, all others read; a damaged header refuses the file), zstd frames
 * with valid checksums but bad content, and random mutations. Never a crash. */
#include "trace/sst_zstd.h"
#include "trace_util.h"

#define MAX_CHUNKS 256

static void write_sample(const char *path, int level)
{
    struct sst_writer_opts o = {.chunk_bytes = 300, .clock = SST_CLOCK_SYNTHETIC};
    if (level)
        REQUIRE(sst_zstd_compressor_init(&o.compressor, level) == 0);
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    for (int i = 0; i < 40; i++) {
        char name[32];
        snprintf(name, sizeof name, "memcpy_site_%d", i % 7);
        uint32_t id = sst_writer_intern_cstr(w, name);
        struct sst_rec_memcpy *m = sst_writer_reserve(w, SST_REC_MEMCPY, sizeof *m);
        REQUIRE(m);
        m->copy_kind = SST_COPY_H2D, m->bytes = 4096u * i, m->start_ns = 100u * i;
        m->end_ns = m->start_ns + 50;
        m->correlation = id;
    }
    CHECK_EQ(sst_writer_close(w, 0), 0);
    sst_zstd_compressor_free(&o.compressor);
}

static size_t chunk_at(const struct chunk_info *c, size_t nc, size_t off)
{
    for (size_t i = 0; i < nc; i++)
        if (off >= c[i].off && off < c[i].off + c[i].len)
            return i;
    return nc;
}

static void check_flip(const uint8_t *buf, size_t k, const struct chunk_info *c, size_t nc,
                       uint64_t total)
{
    struct read_summary s = read_all(buf, c[nc - 1].off + c[nc - 1].len, 0);
    if (k < 64) {
        if (s.open_rc == 0)
            SS_FAIL_AT("header byte %zu flipped, file accepted", k);
        return;
    }
    size_t ci = chunk_at(c, nc, k);
    REQUIRE(ci < nc && s.open_rc == 0);
    uint64_t want = total - c[ci].records;
    int is_end = c[ci].type == SST_CHUNK_END;
    if (s.records != want || s.st.bad_chunks != 1 || s.st.first_bad_offset != c[ci].off ||
        s.st.closed == is_end || s.st.truncated != is_end)
        SS_FAIL_AT("byte %zu (chunk %zu) flipped: %" PRIu64 " records (want %" PRIu64
                   "), %u bad, %s",
                   k, ci, s.records, want, s.st.bad_chunks, s.state);
    char at[64];
    snprintf(at, sizeof at, "chunk %u at offset %zu: ", c[ci].seq, c[ci].off);
    if (!is_end)
        CHECK_CONTAINS(s.last_problem, at);
    CHECK_CONTAINS(s.state, "damaged region skipped");
}

static void flip_every_byte(void)
{
    const char *path = ss_test_path("raw.sst");
    write_sample(path, 0);
    size_t len;
    uint8_t *orig = slurp(path, &len);
    uint8_t *buf = malloc(len);
    REQUIRE(buf);
    struct chunk_info c[MAX_CHUNKS];
    size_t nc = map_chunks(orig, len, c, MAX_CHUNKS);
    uint64_t total = 0;
    for (size_t i = 0; i < nc; i++)
        total += c[i].records;
    printf("raw sample: %zu bytes, %zu chunks, %" PRIu64 " records\n", len, nc, total);
    for (int mask = 0x01; mask <= 0xff; mask = mask * 8 + 7) { /* 0x01, 0x0f, 0x7f */
        for (size_t k = 0; k < len; k++) {
            memcpy(buf, orig, len);
            buf[k] ^= (uint8_t)mask;
            check_flip(buf, k, c, nc, total);
        }
    }
    memcpy(buf, orig, len); /* strict mode stops at the damage */
    buf[c[1].off + 30] ^= 1;
    CHECK_EQ(read_all(buf, len, 1).next_rc, SS_ECORRUPT);
    free(buf);
    free(orig);
}

/* A compressed chunk whose frame is damaged but whose CRC was recomputed: zstd itself sees
 * the bad input. Either the frame fails (chunk skipped) or it decodes to the right size. */
static void bad_zstd_frames(void)
{
    const char *path = ss_test_path("zstd.sst");
    write_sample(path, 3);
    size_t len;
    uint8_t *orig = slurp(path, &len);
    uint8_t *buf = malloc(len);
    REQUIRE(buf);
    struct sst_chunk_header h;
    memcpy(&h, orig + 64, sizeof h);
    REQUIRE(h.flags & SST_CHUNK_F_ZSTD);
    int skipped = 0;
    for (size_t k = 0; k < h.stored_len; k++) {
        memcpy(buf, orig, len);
        buf[64 + 24 + k] ^= 0x5a;
        struct sst_chunk_header nh = h;
        nh.crc = 0;
        memcpy(buf + 64, &nh, sizeof nh);
        nh.crc = sst_crc32c(0, buf + 64, 24 + h.stored_len);
        memcpy(buf + 64, &nh, sizeof nh);
        struct read_summary s = read_all(buf, len, 0);
        CHECK(s.open_rc == 0 && s.st.bad_chunks <= 1);
        skipped += s.st.bad_chunks;
    }
    printf("zstd frame damage: %d of %u variants skipped as bad chunks\n", skipped,
           h.stored_len);
    CHECK(skipped > 0); /* frames have no zstd checksum: damaged literals still decode */
    free(buf);
    free(orig);
}

/* Random overwrites, cuts and junk insertions: only "no crash" and sane counters. */
static void random_mutations(void)
{
    size_t len;
    uint8_t *orig = slurp(ss_test_path("raw.sst"), &len);
    uint8_t *buf = malloc(len + 512);
    REQUIRE(buf);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, orig, len);
        size_t n = len;
        int edits = 1 + (int)(x % 8);
        for (int e = 0; e < edits; e++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[64 + x % (n - 64)] = (uint8_t)(x >> 24);
        }
        if (it % 3 == 0)
            n = 64 + (x >> 8) % (len - 64);
        if (it % 5 == 0) /* junk after the data, like a reused file */
            for (int j = 0; j < 512; j++)
                buf[n++] = (uint8_t)(x >> (j % 56));
        struct read_summary s = read_all(buf, n, it % 2);
        CHECK(s.open_rc == 0 && s.st.records <= 200);
    }
    free(buf);
    free(orig);
}

int main(void)
{
    flip_every_byte();
    bad_zstd_frames();
    random_mutations();
    return ss_test_result();
}
