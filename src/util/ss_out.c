/* ss_out.c — safe output files and the removal of temporary files on signals; see ss_out.h. */
#include "ss_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ss_error.h"

/* ---- temporary files removed on SIGINT / SIGTERM / SIGHUP ---- */

#define SS_TMP_SLOTS 32

static char g_tmp_path[SS_TMP_SLOTS][PATH_MAX];
static int g_tmp_used[SS_TMP_SLOTS]; /* 0 free, 1 claimed (path being set), 2 tracked */
static int g_handlers_installed;

static void remove_tracked(void)
{
    for (int i = 0; i < SS_TMP_SLOTS; i++)
        if (__atomic_load_n(&g_tmp_used[i], __ATOMIC_ACQUIRE) == 2) unlink(g_tmp_path[i]);
}

static const int k_fatal_sigs[] = {SIGINT, SIGTERM, SIGHUP};

static void fatal_sigset(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof k_fatal_sigs / sizeof k_fatal_sigs[0]; i++)
        sigaddset(set, k_fatal_sigs[i]);
}

/* Async-signal-safe: unlink, then the default action of the signal. The three signals stay
 * blocked while it runs (sa_mask), so a second one — `timeout` forwards the SIGINT a shell
 * or pkill also sent, twice — cannot end the process before the unlink; the raised signal
 * is delivered, with its default action, when the handler returns. */
static void on_fatal_signal(int sig)
{
    remove_tracked();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (__atomic_exchange_n(&g_handlers_installed, 1, __ATOMIC_ACQ_REL)) return;
    for (size_t i = 0; i < sizeof k_fatal_sigs / sizeof k_fatal_sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(k_fatal_sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        fatal_sigset(&sa.sa_mask);
        sigaction(k_fatal_sigs[i], &sa, NULL);
    }
}

/* SIGXFSZ's default action kills the process with the temporary file in place; caught, the
 * write fails with EFBIG and says so like a full disk. A handler rather than SIG_IGN: exec
 * resets it, so a program `record` runs gets the disposition it had. One it ignored stays. */
static void on_xfsz(int sig)
{
    (void)sig;
}

void ss_out_catch_xfsz(void)
{
    struct sigaction old, sa;
    if (sigaction(SIGXFSZ, NULL, &old) != 0 || old.sa_handler != SIG_DFL) return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_xfsz;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGXFSZ, &sa, NULL);
}

/* Tracks path for removal on the fatal signals: its slot, or -1 when every slot is taken. */
static int ss_tmp_track(const char *path)
{
    if (strlen(path) >= PATH_MAX) return -1;
    for (int i = 0; i < SS_TMP_SLOTS; i++) {
        int expect = 0;
        if (!__atomic_compare_exchange_n(&g_tmp_used[i], &expect, 1, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED))
            continue;
        memcpy(g_tmp_path[i], path, strlen(path) + 1);
        __atomic_store_n(&g_tmp_used[i], 2, __ATOMIC_RELEASE);
        return i;
    }
    return -1;
}

int ss_tmp_mkstemp(char *pattern, int *slot)
{
    sigset_t fatal, old;
    ss_tmp_sweep_once(pattern); /* what killed runs left in that folder */
    fatal_sigset(&fatal);
    install_handlers(); /* before the file exists, outside the blocked stretch */
    sigprocmask(SIG_BLOCK, &fatal, &old);
    int fd = mkstemp(pattern);
    int s = fd >= 0 ? ss_tmp_track(pattern) : -1;
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    if (slot) *slot = s;
    return fd;
}

int ss_tmp_new(const char *prefix, char **path)
{
    const char *dir = ss_tmp_dir();
    size_t cap = strlen(dir) + strlen(prefix) + 32; /* '/', "-pidN-XXXXXX", NUL */
    *path = malloc(cap);
    if (!*path) return errno = ENOMEM, -1;
    int fd = ss_tmp_template(*path, cap, dir, prefix) == 0 ? ss_tmp_mkstemp(*path, NULL) : -1;
    if (fd < 0) {
        int e = errno;
        free(*path), *path = NULL;
        errno = e;
    }
    return fd;
}

void ss_tmp_untrack(int slot)
{
    if (slot >= 0 && slot < SS_TMP_SLOTS) __atomic_store_n(&g_tmp_used[slot], 0, __ATOMIC_RELEASE);
}

void ss_tmp_untrack_path(const char *path)
{
    for (int i = 0; i < SS_TMP_SLOTS; i++)
        if (__atomic_load_n(&g_tmp_used[i], __ATOMIC_ACQUIRE) == 2 &&
            strcmp(g_tmp_path[i], path) == 0) {
            ss_tmp_untrack(i);
            return;
        }
}

/* ---- where the output goes ---- */

static int fail(char *err, size_t cap, int code, const char *what)
{
    if (err && cap) snprintf(err, cap, "%s", what);
    return code;
}

static int fail_errno(char *err, size_t cap, const char *what, int e)
{
    if (err && cap) snprintf(err, cap, "%s: %s", what, strerror(e));
    return ss_from_errno(e);
}

/* The descriptor a name for an open stream stands for ("-", /dev/stdout, /dev/fd/2,
 * /proc/self/fd/N), or -1. Such names are used through a dup of the descriptor: reopening
 * them would lose an appending shell redirection's position, and renaming over them would
 * replace /dev's link. */
static int stream_name_fd(const char *path)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0) return STDERR_FILENO;
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) != 0) continue;
        char *end;
        long fd = strtol(path + n, &end, 10);
        if (end != path + n && *end == '\0' && fd >= 0 && fd < 65536) return (int)fd;
    }
    return -1;
}

/* dir/link-target for a relative link target; the target itself when absolute. */
static int join_link(char *out, size_t cap, const char *link_path, const char *target)
{
    if (target[0] == '/') return snprintf(out, cap, "%s", target) < (int)cap ? 0 : -1;
    const char *slash = strrchr(link_path, '/');
    int dir_len = slash ? (int)(slash - link_path) + 1 : 0;
    int n = snprintf(out, cap, "%.*s%s", dir_len, link_path, target);
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* Follows symlinks from path to the name that is not a link (or does not exist yet, as for a
 * dangling link: the file is created at its target). 0 or a negative ss_error. */
static int resolve_target(const char *path, char *out, size_t cap, char *err, size_t ecap)
{
    char cur[PATH_MAX], link[PATH_MAX];
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
        return fail(err, ecap, SS_EINVAL, "path too long");
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        /* a link to /proc/self/fd/1 (what /dev/stdout is) ends at that stream's name */
        if (stream_name_fd(cur) >= 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            if (snprintf(out, cap, "%s", cur) >= (int)cap)
                return fail(err, ecap, SS_EINVAL, "path too long");
            return 0;
        }
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) return fail_errno(err, ecap, "cannot read the link", errno);
        link[n] = '\0';
        char next[PATH_MAX];
        if (join_link(next, sizeof next, cur, link) != 0)
            return fail(err, ecap, SS_EINVAL, "path too long");
        memcpy(cur, next, sizeof cur);
    }
    return fail(err, ecap, SS_ELOOP, ss_strerror(SS_ELOOP));
}

/* The process's umask: mkstemp makes its file 0600, and a new output should have the mode any
 * new file of the user gets (0644 under the usual 022; an HTML report shared on a team drive
 * must be readable). Read once: umask() can only be read by setting it. */
static mode_t process_umask(void)
{
    static int known;
    static mode_t mask;
    if (!known) {
        mask = umask(022);
        umask(mask);
        known = 1;
    }
    return mask;
}

/* A temporary file made with mkstemp from the pattern; tracked for removal on signals. */
static int make_tmp(struct ss_out *o, const char *pattern)
{
    if (snprintf(o->tmp, sizeof o->tmp, "%s", pattern) >= (int)sizeof o->tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return ss_tmp_mkstemp(o->tmp, &o->slot); /* O_EXCL, 0600: a planted link cannot redirect it */
}

static int tmp_in_tmpdir(struct ss_out *o)
{
    const char *dir = ss_tmp_dir();
    char pattern[PATH_MAX];
    int fd = ss_tmp_template(pattern, sizeof pattern, dir, "stepscope-out") == 0
                 ? make_tmp(o, pattern) : -1;
    if (fd < 0 && strcmp(dir, "/tmp") != 0 &&
        ss_tmp_template(pattern, sizeof pattern, "/tmp", "stepscope-out") == 0)
        fd = make_tmp(o, pattern);
    return fd;
}

/* "dir/.name.stepscope-pidN-XXXXXX" next to the target (a rename within one file system),
 * within NAME_MAX however long the name (ss_tmp_template_beside). */
static int tmp_next_to(struct ss_out *o)
{
    char pattern[PATH_MAX];
    if (ss_tmp_template_beside(pattern, sizeof pattern, o->path) != 0) return -1;
    return make_tmp(o, pattern);
}

/* Opens a non-regular target for writing; a FIFO without a reader fails at once (ENXIO). */
static int open_stream(struct ss_out *o, char *err, size_t cap)
{
    int fd = open(o->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENXIO)
        return fail(err, cap, SS_EIO, "is a FIFO with no reader (start the reader first)");
    if (fd < 0) return fail_errno(err, cap, "cannot open", errno);
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    o->stream_fd = fd;
    return 0;
}

static int check_existing(struct ss_out *o, unsigned flags, char *err, size_t cap)
{
    int force = (flags & SS_OUT_FORCE) != 0;
    if ((flags & SS_OUT_NO_CLOBBER) && !force)
        return fail(err, cap, SS_EEXIST, "exists (use --force to overwrite it)");
    int writable = (o->old.st_mode & 0222) && access(o->path, W_OK) == 0;
    if (!writable && !force)
        return fail(err, cap, SS_EACCES, "is read-only (use --force to replace it)");
    o->replaces = 1;
    return 0;
}

/* Decides how the target is written; creates nothing yet but a stream's descriptor. */
static int classify(struct ss_out *o, const char *path, unsigned flags, char *err, size_t cap)
{
    int rc = resolve_target(path, o->path, sizeof o->path, err, cap);
    if (rc) return rc;
    int sfd = stream_name_fd(o->path);
    if (sfd >= 0) {
        if (strcmp(path, "-") == 0) snprintf(o->path, sizeof o->path, "<stdout>");
        o->stream_fd = fcntl(sfd, F_DUPFD_CLOEXEC, 3);
        return o->stream_fd >= 0 ? 0 : fail_errno(err, cap, "cannot write", errno);
    }
    if (stat(o->path, &o->old) != 0) {
        if (errno == ENOENT) return 0;
        return fail_errno(err, cap, "cannot write", errno);
    }
    if (S_ISDIR(o->old.st_mode)) return fail(err, cap, SS_EISDIR, ss_strerror(SS_EISDIR));
    if (!S_ISREG(o->old.st_mode)) return open_stream(o, err, cap);
    return check_existing(o, flags, err, cap);
}

/* The temporary file to write: next to a regular target, else (streams, a folder that
 * refuses new files while the file itself is writable) under $TMPDIR. */
static int create_tmp(struct ss_out *o, char *err, size_t cap)
{
    int fd;
    if (o->stream_fd >= 0) {
        fd = tmp_in_tmpdir(o);
    } else {
        fd = tmp_next_to(o);
        if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM) && o->replaces &&
            access(o->path, W_OK) == 0) {
            o->in_place = 1;
            fd = tmp_in_tmpdir(o);
        }
    }
    if (fd < 0) {
        int e = errno;
        return fail_errno(err, cap, o->stream_fd >= 0 ? "cannot make a temporary file"
                                                      : "cannot create a file there",
                          e);
    }
    return fd;
}

int ss_out_begin(struct ss_out *o, const char *path, unsigned flags, char *err, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->stream_fd = -1;
    o->slot = -1;
    if (!path || !*path) return fail(err, cap, SS_EINVAL, "empty file name");
    int rc = classify(o, path, flags, err, cap);
    if (rc) {
        ss_out_abort(o);
        return rc;
    }
    int fd = create_tmp(o, err, cap);
    if (fd < 0) {
        o->tmp[0] = '\0';
        ss_out_abort(o);
        return fd;
    }
    if (!o->replaces && !o->in_place) (void)fchmod(fd, 0666 & ~process_umask());
    if (o->replaces && !o->in_place) {
        (void)fchmod(fd, o->old.st_mode & 07777);
        if (o->old.st_uid != geteuid() || o->old.st_gid != getegid())
            (void)fchown(fd, o->old.st_uid, o->old.st_gid); /* root replacing a user's file */
    }
    return fd;
}

/* ---- putting the result in place ---- */

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Copies the finished temporary file into fd. 0, or -1 with errno set. */
static int copy_into(const char *tmp, int fd)
{
    int in = open(tmp, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || write_all(fd, buf, (size_t)n) != 0) {
            rc = -1;
            break;
        }
    }
    int e = errno;
    close(in);
    errno = e;
    return rc;
}

/* A closed reader must give an error line, not kill the process before it can clean up. */
static int copy_without_sigpipe(const char *tmp, int fd)
{
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old);
    int rc = copy_into(tmp, fd);
    int e = errno;
    sigaction(SIGPIPE, &old, NULL);
    errno = e;
    return rc;
}

static int commit_copy(struct ss_out *o, char *err, size_t cap)
{
    int own = o->stream_fd < 0; /* in place: the target is opened only now, truncated */
    int fd = own ? open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC) : o->stream_fd;
    if (fd < 0) return fail(err, cap, ss_from_errno(errno), strerror(errno));
    int rc = copy_without_sigpipe(o->tmp, fd), e = errno;
    if (own && close(fd) != 0 && rc == 0) rc = -1, e = errno;
    return rc ? fail(err, cap, ss_from_errno(e), strerror(e)) : 0;
}

int ss_out_commit(struct ss_out *o, char *err, size_t cap)
{
    int rc;
    if (o->stream_fd >= 0 || o->in_place)
        rc = commit_copy(o, err, cap);
    else
        rc = rename(o->tmp, o->path) == 0 ? 0 : fail(err, cap, ss_from_errno(errno), strerror(errno));
    if (rc == 0 && o->stream_fd < 0 && !o->in_place) o->tmp[0] = '\0'; /* renamed: nothing to remove */
    ss_out_abort(o);
    return rc;
}

void ss_out_abort(struct ss_out *o)
{
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = '\0';
    ss_tmp_untrack(o->slot);
    o->slot = -1;
    if (o->stream_fd >= 0) close(o->stream_fd);
    o->stream_fd = -1;
}

int ss_out_same_file(const char *out, const char *in)
{
    struct stat a, b;
    int sfd = stream_name_fd(out);
    int ra = sfd >= 0 ? fstat(sfd, &a) : stat(out, &a);
    if (ra != 0 || stat(in, &b) != 0) return 0;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
