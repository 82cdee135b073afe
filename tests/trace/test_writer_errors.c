/* test_writer_errors — the writer under failure: a full disk at open and in the middle of a
 * run (records then count as dropped, nothing crashes or blocks, the error is sticky and
 * the partial file reads as truncated), an existing path, bad record sizes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>

#include "trace_util.h"

static void dev_full(void)
{
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        printf("skipped: no /dev/full\n");
        return;
    }
    struct sst_writer *w = (void *)1;
    CHECK_EQ(sst_writer_open_fd(fd, NULL, &w), SS_ENOSPC); /* the header cannot be written */
    CHECK(w == NULL);
}

/* RLIMIT_FSIZE makes write(2) fail with EFBIG part-way through a chunk (a short write, then
 * an error), like a disk filling up. SIGXFSZ is ignored so the process survives. The error is
 * SS_EFBIG (issue #41: "file too large", not "no space left on device"). */
static void full_mid_run(void)
{
    const char *path = ss_test_path("full.sst");
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 10000;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    struct sst_writer_opts o = {.chunk_bytes = 4096, .clock = SST_CLOCK_SYNTHETIC};
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, &o, &w) == 0);
    uint64_t accepted = 0, refused = 0;
    for (int i = 0; i < 1000; i++) {
        struct sst_rec_kernel *k = sst_writer_reserve(w, SST_REC_KERNEL, sizeof *k);
        k ? accepted++ : refused++;
        if (k)
            k->start_ns = k->end_ns = (uint64_t)i;
    }
    CHECK_EQ(sst_writer_error(w), SS_EFBIG);
    CHECK(refused > 0);
    CHECK(sst_writer_intern_cstr(w, "after the error") == SST_NO_STRING);
    struct sst_rec_step step = {{SST_REC_STEP, sizeof step}, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(sst_writer_append(w, &step), SS_EFBIG);
    CHECK_EQ(sst_writer_flush(w), SS_EFBIG);
    struct sst_writer_stats st;
    sst_writer_get_stats(w, &st);
    CHECK_EQ_U64(st.records + st.dropped, 1001);
    CHECK(st.chunks >= 1 && st.records < accepted);
    CHECK_EQ(sst_writer_close(w, 0), SS_EFBIG);
    REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);

    size_t len;
    uint8_t *buf = slurp(path, &len);
    CHECK_EQ_U64(len, 10000);
    struct read_summary s = read_all(buf, len, 0);
    CHECK(s.open_rc == 0 && s.st.truncated && !s.st.closed && s.st.bad_chunks == 0);
    CHECK_EQ_U64(s.records, st.records); /* exactly the chunks that were written */
    free(buf);
}

static void misuse(void)
{
    const char *path = ss_test_path("misuse.sst");
    struct sst_writer *w;
    REQUIRE(sst_writer_open(path, NULL, &w) == 0);
    struct sst_writer *w2;
    CHECK_EQ(sst_writer_open(path, NULL, &w2), SS_EEXIST); /* never clobbers a file */
    CHECK_EQ(sst_writer_open("/nonexistent-dir/x.sst", NULL, &w2), SS_ENOENT);
    CHECK(sst_writer_reserve(w, SST_REC_KERNEL, 16) == NULL);   /* smaller than a kernel */
    CHECK(sst_writer_reserve(w, SST_REC_STEP, 70000) == NULL);  /* over SST_REC_MAX */
    CHECK(sst_writer_reserve(w, 300, 4) == NULL);               /* under 8 */
    uint8_t *p = sst_writer_reserve(w, 300, 13);                /* rounded up to 16 */
    CHECK(p && ((struct sst_rec_header *)(void *)p)->size == 16);
    sst_writer_count_dropped(w, 5);
    struct sst_writer_stats st;
    sst_writer_get_stats(w, &st);
    CHECK_EQ_U64(st.dropped, 8);
    CHECK_EQ_U64(st.records, 1);
    CHECK_EQ(sst_writer_error(w), 0);
    CHECK_EQ(sst_writer_close(w, 0), 0);
    struct sst_reader *r;
    REQUIRE(sst_reader_open(path, NULL, &r) == 0);
    const struct sst_rec_header *h;
    CHECK_EQ(sst_reader_next(r, &h), 0);
    CHECK_EQ_U64(sst_reader_status(r)->end.dropped, 8);
    CHECK_EQ_U64(sst_reader_status(r)->unknown_records, 1);
    sst_reader_close(r);
}

int main(void)
{
    dev_full();
    full_mid_run();
    misuse();
    return ss_test_result();
}
