/* test_clock — the CLOCK record (issue #44): its layout, a pair read and written, read back
 * whole, and what info computes from pairs:
 * the median offset, the drift in ppm, the largest spread, in constant memory. */
#include <stddef.h>

#include "trace/sst_clock.h"
#include "trace_util.h"

static void layout(void)
{
    CHECK_EQ(sizeof(struct sst_rec_clock), 24);
    CHECK_EQ(offsetof(struct sst_rec_clock, spread_ns), 4);
    CHECK_EQ(offsetof(struct sst_rec_clock, ts_ns), 8);
    CHECK_EQ(offsetof(struct sst_rec_clock, unix_ns), 16);
    CHECK_EQ(sst_rec_min_size(SST_REC_CLOCK), 24);
    CHECK_STR(sst_rec_type_name(SST_REC_CLOCK), "clock");
}

/* A real pair: the monotonic midpoint between two reads now, REALTIME after 2020. */
static void read_pair(void)
{
    uint64_t before = sst_now_ns();
    struct sst_rec_clock c;
    sst_clock_read(&c);
    CHECK(c.ts_ns >= before && c.ts_ns <= sst_now_ns());
    CHECK(c.unix_ns > 1577836800ull * 1000000000ull);
    CHECK(c.spread_ns < 50000000u); /* 50 ms: only a badly preempted read is slower */
    CHECK(sst_clock_offset(&c) == (int64_t)(c.unix_ns - c.ts_ns));
}

static void write_pair(const char *path, struct sst_rec_clock *c)
{
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, NULL, &w) == 0);
    sst_clock_read(c);
    struct sst_rec_clock *r = sst_writer_reserve(w, SST_REC_CLOCK, sizeof *r);
    REQUIRE(r);
    memcpy((char *)r + sizeof r->h, (char *)c + sizeof c->h, sizeof *c - sizeof c->h);
    CHECK_EQ(sst_writer_close(w, 0), 0);
}

static void round_trip(void)
{
    const char *path = ss_test_path("clock.sst");
    struct sst_rec_clock c, back;
    write_pair(path, &c);
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    REQUIRE(sst_reader_next(r, &h) == 1);
    CHECK_EQ(h->type, SST_REC_CLOCK);
    CHECK_EQ(h->size, 24);
    sst_rec_load(h, &back, sizeof back);
    CHECK_EQ_U64(back.ts_ns, c.ts_ns);
    CHECK_EQ_U64(back.unix_ns, c.unix_ns);
    CHECK_EQ(back.spread_ns, c.spread_ns);
    CHECK_EQ(sst_reader_next(r, &h), 0);
    CHECK_EQ(sst_reader_header(r)->format_version, SST_FORMAT_VERSION);
    CHECK_EQ(sst_reader_header(r)->min_reader_version, 1); /* older readers skip it */
    sst_reader_close(r);
}

static struct sst_rec_clock pair(uint64_t ts, int64_t off, uint32_t spread)
{
    struct sst_rec_clock c = {.spread_ns = spread, .ts_ns = ts, .unix_ns = ts + (uint64_t)off};
    return c;
}

/* Offsets 1.7e18 ns that move +20 ppm over an hour: the slope is found to 0.01 ppm. */
static void fit_drift(void)
{
    static struct sst_clock_fit f;
    sst_clock_fit_init(&f);
    const int64_t off0 = 1733500000000000000ll;
    const uint64_t t0 = 86400ull * 1000000000ull; /* a day after boot */
    for (int i = 0; i < 360; i++) {
        uint64_t dt = (uint64_t)i * 10000000000ull;
        struct sst_rec_clock c = pair(t0 + dt, off0 + (int64_t)(dt / 50000), 100u + (uint32_t)i);
        sst_clock_fit_add(&f, &c);
    }
    CHECK_EQ_U64(f.n, 360);
    CHECK_EQ(f.max_spread_ns, 459);
    double ppm = sst_clock_fit_ppm(&f);
    CHECK(ppm > 19.99 && ppm < 20.01);
    int64_t med = sst_clock_fit_median(&f), mid = off0 + 1795000000000ll / 50000;
    CHECK(med > mid - 200000 && med < mid + 200000); /* between pairs 179 and 180 */
}

/* More pairs than are kept: every other one goes, the median still spans the whole run, and a
 * single pair or none gives no slope. */
static void fit_many(void)
{
    static struct sst_clock_fit f;
    sst_clock_fit_init(&f);
    CHECK_EQ(sst_clock_fit_median(&f), 0);
    for (uint64_t i = 0; i < 3 * SST_CLOCK_FIT_KEEP; i++) {
        struct sst_rec_clock c = pair(1000 + i * 1000, (int64_t)i, 7);
        sst_clock_fit_add(&f, &c);
        if (i == 0) CHECK(sst_clock_fit_ppm(&f) == 0);
    }
    CHECK(f.n_kept <= SST_CLOCK_FIT_KEEP && f.n_kept >= SST_CLOCK_FIT_KEEP / 2);
    int64_t med = sst_clock_fit_median(&f), want = 3 * SST_CLOCK_FIT_KEEP / 2;
    CHECK(med > want - 8 && med < want + 8);
    double ppm = sst_clock_fit_ppm(&f);
    CHECK(ppm > 999.99 && ppm < 1000.01); /* 1 ns per 1000 ns */
}

int main(void)
{
    layout();
    read_pair();
    round_trip();
    fit_drift();
    fit_many();
    return ss_test_result();
}
