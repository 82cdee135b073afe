/*
 * map_truncate.c — build/bench-analysis-map-truncate: what SST_READ_MAP (the mapped reading
 * the analysis uses, src/trace/sst_reader.h) does when the file is cut while it is mapped.
 * Each case runs in a child process:
 *   cut:      read part of a mapped trace, truncate the file, read on: the child must end with
 *             exit status 1 and the reader's one line on stderr, not die of SIGBUS;
 *   cut_pool: the same with a decoding pool (sst_ahead.h), whose threads read the raw chunks
 *             through the reader's mapping of the whole file (sst_reader_map_whole): the same
 *             line and status;
 *   kill:     a SIGBUS sent with kill(2) to a process whose reader installed its handler must
 *             still kill it with SIGBUS (the handler only takes faults inside its windows);
 *   handler:  a program with its own SIGBUS handler: the reader must not map (pread), so a cut
 *             reads as a truncated file and the child ends normally;
 *   same:     the records of an untouched file read mapped and with pread agree, also after
 *             sst_reader_rewind (which skips the checksums of chunks it checked).
 * Exit 0 when every case behaves.
 *
 *   bench-analysis-map-truncate [SCRATCH_DIR]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/sst_ahead.h"
#include "trace/sst_reader.h"
#include "trace/sst_writer.h"

#define RECORDS 200000 /* ~11 MiB of 56-byte records: more than one 8 MiB window */

static int failures;

static void fail(const char *what)
{
    printf("FAIL %s\n", what);
    failures++;
}

static int write_trace(const char *path)
{
    struct sst_writer_opts o = {.clock = SST_CLOCK_SYNTHETIC};
    struct sst_writer *w;
    if (sst_writer_open(path, &o, &w) != 0) return -1;
    for (uint64_t i = 0; i < RECORDS; i++) {
        struct sst_rec_memcpy *m = sst_writer_reserve(w, SST_REC_MEMCPY, sizeof *m);
        if (!m) return -1;
        m->copy_kind = SST_COPY_H2D, m->bytes = i, m->start_ns = 1000 * i,
        m->end_ns = 1000 * i + 10;
    }
    return sst_writer_close(w, 0);
}

/* Reads every record; returns the sum of their byte counts (a digest), and the count. */
static uint64_t read_sum(struct sst_reader *r, uint64_t *count)
{
    const struct sst_rec_header *h;
    uint64_t sum = 0;
    *count = 0;
    while (sst_reader_next(r, &h) == 1) {
        if (h->type != SST_REC_MEMCPY) continue;
        struct sst_rec_memcpy m;
        sst_rec_load(h, &m, sizeof m);
        sum += m.bytes ^ m.start_ns;
        (*count)++;
    }
    return sum;
}

/* Opens path mapped, reads a third of its records, cuts the file to 4 KiB and reads on
 * (children only: exits 10-12 when a step fails before the cut). */
static struct sst_reader *read_across_cut(const char *path, unsigned workers)
{
    struct sst_reader *r;
    if (sst_reader_open_ex(path, NULL, SST_READ_MAP, &r) != 0) _exit(10);
    if (workers && sst_ahead_attach(r, workers) != 0) _exit(13);
    const struct sst_rec_header *h;
    for (int i = 0; i < RECORDS / 3; i++)
        if (sst_reader_next(r, &h) != 1) _exit(11);
    if (truncate(path, 4096) != 0) _exit(12);
    uint64_t n;
    read_sum(r, &n);
    return r;
}

/* Child: reads across the cut with the default SIGBUS action (the reader's handler). */
static void child_cut(const char *path)
{
    read_across_cut(path, 0);
    _exit(0); /* with pread this would be a truncated read; mapped, the handler ends us */
}

static void child_cut_pool(const char *path)
{
    read_across_cut(path, 2);
    _exit(0);
}

static void child_kill(const char *path)
{
    struct sst_reader *r;
    if (sst_reader_open_ex(path, NULL, SST_READ_MAP, &r) != 0) _exit(10);
    kill(getpid(), SIGBUS);
    _exit(0);
}

static void own_handler(int sig)
{
    (void)sig;
}

static void child_handler(const char *path)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = own_handler;
    sigaction(SIGBUS, &sa, NULL);
    struct sst_reader *r = read_across_cut(path, 0);
    int truncated = sst_reader_status(r)->truncated;
    sst_reader_close(r);
    _exit(truncated ? 0 : 13);
}

/* Runs fn(path) in a child with stderr to errpath; returns its wait status. */
static int run_child(void (*fn)(const char *), const char *path, const char *errpath)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(errpath, "w", stderr)) _exit(20);
        fn(path);
        _exit(21);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}

static int file_contains(const char *path, const char *needle)
{
    char buf[1024] = {0};
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

static void check_same(const char *path)
{
    struct sst_reader *a, *b;
    if (sst_reader_open(path, NULL, &a) || sst_reader_open_ex(path, NULL, SST_READ_MAP, &b)) {
        fail("same: open");
        return;
    }
    uint64_t na, nb, nc;
    uint64_t sa = read_sum(a, &na), sb = read_sum(b, &nb);
    sst_reader_rewind(b);
    uint64_t sc = read_sum(b, &nc);
    if (na != RECORDS || nb != na || nc != na || sa != sb || sc != sa) fail("same: records differ");
    if (!sst_reader_status(b)->closed ||
        sst_reader_status(b)->records != sst_reader_status(a)->records)
        fail("same: status after rewind");
    sst_reader_close(a);
    sst_reader_close(b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char path[4096], err[4096];
    snprintf(path, sizeof path, "%s/map-truncate-%d.sst", dir, (int)getpid());
    snprintf(err, sizeof err, "%s/map-truncate-%d.err", dir, (int)getpid());

    if (write_trace(path) != 0) {
        fail("write the trace");
        return 1;
    }
    check_same(path);

    int st = run_child(child_cut, path, err);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 1) fail("cut: not exit status 1");
    if (!file_contains(err, "shrank while it was being read")) fail("cut: no message");

    unlink(path); /* the writer does not overwrite */
    if (write_trace(path) != 0) fail("write the trace again");
    st = run_child(child_cut_pool, path, err);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 1) fail("cut_pool: not exit status 1");
    if (!file_contains(err, "shrank while it was being read")) fail("cut_pool: no message");

    unlink(path);
    if (write_trace(path) != 0) fail("write the trace again");
    st = run_child(child_kill, path, err);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS) fail("kill: not killed by SIGBUS");

    st = run_child(child_handler, path, err); /* the kill case left the file whole */
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("handler: the reader mapped anyway");

    unlink(path);
    unlink(err);
    printf("%s\n", failures ? "map_truncate: FAILED" : "map_truncate: ok");
    return failures != 0;
}
