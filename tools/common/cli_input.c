/*
 * cli_input.c — inputs that are not regular files: "-" (stdin), pipes (`<(zcat t.json.gz)`),
 * FIFOs and character devices. The readers need a file they can map and read twice, so such an
 * input is copied into a temporary file first — but only once its first bytes announce a
 * format stepscope reads: /dev/zero or /dev/urandom are refused at once, and a FIFO nobody
 * writes to is refused instead of blocking forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "interop/ssi.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

#define SPOOL_HEAD 64
#define SPOOL_MAX (64ull << 30) /* a stream that never ends must not fill the disk silently */

struct spool {
    const char *verb, *path;
    int fd, fifo;
    unsigned char head[SPOOL_HEAD];
    size_t got;
};

static void set_blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* Reads the first bytes. With O_NONBLOCK, a FIFO without a writer reads 0 at once (refused),
 * one whose writer has not written yet says EAGAIN (then we wait for it). -1 after a line. */
static int read_head(struct spool *s)
{
    while (s->got < SPOOL_HEAD) {
        ssize_t n = read(s->fd, s->head + s->got, SPOOL_HEAD - s->got);
        if (n > 0) {
            s->got += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            set_blocking(s->fd);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            cli_error(s->verb, s->path, "cannot read: %s", strerror(errno));
            return -1;
        }
        break; /* end of input */
    }
    if (s->got) return 0;
    cli_error(s->verb, s->path, "%s",
              s->fifo ? "is a FIFO with no writer (or nothing was written to it)"
                      : ss_strerror(SS_EEMPTY));
    return -1;
}

static int head_is_zero(const struct spool *s)
{
    for (size_t i = 0; i < s->got; i++)
        if (s->head[i]) return 0;
    return 1;
}

static int check_head(const struct spool *s)
{
    char formats[256];
    if (ssi_detect_bytes(s->head, s->got) != SSI_FMT_UNKNOWN) return 0;
    if (head_is_zero(s))
        cli_error(s->verb, s->path, "reads as zero bytes: not a trace");
    else
        cli_error(s->verb, s->path, "not a %s (from its first bytes)",
                  ssi_formats_read(formats, sizeof formats, 1));
    return -1;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

/* A failed write of the copy: the temporary file's folder is what failed (a full $TMPDIR),
 * not the input. -1. */
static int say_tmp_failed(const struct spool *s, int e)
{
    cli_error(s->verb, ss_tmp_dir(), "cannot copy %s into a temporary file here: %s", s->path,
              ss_strerror(ss_from_errno(e)));
    return -1;
}

/* The rest of the stream after the head, into out. 0, or -1 after a line. */
static int copy_rest(struct spool *s, int out)
{
    char buf[1 << 15]; /* report reads several inputs on several threads */
    uint64_t total = s->got;
    set_blocking(s->fd);
    for (;;) {
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n == 0) return 0;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if ((total += (uint64_t)n) > SPOOL_MAX) {
            cli_error(s->verb, s->path, "the stream is larger than 64 GiB: save it to a file");
            return -1;
        }
        if (write_all(out, buf, (size_t)n) != 0) return say_tmp_failed(s, errno);
    }
    cli_error(s->verb, s->path, "cannot read the stream: %s", strerror(errno));
    return -1;
}

/* A new temporary file (tracked: removed if a signal ends the process) holding the stream. */
static int spool_to_tmp(struct spool *s, char **out)
{
    int fd = ss_tmp_new("stepscope-in", out);
    if (fd < 0) {
        cli_error(s->verb, ss_tmp_dir(), "cannot make a temporary file for %s: %s", s->path,
                  ss_strerror(ss_from_errno(errno)));
        return -1;
    }
    int rc = write_all(fd, s->head, s->got) != 0 ? say_tmp_failed(s, errno) : copy_rest(s, fd);
    if (close(fd) != 0 && rc == 0) rc = say_tmp_failed(s, errno); /* NFS says it at close */
    if (rc != 0) {
        unlink(*out);
        ss_tmp_untrack_path(*out);
        free(*out), *out = NULL;
    }
    return rc;
}

/* The descriptor to read a stream input from, or -1 after a line (or with errno ENOENT
 * etc. left for the reader to word: *regular set when path is a plain file after all). */
static int open_stream(struct spool *s, int *regular)
{
    struct stat st;
    *regular = 0;
    if (strcmp(s->path, "-") == 0) {
        if (isatty(STDIN_FILENO)) {
            cli_error(s->verb, "-", "stdin is a terminal: pipe a trace into it or name a file");
            return -1;
        }
        s->fd = dup(STDIN_FILENO);
    } else {
        if (stat(s->path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
            *regular = 1; /* the usual readers say what is wrong, in their words */
            return -1;
        }
        s->fd = open(s->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    }
    if (s->fd < 0) {
        cli_error(s->verb, s->path, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fstat(s->fd, &st) == 0) s->fifo = S_ISFIFO(st.st_mode), *regular = S_ISREG(st.st_mode);
    return s->fd;
}

int cli_input_spool(const char *verb, const char *path, char **out_path, int *is_temp)
{
    struct spool s = {.verb = verb, .path = path, .fd = -1};
    int regular;
    *out_path = NULL;
    *is_temp = 0;
    if (open_stream(&s, &regular) < 0 && !regular) return -1;
    if (regular) { /* a file (stdin redirected from one): read it where it is */
        if (s.fd >= 0) close(s.fd);
        *out_path = strdup(strcmp(path, "-") == 0 ? "/dev/stdin" : path);
        return *out_path ? 0 : -1;
    }
    int rc = read_head(&s);
    if (rc == 0) rc = check_head(&s);
    if (rc == 0) rc = spool_to_tmp(&s, out_path);
    close(s.fd);
    *is_temp = rc == 0;
    return rc;
}

void cli_input_release(char *path, int is_temp)
{
    if (path && is_temp) {
        unlink(path);
        ss_tmp_untrack_path(path);
    }
    free(path);
}
