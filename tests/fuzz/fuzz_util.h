/*
 * fuzz_util.h — what the libFuzzer targets of tests/fuzz/ share: the fuzzed bytes as a file
 * the readers can open by path (a memfd, no disk traffic), and checksum repair.
 *
 * Checksum repair: every chunk of a trace carries a CRC32C, so almost every mutation of a
 * chunk's payload is rejected by the checksum before the record parser sees it. The
 * targets therefore read each input twice: as it is (the framing, checksum and resync
 * paths) and after fz_fix_crcs() has recomputed the header and chunk checksums (the
 * record, string table and analysis paths). The repair walks the framing the way a writer
 * lays it out and never reads past the buffer; what it cannot frame it leaves alone.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/sst_crc32c.h"
#include "trace/sst_format.h"

/* The targets' own checking code needs no coverage feedback (it would only slow them). */
#if defined(__clang__)
#define FZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define FZ_NO_COVERAGE
#endif

static inline uint32_t fz_rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void fz_wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

/* Offset of the next chunk magic at or after off, or n. */
static inline size_t fz_next_magic(const uint8_t *buf, size_t n, size_t off)
{
    for (; off + 4 <= n; off++)
        if (fz_rd32(buf + off) == SST_CHUNK_MAGIC) return off;
    return n;
}

/* Recomputes the file header's CRC and the CRC of every chunk that fits in buf (a chunk cut
 * by the end of the buffer is left as it is: it reads as a truncation either way). */
static inline void fz_fix_crcs(uint8_t *buf, size_t n)
{
    const size_t hdr = sizeof(struct sst_file_header), ch = sizeof(struct sst_chunk_header);
    if (n < hdr || memcmp(buf, SST_MAGIC, SST_MAGIC_LEN) != 0) return;
    fz_wr32(buf + offsetof(struct sst_file_header, header_crc),
            sst_crc32c(0, buf, offsetof(struct sst_file_header, header_crc)));
    uint16_t hsize;
    memcpy(&hsize, buf + offsetof(struct sst_file_header, header_size), sizeof hsize);
    size_t off = hsize < hdr ? hdr : hsize;
    while ((off = fz_next_magic(buf, n, off)) + ch <= n) {
        uint8_t *h = buf + off;
        uint32_t stored = fz_rd32(h + offsetof(struct sst_chunk_header, stored_len));
        if (stored > n - off - ch) {
            off++; /* runs past the buffer: look for a later chunk */
            continue;
        }
        fz_wr32(h + offsetof(struct sst_chunk_header, crc), 0);
        fz_wr32(h + offsetof(struct sst_chunk_header, crc),
                sst_crc32c(sst_crc32c(0, h, ch), h + ch, stored));
        off += ch + stored;
    }
}

/* One memfd per target, rewritten for each input; *path names it for open(2). */
struct fz_file {
    int fd;
    char path[64];
};

static inline int fz_file_init(struct fz_file *f, const char *name)
{
    f->fd = memfd_create(name, MFD_CLOEXEC);
    if (f->fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    return 0;
}

static inline void fz_file_set(struct fz_file *f, const uint8_t *data, size_t size)
{
    if (ftruncate(f->fd, 0) != 0) abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(f->fd, data + done, size - done, (off_t)done);
        if (n <= 0) abort();
        done += (size_t)n;
    }
}

/* The scratch folder of an importer target: what it holds besides `keep` (NULL: nothing is
 * kept), and removing it with its files at exit. */
static inline int fz_is_dot(const char *n)
{
    return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

static inline int fz_dir_count_except(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL)
        n += !fz_is_dot(de->d_name) && !(keep && strcmp(de->d_name, keep) == 0);
    closedir(d);
    return n;
}

static inline void fz_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[4096];
    while (d && (de = readdir(d)) != NULL) {
        if (fz_is_dot(de->d_name)) continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(dir);
}

#endif
