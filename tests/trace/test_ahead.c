/* test_ahead — chunks decoded on worker threads (sst_ahead.h) read exactly as without them:
 * the same records in the same order, the same strings, problems, status and damage line,
 * over two passes (a rewind between), on whole traces and on damaged ones (a payload byte
 * flipped, a compressed chunk that does not decompress, one that decompresses but fails its
 * checksum, a chunk repeated, two chunks swapped, a length that runs past the file, bytes after
 * the end, a cut), with 1 to 3 workers. The transcript of each read is compared whole, so any
 * difference in order or content fails (tried: a pool that skips the checksum, one that hands
 * out the chunk after the one asked for). A raw trace gets a pool only when its reader maps the
 * file (SST_READ_MAP: the workers sum each chunk through a mapping of their own), else it is
 * refused one (nothing to decompress) and reads alone: both read the same. The same reads with the first pass's
 * decompressed payloads kept for the second (sst_reader_keep_raw: all, or a budget of a few
 * chunks) after a rewind before anything was read (the analysis' pattern), with and without a
 * pool. */
#include <stdarg.h>

#include "trace/sst_ahead.h"
#include "trace/sst_zstd.h"
#include "trace_util.h"

/* What one read saw, as text: every problem, a hash of every record and string, the end. */
struct transcript {
    char *text;
    size_t len, cap;
};

static void say(struct transcript *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct transcript *t, const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    REQUIRE(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        REQUIRE((t->text = realloc(t->text, t->cap)) != NULL);
    }
    memcpy(t->text + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

static void on_problem(void *ctx, int err, uint64_t offset, const char *msg)
{
    say(ctx, "problem %d at %llu: %s\n", err, (unsigned long long)offset, msg);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* One pass: every record hashed with its kernel's name, then where the reader stands. */
static void one_pass(struct sst_reader *r, struct transcript *t)
{
    const struct sst_rec_header *h;
    uint64_t hash = 0xcbf29ce484222325ull, n = 0;
    int rc;
    while ((rc = sst_reader_next(r, &h)) == 1) {
        hash = fnv(hash, h, h->size), n++;
        if (h->type == SST_REC_KERNEL) {
            struct sst_rec_kernel k;
            sst_rec_load(h, &k, sizeof k);
            uint32_t len = 0;
            const char *s = sst_reader_string(r, k.name, &len);
            hash = fnv(hash, s ? s : "", s ? len : 0);
        }
        if (n % 1000 == 0) say(t, "at %llu: %016llx\n", (unsigned long long)n, (unsigned long long)hash);
    }
    struct sst_damage d;
    char line[1024];
    sst_reader_damage(r, &d);
    say(t, "end rc %d, %llu records, hash %016llx\nstate %s\ndamage %s\n", rc, (unsigned long long)n,
        (unsigned long long)hash, sst_reader_state_line(r), sst_damage_describe(&d, line, sizeof line));
}

/* Reads path twice (a rewind between) with `workers` decoding threads (0: none); keep: the
 * budget of decompressed payloads the first read keeps for the second (sst_reader_keep_raw),
 * read as the analysis reads (a rewind before the first pass), or 0. Returns the transcript;
 * the caller frees it. */
static char *read_twice(const char *path, unsigned flags, unsigned workers, size_t keep)
{
    struct transcript t = {0};
    struct sst_reader_opts o = {.on_problem = on_problem, .problem_ctx = &t};
    struct sst_reader *r;
    int rc = sst_reader_open_ex(path, &o, flags, &r);
    say(&t, "open %d\n", rc);
    if (rc != 0) return t.text;
    /* a raw trace (no zstd in its header's features) read without a mapping is refused: then
     * read alone */
    if (workers) {
        int ah = sst_ahead_attach(r, workers);
        CHECK(ah == 0 || (ah == SS_EINVAL && !(sst_reader_header(r)->features & SST_FEAT_ZSTD) &&
                          !sst_reader_maps(r)));
        if (flags & SST_READ_MAP && sst_reader_maps(r)) CHECK_EQ(ah, 0);
    }
    if (keep) {
        sst_reader_keep_raw(r, keep);
        CHECK_EQ(sst_reader_rewind(r), 0); /* nothing read yet: the next read is the first */
    }
    one_pass(r, &t);
    CHECK_EQ(sst_reader_rewind(r), 0);
    one_pass(r, &t);
    sst_reader_keep_raw(r, 0);
    sst_reader_close(r);
    return t.text;
}

/* A trace of many small chunks, compressed (zstd) or not, kernels naming 40 strings. */
static void write_trace(const char *path, int zstd)
{
    struct sst_compressor comp = {0};
    if (zstd) REQUIRE(sst_zstd_compressor_init(&comp, 1) == 0);
    struct sst_writer_opts o = {.chunk_bytes = 4 << 10, .compressor = comp,
                                .clock = SST_CLOCK_SYNTHETIC};
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    uint32_t names[40];
    for (int i = 0; i < 40; i++) {
        char s[64];
        snprintf(s, sizeof s, "kernel_%d_%s", i, i % 3 ? "gemm" : "elementwise");
        names[i] = sst_writer_intern_cstr(w, s);
    }
    for (uint32_t i = 0; i < 6000; i++) {
        struct sst_rec_kernel *k = sst_writer_reserve(w, SST_REC_KERNEL, sizeof *k);
        REQUIRE(k);
        k->name = names[(i * 7) % 40], k->start_ns = 1000000 + i * 5000ull;
        k->end_ns = k->start_ns + 1000 + i % 3000, k->correlation = i, k->stream = 7 + i % 3;
    }
    CHECK_EQ(sst_writer_close(w, 0), 0);
    sst_zstd_compressor_free(&comp);
}

static void put(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
}

/* The offset of the n-th chunk (0: the first after the header); the file's end when fewer. */
static size_t chunk_at(const uint8_t *buf, size_t len, int n)
{
    size_t off = 64;
    for (int i = 0; i < n && off + 24 <= len; i++) {
        struct sst_chunk_header h;
        memcpy(&h, buf + off, sizeof h);
        off += 24 + h.stored_len;
    }
    return off;
}

static size_t chunk_len(const uint8_t *buf, size_t off)
{
    struct sst_chunk_header h;
    memcpy(&h, buf + off, sizeof h);
    return 24 + h.stored_len;
}

/* Sets a chunk's checksum right again after its payload was changed. */
static void fix_crc(uint8_t *buf, size_t off)
{
    struct sst_chunk_header h;
    memcpy(&h, buf + off, sizeof h);
    h.crc = 0;
    memcpy(buf + off, &h, sizeof h);
    h.crc = sst_crc32c(0, buf + off, 24 + h.stored_len);
    memcpy(buf + off, &h, sizeof h);
}

/* Serial and every worker count read path alike, mapped and not; and serial with the first
 * read's payloads kept for the second, all of them (1 GiB) or a few (20 KiB of 4 KiB chunks). */
static void same_everywhere(const char *what, const char *path)
{
    static const unsigned flags[] = {0, SST_READ_MAP};
    static const size_t serial_keeps[] = {(size_t)1 << 30, 20 << 10};
    static const size_t pool_keeps[] = {0, (size_t)1 << 30};
    for (size_t f = 0; f < 2; f++) {
        char *want = read_twice(path, flags[f], 0, 0);
        for (unsigned w = 0; w <= 3; w++)
            for (size_t k = 0; k < 2; k++) {
                size_t keep = w ? pool_keeps[k] : serial_keeps[k];
                char *got = read_twice(path, flags[f], w, keep);
                if (strcmp(want, got) != 0)
                    SS_FAIL_AT("%s, %u workers, flags %u, keep %zu: the reads differ:\n--- "
                               "serial\n%.2000s\n--- other\n%.2000s", what, w, flags[f], keep,
                               want, got);
                free(got);
            }
        free(want);
    }
}

/* Writes a variant of buf: at `at`, `cut` bytes replaced by ins[0..n). */
static void variant(const char *what, const uint8_t *buf, size_t len, size_t at, size_t cut,
                    const uint8_t *ins, size_t n)
{
    uint8_t *v = malloc(len - cut + n);
    REQUIRE(v && at + cut <= len);
    memcpy(v, buf, at);
    if (n) memcpy(v + at, ins, n); /* ins may be NULL when n is 0 */
    memcpy(v + at + n, buf + at + cut, len - at - cut);
    const char *path = ss_test_path("variant.sst");
    put(path, v, len - cut + n);
    same_everywhere(what, path);
    free(v);
}

/* Chunk n of a zstd trace recompressed with one record byte changed and its old checksum kept:
 * it decompresses, so only the checksum tells that it is damaged (a pool that did not sum it
 * would hand out the changed record). */
static void recompressed_wrong_crc(const uint8_t *buf, size_t len, int n)
{
    size_t at = chunk_at(buf, len, n);
    struct sst_chunk_header h;
    memcpy(&h, buf + at, sizeof h);
    REQUIRE(h.type == SST_CHUNK_RECORDS && (h.flags & SST_CHUNK_F_ZSTD));
    uint8_t *raw = malloc(h.raw_len), *z = malloc(24 + 2 * (size_t)h.raw_len + 1024);
    void *dctx = NULL;
    REQUIRE(raw && z && sst_zstd_decompress(&dctx, raw, h.raw_len, buf + at + 24, h.stored_len) == 0);
    sst_zstd_dctx_free(dctx);
    raw[h.raw_len / 2] ^= 0x01;
    struct sst_compressor comp;
    REQUIRE(sst_zstd_compressor_init(&comp, 1) == 0);
    size_t zn = comp.compress(comp.ctx, z + 24, 2 * (size_t)h.raw_len + 1024, raw, h.raw_len);
    REQUIRE(zn > 0);
    sst_zstd_compressor_free(&comp);
    h.stored_len = (uint32_t)zn; /* the crc stays the old one's */
    memcpy(z, &h, sizeof h);
    variant("recompressed, old checksum", buf, len, at, chunk_len(buf, at), z, 24 + zn);
    free(raw);
    free(z);
}

static void damaged(const uint8_t *buf, size_t len, int zstd)
{
    size_t c3 = chunk_at(buf, len, 3), c4 = chunk_at(buf, len, 4), c5 = chunk_at(buf, len, 5);
    uint8_t *m = malloc(len + 64);
    REQUIRE(m);
    memcpy(m, buf, len);
    m[c5 + 40] ^= 0x5a; /* checksum fails */
    variant("flipped byte", m, len, 0, 0, NULL, 0);
    if (zstd) recompressed_wrong_crc(buf, len, 6);
    if (zstd) { /* a frame that does not decompress, with a right checksum */
        memcpy(m, buf, len);
        memset(m + c5 + 24, 0xff, 8);
        fix_crc(m, c5);
        variant("bad frame", m, len, 0, 0, NULL, 0);
    }
    variant("repeated chunk", buf, len, c5, 0, buf + c3, chunk_len(buf, c3));
    uint8_t *sw = malloc(chunk_len(buf, c4) + chunk_len(buf, c3)); /* chunks 3 and 4 swapped */
    REQUIRE(sw);
    memcpy(sw, buf + c4, chunk_len(buf, c4));
    memcpy(sw + chunk_len(buf, c4), buf + c3, chunk_len(buf, c3));
    variant("swapped chunks", buf, len, c3, c5 - c3, sw, c5 - c3);
    memcpy(m, buf, len);
    uint32_t huge = 15u << 20;
    memcpy(m + c4 + 8, &huge, 4); /* stored_len runs past the file */
    variant("length past the end", m, len, 0, 0, NULL, 0);
    memset(m, 0x77, 64);
    variant("bytes after the end", buf, len, len, 0, m, 64);
    for (size_t cut = 64; cut < len; cut += len / 7 + 13)
        variant("cut", buf, len, cut, len - cut, NULL, 0);
    free(sw);
    free(m);
}

static void run(int zstd)
{
    const char *path = ss_test_path(zstd ? "whole-zstd.sst" : "whole-raw.sst");
    write_trace(path, zstd);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    REQUIRE(chunk_at(buf, len, 8) < len); /* enough chunks for the damage below */
    same_everywhere(zstd ? "whole, zstd" : "whole, raw", path);
    damaged(buf, len, zstd);
    free(buf);
}

/* A stream has no descriptor for the workers: the pool is refused, reading goes on alone. */
static void stream_refused(void)
{
    const char *path = ss_test_path("stream.sst");
    write_trace(path, 1);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    struct sst_reader *r;
    REQUIRE(open_mem(buf, len, NULL, &r) == 0);
    CHECK_EQ(sst_ahead_attach(r, 2), SS_EINVAL);
    sst_reader_close(r);
    free(buf);
}

/* sst_reader_map_whole: granted to a mapped reader of a small file, whose window it replaces
 * (records read before and after it agree), refused without SST_READ_MAP; a pool over a raw
 * trace reads through it (same_everywhere checks what it hands out). */
static void whole_mapping(void)
{
    const char *path = ss_test_path("whole-map.sst");
    write_trace(path, 0);
    struct sst_reader *r;
    REQUIRE(sst_reader_open_ex(path, NULL, 0, &r) == 0);
    CHECK(sst_reader_map_whole(r) == NULL);
    sst_reader_close(r);
    REQUIRE(sst_reader_open_ex(path, NULL, SST_READ_MAP, &r) == 0);
    if (!sst_reader_maps(r)) { /* no guard here (a sanitizer's handler): nothing to check */
        printf("whole_mapping: skipped, the reader does not map here (SIGBUS taken)\n");
        sst_reader_close(r);
        return;
    }
    struct transcript before = {0}, after = {0};
    one_pass(r, &before);
    const uint8_t *m = sst_reader_map_whole(r);
    CHECK(m != NULL && memcmp(m, SST_MAGIC, SST_MAGIC_LEN) == 0);
    CHECK(sst_reader_map_whole(r) == m); /* kept: asked again, the same mapping */
    CHECK_EQ(sst_reader_rewind(r), 0);
    one_pass(r, &after);
    CHECK(before.text && after.text && strcmp(before.text, after.text) == 0);
    free(before.text);
    free(after.text);
    sst_reader_close(r);
}

int main(void)
{
    run(0);
    run(1);
    stream_refused();
    whole_mapping();
    ss_test_cleanup();
    return ss_test_result();
}
