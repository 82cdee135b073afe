/* test_unknown — what a newer writer may produce (unknown record types, unknown chunk types,
 * records longer than this version's struct) is skipped or read as a prefix; malformed records
 * inside a chunk with a valid checksum drop the rest of that chunk only. */
#include "trace_util.h"

struct fbuf {
    uint8_t data[1 << 16];
    size_t len;
    uint32_t seq;
};

/* Starts a file with a valid header taken from a real (empty) trace. */
static void fb_start(struct fbuf *f)
{
    const char *path = ss_test_path("empty.sst");
    unlink(path);
    struct sst_writer *w;
    struct sst_writer_opts o = {.clock = SST_CLOCK_SYNTHETIC}; /* its times are made up */
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    CHECK_EQ(sst_writer_close(w, 0), 0);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    memcpy(f->data, buf, 64);
    f->len = 64;
    f->seq = 0;
    free(buf);
}

static void fb_chunk(struct fbuf *f, uint16_t type, const void *payload, size_t len)
{
    REQUIRE(f->len + 24 + len <= sizeof f->data);
    f->len += make_chunk(f->data + f->len, type, f->seq++, payload, (uint32_t)len);
}

static void fb_end(struct fbuf *f, uint32_t records_chunks)
{
    struct sst_end e = {1, 0, 0, records_chunks, 0};
    fb_chunk(f, SST_CHUNK_END, &e, sizeof e);
}

/* A payload builder: appends a record of type/size with the given first payload word. */
static size_t put(uint8_t *p, size_t at, uint16_t type, uint16_t size, uint32_t word)
{
    memset(p + at, 0, size > 8 ? size : 8);
    struct sst_rec_header h = {type, size};
    memcpy(p + at, &h, sizeof h);
    if (size >= 8)
        memcpy(p + at + 4, &word, 4);
    return at + size;
}

static void unknown_and_longer_records(void)
{
    struct fbuf f;
    fb_start(&f);
    uint8_t p[512];
    size_t n = put(p, 0, SST_REC_KERNEL, 72, 11);
    n = put(p, n, 200, 24, 0);              /* a type from the future */
    n = put(p, n, SST_REC_KERNEL, 88, 12);  /* a kernel with 16 more bytes of new fields */
    memset(p + n - 16, 0xab, 16);
    n = put(p, n, 0, 8, 0);                 /* type 0: never assigned, skipped too */
    n = put(p, n, SST_REC_STEP, 32, 13);
    fb_chunk(&f, SST_CHUNK_RECORDS, p, n);
    uint8_t future[40] = {1, 2, 3};
    fb_chunk(&f, 77, future, sizeof future); /* a chunk type from the future */
    n = put(p, 0, SST_REC_STEP, 32, 14);
    fb_chunk(&f, SST_CHUNK_RECORDS, p, n);
    fb_end(&f, 2);

    struct sst_reader *r;
    struct read_summary s;
    memset(&s, 0, sizeof s);
    struct sst_reader_opts o = {.on_problem = note_problem, .problem_ctx = &s};
    REQUIRE(open_mem(f.data, f.len, &o, &r) == 0);
    const struct sst_rec_header *h;
    uint32_t want_words[] = {11, 12, 13, 14};
    uint16_t want_sizes[] = {72, 88, 32, 32};
    int i = 0;
    while (sst_reader_next(r, &h) == 1 && i < 4) {
        uint32_t word;
        memcpy(&word, (const uint8_t *)h + 4, 4);
        CHECK_EQ(word, want_words[i]);
        CHECK_EQ(h->size, want_sizes[i]);
        i++;
    }
    CHECK_EQ(i, 4);
    const struct sst_read_status *st = sst_reader_status(r);
    CHECK_EQ(st->unknown_records, 2);
    CHECK_EQ(st->unknown_chunks, 1);
    CHECK(st->closed && st->bad_chunks == 0 && st->malformed == 0 && s.problems == 0);
    sst_reader_close(r);
}

/* One malformed record per file between good ones; the chunk after it is read. */
static void malformed_case(int which)
{
    struct fbuf f;
    fb_start(&f);
    uint8_t p[512];
    size_t n = put(p, 0, SST_REC_STEP, 32, 1);
    switch (which) {
    case 0: n = put(p, n, SST_REC_STEP, 36, 2); break;     /* size not a multiple of 8 */
    case 1: put(p, n, SST_REC_STEP, 400, 2); n += 40; break; /* runs past the chunk */
    case 2: n = put(p, n, SST_REC_KERNEL, 16, 2); break;   /* smaller than a kernel */
    case 3: n = put(p, n, SST_REC_STRING, 24, 5); p[n - 16] = 99; break; /* len 99 > 8 */
    case 4: n = put(p, n, SST_REC_STEP, 4, 2); n = 36; break; /* size under 8, odd tail */
    case 5: put(p, n, SST_REC_STEP, 0, 2); n += 8; break; /* size 0 */
    }
    if (which != 1)
        n = put(p, n, SST_REC_STEP, 32, 3); /* never returned: after the bad record */
    fb_chunk(&f, SST_CHUNK_RECORDS, p, n);
    size_t m = put(p, 0, SST_REC_STEP, 32, 4);
    fb_chunk(&f, SST_CHUNK_RECORDS, p, m);
    fb_end(&f, 2);
    struct read_summary s = read_all(f.data, f.len, 0);
    if (s.records != 2 || s.st.malformed != 1 || !s.st.closed || s.problems != 1)
        SS_FAIL_AT("case %d: %" PRIu64 " records, %" PRIu64 " malformed, %d problems (%s)",
                   which, s.records, s.st.malformed, s.problems, s.last_problem);
    CHECK_CONTAINS(s.last_problem, "malformed record");
    CHECK_EQ(read_all(f.data, f.len, 1).next_rc, SS_ECORRUPT);
}

/* String ids come from the file: any u32, redefinitions replace. */
static void hostile_string_ids(void)
{
    struct fbuf f;
    fb_start(&f);
    uint8_t p[512];
    size_t n = 0;
    uint32_t ids[] = {0xffffffffu, 7, 7, 0, 0x80000000u};
    const char *texts[] = {"max", "first", "second", "zero", "high"};
    for (int i = 0; i < 5; i++) {
        struct sst_rec_string s = {{SST_REC_STRING, 24}, ids[i], (uint32_t)strlen(texts[i]), 0};
        memset(p + n, 0, 24);
        memcpy(p + n, &s, sizeof s);
        memcpy(p + n + 16, texts[i], strlen(texts[i]));
        n += 24;
    }
    fb_chunk(&f, SST_CHUNK_RECORDS, p, n);
    fb_end(&f, 1);
    struct sst_reader *r;
    REQUIRE(open_mem(f.data, f.len, NULL, &r) == 0);
    const struct sst_rec_header *h;
    while (sst_reader_next(r, &h) == 1) {
    }
    CHECK_STR(sst_reader_string(r, 0xffffffffu, NULL), "max");
    CHECK_STR(sst_reader_string(r, 7, NULL), "second");
    CHECK_STR(sst_reader_string(r, 0x80000000u, NULL), "high");
    CHECK(sst_reader_string(r, 0, NULL) == NULL);
    CHECK(sst_reader_string(r, 8, NULL) == NULL);
    sst_reader_close(r);
}

int main(void)
{
    unknown_and_longer_records();
    for (int i = 0; i < 6; i++)
        malformed_case(i);
    hostile_string_ids();
    return ss_test_result();
}
