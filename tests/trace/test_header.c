/* test_header — what the reader says about files that are not (readable) traces: version
 * mismatch, a newer but compatible writer with a longer header, empty, short, text, ELF,
 * damaged header, wrong byte order, missing file, directory. */
#include "trace_util.h"

/* A closed trace with one STEP record, as bytes; header fields can then be edited. */
static uint8_t *sample(size_t *len)
{
    const char *path = ss_test_path("h.sst");
    unlink(path);
    struct sst_writer *w;
    struct sst_writer_opts o = {.clock = SST_CLOCK_SYNTHETIC}; /* its times are made up */
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    struct sst_rec_step *s = sst_writer_reserve(w, SST_REC_STEP, sizeof *s);
    REQUIRE(s);
    s->step = 77;
    CHECK_EQ(sst_writer_close(w, 0), 0);
    return slurp(path, len);
}

static void reseal(uint8_t *buf)
{
    struct sst_file_header h;
    memcpy(&h, buf, sizeof h);
    h.header_crc = sst_crc32c(0, &h, 60);
    memcpy(buf, &h, sizeof h);
}

static void version_mismatch(void)
{
    size_t len;
    uint8_t *buf = sample(&len);
    struct sst_file_header *h = (void *)buf;
    h->format_version = 2, h->min_reader_version = 2;
    reseal(buf);
    struct read_summary s = read_all(buf, len, 0);
    CHECK_EQ(s.open_rc, SS_EVERSION);
    CHECK_CONTAINS(s.last_problem, "trace format v2 needs a newer stepscope (this one reads up to v1)");
    CHECK_CONTAINS(ss_strerror(s.open_rc), "newer stepscope");
    free(buf);
}

/* format_version 2 with min_reader_version 1 and 16 more header bytes: readable. */
static void newer_compatible(void)
{
    size_t len;
    uint8_t *buf = sample(&len);
    uint8_t *big = malloc(len + 16);
    REQUIRE(big);
    memcpy(big, buf, 64);
    memset(big + 64, 0xee, 16);
    memcpy(big + 80, buf + 64, len - 64);
    struct sst_file_header *h = (void *)big;
    h->format_version = 2, h->header_size = 80;
    reseal(big);
    struct read_summary s = read_all(big, len + 16, 1);
    CHECK_EQ(s.open_rc, 0);
    CHECK_EQ(s.next_rc, 0);
    CHECK_EQ_U64(s.records, 1);
    CHECK(s.st.closed && s.problems == 0);
    free(big);
    free(buf);
}

static void not_traces(void)
{
    static const char text[] = "step,loss\n1,0.93\n2,0.88\n";
    CHECK_EQ(read_all((const uint8_t *)text, sizeof text - 1, 0).open_rc, SS_ENOTTRACE);
    CHECK_EQ(read_all((const uint8_t *)"", 0, 0).open_rc, SS_EEMPTY);
    CHECK_EQ(read_all((const uint8_t *)"\x89SST", 4, 0).open_rc, SS_ETRUNC);
    CHECK_EQ(read_all((const uint8_t *)"\x7f" "ELF", 4, 0).open_rc, SS_ENOTTRACE);
    struct sst_reader *r = NULL;
    CHECK_EQ(sst_reader_open("/proc/self/exe", NULL, &r), SS_ENOTTRACE); /* an ELF */
    CHECK(r == NULL);
    CHECK_EQ(sst_reader_open(ss_test_path("missing.sst"), NULL, &r), SS_ENOENT);
    CHECK_EQ(sst_reader_open("/", NULL, &r), SS_EINVAL);
    size_t len;
    uint8_t *buf = sample(&len);
    CHECK_EQ(read_all(buf, 40, 0).open_rc, SS_ETRUNC);
    buf[40] ^= 1; /* a reserved byte: only the checksum notices */
    CHECK_EQ(read_all(buf, len, 0).open_rc, SS_ECORRUPT);
    buf[40] ^= 1;
    buf[14] = 2; /* byte_order, resealed: a big-endian writer */
    reseal(buf);
    CHECK_EQ(read_all(buf, len, 0).open_rc, SS_EBYTEORDER);
    buf[14] = 1;
    ((struct sst_file_header *)(void *)buf)->header_size = 32;
    reseal(buf);
    CHECK_EQ(read_all(buf, len, 0).open_rc, SS_ECORRUPT);
    free(buf);
}

/* A header and nothing else (the writer was killed before its first chunk). */
static void header_only(void)
{
    size_t len;
    uint8_t *buf = sample(&len);
    struct read_summary s = read_all(buf, 64, 0);
    CHECK_EQ(s.open_rc, 0);
    CHECK_EQ(s.next_rc, 0);
    CHECK(s.st.truncated && s.records == 0);
    CHECK_CONTAINS(s.state, "truncated before the first chunk");
    free(buf);
}

int main(void)
{
    version_mismatch();
    newer_compatible();
    not_traces();
    header_only();
    return ss_test_result();
}
