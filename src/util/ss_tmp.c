/*
 * ss_tmp.c — the names of stepscope's temporary files, and the sweep of those whose process is
 * gone (issue #41); see ss_out.h.
 *
 * A process killed with SIGKILL (or by the OOM killer, or a power cut) runs no handler: its
 * temporary files stay — a spool of stdin, an import, a half-written export of 100 MiB. Each
 * name says whose it is ("...stepscope-in-pid4242-Ab3xYz"), so a later run that makes a
 * temporary file in the same folder removes the ones of processes that no longer exist.
 */
#include "ss_out.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A leftover younger than this is kept although its pid is gone: a process in another pid
 * namespace (a container sharing /tmp) may own it, and such a process still writes its file. */
#define SWEEP_MIN_AGE_S 60

/* What every temporary name ends with: "stepscope-[KIND-]pidPID-XXXXXX", at the start of the
 * name or after a '.' (".OUT.stepscope-pid4242-Ab3xYz" beside an output). */
#define OWNER_RE "^(\\..*\\.|\\.)?stepscope-([a-z]+-)?pid([0-9]{1,9})-[A-Za-z0-9]{6}$"

const char *ss_tmp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int ss_tmp_template(char *buf, size_t cap, const char *dir, const char *prefix)
{
    int n = snprintf(buf, cap, "%s/%s-pid%ld-XXXXXX", dir, prefix, (long)getpid());
    if (n >= 0 && (size_t)n < cap) return 0;
    errno = ENAMETOOLONG;
    return -1;
}

/* FNV-1a: a name too long to keep whole keeps a prefix and this hash of all of it. */
static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The longest name the folder of path takes (pathconf; NAME_MAX when it does not say). */
static size_t name_max_of(const char *path, size_t dir_len)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", dir_len ? (int)dir_len : 1, dir_len ? path : ".");
    long m = pathconf(dir, _PC_NAME_MAX);
    return m > 0 ? (size_t)m : NAME_MAX;
}

/* n, less the bytes of a UTF-8 character that n would cut (a prefix stays valid text). */
static size_t utf8_floor(const char *s, size_t n)
{
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

int ss_tmp_template_beside(char *buf, size_t cap, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0, keep = strlen(base);
    char tail[48], hash[16] = "";
    size_t tail_len =
        (size_t)snprintf(tail, sizeof tail, ".stepscope-pid%ld-XXXXXX", (long)getpid());
    size_t max = name_max_of(path, dir_len), room = max > tail_len + 1 ? max - tail_len - 1 : 0;
    if (keep > room) { /* ".NAME" + tail would pass NAME_MAX: a prefix of NAME and its hash */
        snprintf(hash, sizeof hash, "~%08x", fnv1a(base));
        keep = utf8_floor(base, room > strlen(hash) ? room - strlen(hash) : 0);
    }
    int n = snprintf(buf, cap, "%.*s.%.*s%s%s", (int)dir_len, path, (int)keep, base, hash, tail);
    if (n >= 0 && (size_t)n < cap) return 0;
    errno = ENAMETOOLONG;
    return -1;
}

static regex_t g_owner_re;
static int g_owner_re_ok;

static void compile_owner_re(void)
{
    g_owner_re_ok = regcomp(&g_owner_re, OWNER_RE, REG_EXTENDED) == 0;
}

int ss_tmp_owner(const char *name, long *pid)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    regmatch_t m[4];
    if (!strstr(name, "stepscope-")) return 0; /* most names: no regex */
    pthread_once(&once, compile_owner_re);
    if (!g_owner_re_ok || regexec(&g_owner_re, name, 4, m, 0) != 0) return 0;
    *pid = strtol(name + m[3].rm_so, NULL, 10);
    return *pid > 0;
}

/* The owner is gone: no such process (a process of another user still exists: EPERM). */
static int owner_gone(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* A leftover to remove: ours by name, a regular file (never a link: lstat), the user's own,
 * old enough, its process gone. */
static int is_leftover(int dfd, const char *name, time_t now)
{
    long pid;
    struct stat st;
    if (!ss_tmp_owner(name, &pid) || !owner_gone(pid)) return 0;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return 0;
    return st.st_uid == geteuid() && now - st.st_mtime >= SWEEP_MIN_AGE_S;
}

int ss_tmp_sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0, dfd = dirfd(d);
    time_t now = time(NULL);
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        if (is_leftover(dfd, de->d_name, now) && unlinkat(dfd, de->d_name, 0) == 0) n++;
    closedir(d);
    return n;
}

/* The folders swept by this process: each once (report may spool several inputs, on
 * several threads). */
#define SWEPT_MAX 8
static char g_swept[SWEPT_MAX][PATH_MAX];
static int g_n_swept;
static pthread_mutex_t g_swept_mu = PTHREAD_MUTEX_INITIALIZER;

void ss_tmp_sweep_once(const char *pattern)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(pattern, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - pattern) + (slash == pattern) : 1,
             slash ? pattern : ".");
    pthread_mutex_lock(&g_swept_mu);
    int seen = 0;
    for (int i = 0; i < g_n_swept && !seen; i++)
        seen = strcmp(g_swept[i], dir) == 0;
    if (!seen && g_n_swept < SWEPT_MAX) memcpy(g_swept[g_n_swept++], dir, sizeof dir);
    pthread_mutex_unlock(&g_swept_mu);
    if (!seen) ss_tmp_sweep(dir);
}
