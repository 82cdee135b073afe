/*
 * doctor_data.c — the --data DIR checks of `stepscope doctor`: the folder's filesystem, its
 * free space, whether its disk spins, and a short sequential read of its largest files.
 *
 * The read test is bounded (256 MiB, 3 s) and asks the kernel to drop the files' cached
 * pages first (posix_fadvise DONTNEED), so a second run does not just measure RAM. It only
 * reads: the user's files are never written, synced or touched (O_NOATIME where allowed).
 */
#include "doctor_data.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)
#define READ_BUDGET_BYTES (256ull << 20)
#define READ_BUDGET_NS 3000000000ull
#define READ_CHUNK (1u << 20)
#define READ_MAX_FILES 16
#define WALK_MAX_ENTRIES 100000
#define SLOW_MB_S 200.0
#define VERDICT_MIN_BYTES (32ull << 20)

/* Skips r when there is no --data. Returns 1 when there is. */
static int have_data(const struct dr_ctx *c, struct ssa_env_verdict *r)
{
    if (c->data_dir) return 1;
    dr_set(r, SSA_ENV_SKIP, NULL, "no --data DIR given");
    return 0;
}

struct fs_kind {
    unsigned long magic;
    const char *name;
    int status; /* SSA_ENV_PASS, or SSA_ENV_WARN: a filesystem often slow for training data */
    const char *note;
};

static const struct fs_kind fs_kinds[] = {
    {0xEF53, "ext4", SSA_ENV_PASS, "local"},
    {0x58465342, "xfs", SSA_ENV_PASS, "local"},
    {0x9123683E, "btrfs", SSA_ENV_PASS, "local"},
    {0x2FC12FC1, "zfs", SSA_ENV_PASS, "local"},
    {0x01021994, "tmpfs", SSA_ENV_PASS, "in RAM: fast, and counts against the machine's memory"},
    {0x73717368, "squashfs", SSA_ENV_PASS, "read-only image"},
    {0x0BD00BD0, "lustre", SSA_ENV_PASS, "parallel filesystem: see the read speed"},
    {0x47504653, "gpfs", SSA_ENV_PASS, "parallel filesystem: see the read speed"},
    {0x794C7630, "overlay", SSA_ENV_WARN, "container overlay"},
    {0x6969, "nfs", SSA_ENV_WARN, "network filesystem"},
    {0xFF534D42, "cifs", SSA_ENV_WARN, "network filesystem"},
    {0xFE534D42, "smb2", SSA_ENV_WARN, "network filesystem"},
    {0x00C36400, "ceph", SSA_ENV_WARN, "network filesystem"},
    {0x01021997, "9p", SSA_ENV_WARN, "VM shared folder"},
    {0x65735546, "fuse", SSA_ENV_WARN, "FUSE (s3fs, gcsfuse, sshfs...)"},
};

void dr_check_data_fs(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    struct statfs s;
    if (!have_data(c, r)) return;
    if (statfs(c->data_dir, &s) != 0) {
        dr_set(r, SSA_ENV_FAIL, "check the --data path", "statfs: %s", strerror(errno));
        return;
    }
    unsigned long magic = (unsigned long)(unsigned int)s.f_type;
    for (size_t i = 0; i < sizeof fs_kinds / sizeof fs_kinds[0]; i++) {
        const struct fs_kind *k = &fs_kinds[i];
        if (k->magic != magic) continue;
        dr_set(r, k->status,
               k->status == SSA_ENV_WARN
                   ? "copy the data set to a local SSD/NVMe (or mount it as a "
                     "volume), or raise DataLoader num_workers"
                   : NULL,
               "%s (%s)", k->name, k->note);
        return;
    }
    dr_set(r, SSA_ENV_PASS, NULL, "filesystem type 0x%lx", magic);
}

void dr_check_data_free(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    struct statfs s;
    if (!have_data(c, r)) return;
    if (statfs(c->data_dir, &s) != 0) {
        dr_set(r, SSA_ENV_FAIL, "check the --data path", "statfs: %s", strerror(errno));
        return;
    }
    double avail = (double)s.f_bavail * (double)s.f_bsize;
    double total = (double)s.f_blocks * (double)s.f_bsize;
    double pct = total > 0 ? 100.0 * avail / total : 0;
    int low = avail < 10 * GIB || pct < 5;
    dr_set(r, low ? SSA_ENV_WARN : SSA_ENV_PASS,
           low ? "free space for checkpoints and traces (or write them to another disk)" : NULL,
           "%.1f GiB free of %.1f GiB (%.0f%%)", avail / GIB, total / GIB, pct);
}

/* The sysfs folder of the disk holding dev: a partition's parent disk. 0, or -1. */
static int disk_sysfs_dir(dev_t dev, char *buf, size_t cap)
{
    char link[64], real[PATH_MAX], probe[PATH_MAX + 32];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
    if (!realpath(link, real)) return -1;
    snprintf(probe, sizeof probe, "%s/partition", real);
    if (access(probe, F_OK) == 0) { /* .../sda/sda1: the queue lives on .../sda */
        char *slash = strrchr(real, '/');
        if (slash) *slash = '\0';
    }
    if ((size_t)snprintf(buf, cap, "%s", real) >= cap) return -1;
    return 0;
}

void dr_check_data_device(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    struct stat st;
    char dir[PATH_MAX], path[PATH_MAX + 32], rot[16];
    if (!have_data(c, r)) return;
    if (stat(c->data_dir, &st) != 0) {
        dr_set(r, SSA_ENV_FAIL, "check the --data path", "stat: %s", strerror(errno));
        return;
    }
    if (major(st.st_dev) == 0 || disk_sysfs_dir(st.st_dev, dir, sizeof dir) != 0) {
        dr_set(r, SSA_ENV_SKIP, NULL,
               "device %u:%u is not a block device (tmpfs, overlay, network)", major(st.st_dev),
               minor(st.st_dev));
        return;
    }
    snprintf(path, sizeof path, "%s/queue/rotational", dir);
    const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    if (dr_read_text(path, rot, sizeof rot) != 0)
        dr_set(r, SSA_ENV_SKIP, NULL, "%s: no queue/rotational in sysfs", name);
    else if (strcmp(rot, "1") == 0)
        dr_set(r, SSA_ENV_WARN, "move the data set to an SSD/NVMe, or cache it in RAM (tmpfs)",
               "%s is a rotational disk: random reads by DataLoader workers are slow%s", name,
               strncmp(name, "vd", 2) == 0 || strncmp(name, "xvd", 3) == 0
                   ? " (a virtual disk: the flag may be the hypervisor's default; see data_read)"
                   : "");
    else
        dr_set(r, SSA_ENV_PASS, NULL, "%s is not rotational (SSD/NVMe or virtual)", name);
}

/* ---- the read test ---- */

struct big_file {
    off_t size;
    char path[PATH_MAX];
};

/* nftw has no context argument: the walk's state is file-scope, used by one walk at a time. */
static struct {
    struct big_file files[READ_MAX_FILES];
    int n;
    long visited;
} walk;

/* Keeps the READ_MAX_FILES largest regular files, smallest last. */
static int walk_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (++walk.visited > WALK_MAX_ENTRIES) return 1; /* enough: a huge tree is sampled */
    if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size <= 0) return 0;
    if (strlen(path) >= PATH_MAX) return 0;
    int at;
    if (walk.n < READ_MAX_FILES)
        at = walk.n++;
    else if (walk.files[READ_MAX_FILES - 1].size >= st->st_size)
        return 0;
    else
        at = READ_MAX_FILES - 1;
    while (at > 0 && walk.files[at - 1].size < st->st_size) {
        walk.files[at] = walk.files[at - 1];
        at--;
    }
    walk.files[at].size = st->st_size;
    snprintf(walk.files[at].path, PATH_MAX, "%s", path);
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct read_tally {
    uint64_t bytes, start_ns;
    int files, dropped, errors;
};

/* Reads one file from the start until EOF or a budget runs out. */
static void read_one(const char *path, char *buf, struct read_tally *t)
{
    int fd = open(path, O_RDONLY | O_NOATIME | O_CLOEXEC);
    if (fd < 0 && errno == EPERM) fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        t->errors++;
        return;
    }
    t->files++;
    t->dropped += posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
    while (t->bytes < READ_BUDGET_BYTES && now_ns() - t->start_ns < READ_BUDGET_NS) {
        ssize_t n = read(fd, buf, READ_CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) t->errors++;
        if (n <= 0) break;
        t->bytes += (uint64_t)n;
    }
    close(fd);
}

static void report_read(struct ssa_env_verdict *r, const struct read_tally *t, uint64_t ns)
{
    double secs = ns > 0 ? ns / 1e9 : 1e-9;
    double mb_s = t->bytes / 1e6 / secs;
    const char *cache = t->dropped == t->files ? "cached pages dropped first"
                                               : "cache not dropped: may be served from RAM";
    int verdict = t->bytes >= VERDICT_MIN_BYTES;
    int slow = verdict && mb_s < SLOW_MB_S;
    dr_set(r, slow ? SSA_ENV_WARN : SSA_ENV_PASS,
           slow ? "faster storage (local NVMe), or more DataLoader workers and prefetch" : NULL,
           "%.0f MB/s: %.1f MiB from %d file%s in %.2f s (%s%s%s)", mb_s, t->bytes / MIB, t->files,
           t->files == 1 ? "" : "s", secs, cache, t->errors ? ", some reads failed" : "",
           verdict ? "" : "; too little data for a verdict");
}

void dr_check_data_read(struct dr_ctx *c, struct ssa_env_verdict *r)
{
    if (!have_data(c, r)) return;
    char root[PATH_MAX];
    memset(&walk, 0, sizeof walk);
    /* The folder itself may be a link (FTW_PHYS would not enter it); links inside are not
     * followed, so a loop or a link out of the folder is never read. */
    if (!realpath(c->data_dir, root) || nftw(root, walk_visit, 16, FTW_PHYS) < 0) {
        dr_set(r, SSA_ENV_FAIL, "check the --data path", "cannot walk the folder: %s",
               strerror(errno));
        return;
    }
    if (walk.n == 0) {
        dr_set(r, SSA_ENV_SKIP, NULL, "no regular files to read in the folder");
        return;
    }
    char *buf = malloc(READ_CHUNK);
    if (!buf) {
        dr_set(r, SSA_ENV_SKIP, NULL, "out of memory for the read buffer");
        return;
    }
    struct read_tally t = {.start_ns = now_ns()};
    for (int i = 0; i < walk.n && t.bytes < READ_BUDGET_BYTES; i++)
        read_one(walk.files[i].path, buf, &t);
    uint64_t ns = now_ns() - t.start_ns;
    free(buf);
    if (t.files == 0)
        dr_set(r, SSA_ENV_FAIL, "make the data files readable by the training user",
               "none of the %d largest files could be opened", walk.n);
    else
        report_read(r, &t, ns);
}
