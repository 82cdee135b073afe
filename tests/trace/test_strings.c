/* test_strings — interning: one id per distinct string, long strings cut, the cap on remembered
 * strings, table growth; the reader resolves every id. */
#include "trace_util.h"

#define MANY 20000

static void basic_and_many(void)
{
    const char *path = ss_test_path("strings.sst");
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, NULL, &w) == 0);
    uint32_t a = sst_writer_intern_cstr(w, "aten::conv2d");
    uint32_t b = sst_writer_intern_cstr(w, "aten::relu");
    CHECK(a != SST_NO_STRING && b != SST_NO_STRING && a != b);
    CHECK_EQ(sst_writer_intern(w, "aten::conv2d_extra", 12), a); /* by content, not pointer */
    CHECK_EQ(sst_writer_intern_cstr(w, "aten::relu"), b);
    CHECK(sst_writer_intern_cstr(w, NULL) == SST_NO_STRING);
    uint32_t empty = sst_writer_intern(w, "", 0);
    CHECK(empty != SST_NO_STRING && empty != a && empty != b);
    char s[64];
    uint32_t ids[MANY];
    for (int i = 0; i < MANY; i++) {
        snprintf(s, sizeof s, "kernel_%d", i);
        ids[i] = sst_writer_intern_cstr(w, s);
    }
    for (int i = 0; i < MANY; i += 7) {
        snprintf(s, sizeof s, "kernel_%d", i);
        CHECK_EQ(sst_writer_intern_cstr(w, s), ids[i]);
    }
    struct sst_writer_stats st;
    sst_writer_get_stats(w, &st);
    CHECK_EQ_U64(st.strings, MANY + 3);
    CHECK_EQ(sst_writer_close(w, 0), 0);

    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    while (sst_reader_next(r, &h) == 1)
        CHECK_EQ(h->type, SST_REC_STRING);
    CHECK_STR(sst_reader_string(r, a, NULL), "aten::conv2d");
    CHECK_STR(sst_reader_string(r, empty, NULL), "");
    for (int i = 0; i < MANY; i += 13) {
        snprintf(s, sizeof s, "kernel_%d", i);
        CHECK_STR(sst_reader_string(r, ids[i], NULL), s);
    }
    CHECK(sst_reader_string(r, 0, NULL) == NULL);
    CHECK(sst_reader_string(r, 0xfffffff0u, NULL) == NULL);
    sst_reader_close(r);
}

/* Strings over SST_STRING_MAX are cut, at a UTF-8 character boundary. */
static void long_strings(void)
{
    const char *path = ss_test_path("long.sst");
    size_t n = SST_STRING_MAX + 1001;
    char *big = malloc(n);
    REQUIRE(big);
    big[0] = 'x'; /* then "é" (C3 A9) repeated: byte SST_STRING_MAX continues a character */
    for (size_t i = 1; i + 1 < n; i += 2)
        big[i] = (char)0xC3, big[i + 1] = (char)0xA9;
    big[n - 1] = 'y';
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, NULL, &w) == 0);
    uint32_t id = sst_writer_intern(w, big, n);
    CHECK(id != SST_NO_STRING);
    CHECK_EQ(sst_writer_intern(w, big, n - 100), id); /* same after the cut */
    CHECK_EQ(sst_writer_close(w, 0), 0);
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    int cuts = 0;
    while (sst_reader_next(r, &h) == 1) {
        const struct sst_rec_dropped *d = (const void *)h;
        if (h->type == SST_REC_DROPPED && d->source == SST_DROP_STRING && d->count == 1)
            cuts++;
    }
    CHECK_EQ(cuts, 1); /* the cut is said in the file, once per distinct text */
    uint32_t len = 0;
    const char *t = sst_reader_string(r, id, &len);
    CHECK_EQ(len, SST_STRING_MAX - 1); /* backed off to the start of the character */
    CHECK(t && memcmp(t, big, len) == 0);
    CHECK_EQ(sst_reader_status(r)->malformed, 0);
    sst_reader_close(r);
    free(big);
}

/* Past max_strings, new strings still get ids (a fresh STRING record each time). */
static void cap(void)
{
    const char *path = ss_test_path("cap.sst");
    struct sst_writer_opts o = {.max_strings = 3};
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    uint32_t id[5];
    const char *names[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        id[i] = sst_writer_intern_cstr(w, names[i]);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(id[i], i + 1);
    CHECK_EQ(sst_writer_intern_cstr(w, "a"), id[0]);      /* remembered */
    uint32_t d2 = sst_writer_intern_cstr(w, "d");
    CHECK(d2 != SST_NO_STRING && d2 != id[3]);            /* not remembered: a new id */
    CHECK_EQ(sst_writer_close(w, 0), 0);
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    int n = 0;
    while (sst_reader_next(r, &h) == 1)
        n++;
    CHECK_EQ(n, 6);
    CHECK_STR(sst_reader_string(r, id[3], NULL), "d");
    CHECK_STR(sst_reader_string(r, d2, NULL), "d");
    sst_reader_close(r);
}

int main(void)
{
    basic_and_many();
    long_strings();
    cap();
    return ss_test_result();
}
