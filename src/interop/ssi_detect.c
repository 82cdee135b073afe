/* ssi_detect.c — which format a file is in, and opening any supported input for analysis. */
#include "interop/ssi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/sst_format.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

/* How `stepscope export` begins its JSON (src/interop/ssi_perfetto.c); torch.profiler's never does. */
static const char k_own_export_head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\"";

/* gzip's magic, then its method (8, deflate: the only one defined) and flags with the
 * reserved bits clear (RFC 1952): random bytes that start with the magic alone would send an
 * endless stream (`import /dev/urandom`) into the spool. */
static int looks_like_gzip(const unsigned char *b, size_t n)
{
    if (n < 2 || b[0] != 0x1f || b[1] != 0x8b) return 0;
    return n < 4 || (b[2] == 8 && (b[3] & 0xe0) == 0);
}

static int looks_compressed(const unsigned char *b, size_t n)
{
    int comp = ssi_compression_of(b, n);
    return comp == SSI_COMP_GZIP ? looks_like_gzip(b, n) : comp != SSI_COMP_NONE;
}

/* Our own formats first (stepscope's Perfetto export is JSON too: the importers would take
 * it), then the importers' rows, then the compressions. */
int ssi_detect_bytes(const void *buf, size_t n)
{
    const unsigned char *b = buf;
    if (n >= SST_MAGIC_LEN && memcmp(b, SST_MAGIC, SST_MAGIC_LEN) == 0) return SSI_FMT_SSTRACE;
    if (n >= sizeof k_own_export_head - 1 &&
        memcmp(b, k_own_export_head, sizeof k_own_export_head - 1) == 0)
        return SSI_FMT_OWN_JSON;
    if (ssi_importer_of(b, n)) return SSI_FMT_FOREIGN;
    if (looks_compressed(b, n)) return SSI_FMT_COMPRESSED;
    return SSI_FMT_UNKNOWN;
}

/* The importer of a gzip file that streams gzip itself and takes what the file holds; NULL
 * when it must be decompressed first (no such importer, or stepscope's own export inside). */
static const struct ssi_importer *gzip_reader(const char *path)
{
    unsigned char head[64];
    int k = ssi_gzip_head(path, head, sizeof head);
    if (ssi_detect_bytes(head, (size_t)k) != SSI_FMT_FOREIGN) return NULL;
    const struct ssi_importer *imp = ssi_importer_of(head, (size_t)k);
    return imp && imp->reads_gzip ? imp : NULL;
}

const struct ssi_importer *ssi_importer_for_head(const char *path, const void *head, size_t n,
                                                 int *fmt)
{
    int f = ssi_detect_bytes(head, n);
    if (f == SSI_FMT_UNKNOWN && ssi_compression_of(head, n) != SSI_COMP_NONE)
        f = SSI_FMT_COMPRESSED; /* a damaged header: its decompressor says what is wrong */
    const struct ssi_importer *imp = f == SSI_FMT_FOREIGN ? ssi_importer_of(head, n) : NULL;
    if (f == SSI_FMT_COMPRESSED && ssi_compression_of(head, n) == SSI_COMP_GZIP)
        imp = gzip_reader(path);
    if (fmt) *fmt = imp ? SSI_FMT_FOREIGN : f;
    return imp;
}

int ssi_head(const char *path, void *head, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return ss_from_errno(errno);
    ssize_t n = read(fd, head, cap);
    int saved = errno;
    close(fd);
    return n < 0 ? ss_from_errno(saved) : (int)n;
}

const struct ssi_importer *ssi_importer_for(const char *path, int *fmt)
{
    unsigned char head[64];
    int n = ssi_head(path, head, sizeof head);
    if (n < 0 && fmt) *fmt = n;
    return n < 0 ? NULL : ssi_importer_for_head(path, head, (size_t)n, fmt);
}

int ssi_detect(const char *path)
{
    unsigned char b[64];
    int n = ssi_head(path, b, sizeof b);
    return n < 0 ? n : ssi_detect_bytes(b, (size_t)n);
}

/* A new empty file under $TMPDIR (or /tmp) for an imported trace; its path in *out (owned). */
static int make_temp(char **out, char *err, size_t errlen)
{
    int fd = ss_tmp_new("stepscope-import", out); /* removed if a signal ends the import */
    if (fd < 0) {
        int e = errno;
        const char *dir = getenv("TMPDIR");
        snprintf(err, errlen, "cannot create a temporary file in %s: %s",
                 dir && *dir ? dir : "/tmp", strerror(e));
        return ss_from_errno(e);
    }
    close(fd);
    return 0;
}

/* A foreign capture imported by its importer into a new temporary trace (*out_path, owned,
 * tracked for removal on signals). */
static int import_to_temp(const char *in_path, const struct ssi_importer *imp, char **out_path,
                          char *err, size_t errlen)
{
    char *tmp = NULL;
    int rc = make_temp(&tmp, err, errlen);
    if (rc) return rc;
    rc = imp->import(in_path, tmp, err, errlen);
    if (rc) {
        unlink(tmp);
        ss_tmp_untrack_path(tmp);
        free(tmp);
        return rc;
    }
    *out_path = tmp;
    return 0;
}

/* A compressed input that no importer streams as it is: decompressed into a temporary file,
 * then opened as if given so (once: a file compressed twice is named as such). The
 * decompressed file is the result when it is a native trace, and is removed once imported
 * otherwise. */
static int open_compressed(const char *in_path, int comp, int *fd, char **out_path,
                           int *is_temp, char *err, size_t errlen);

static int open_plain(const char *in_path, int *fd, char **out_path, int *is_temp, char *err,
                      size_t errlen, int depth);

int ssi_open_input(const char *in_path, int *fd, char **out_path, int *is_temp, char *err,
                   size_t errlen)
{
    char scratch[8];
    if (!err || !errlen) err = scratch, errlen = sizeof scratch;
    err[0] = '\0';
    return open_plain(in_path, fd, out_path, is_temp, err, errlen, 0);
}

/* Foreign formats are imported into a temporary trace by their row of SSI_IMPORTERS.
 * Anything else (a native trace, an unknown or unreadable file) is returned as is: the trace
 * reader then says what is wrong with it, in the same words as for any trace. */
static int open_plain(const char *in_path, int *fd, char **out_path, int *is_temp, char *err,
                      size_t errlen, int depth)
{
    *out_path = NULL, *is_temp = 0, *fd = open(in_path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) return ss_from_errno(errno);
    unsigned char b[64];
    ssize_t n = pread(*fd, b, sizeof b, 0);
    int fmt = n < 0 ? ss_from_errno(errno) : 0;
    const struct ssi_importer *imp =
        n < 0 ? NULL : ssi_importer_for_head(in_path, b, (size_t)n, &fmt);
    if (fmt == SSI_FMT_OWN_JSON) fmt = SS_EINVAL, snprintf(err, errlen, "%s", SSI_OWN_JSON_REFUSAL);
    if (fmt < 0 || imp || fmt == SSI_FMT_COMPRESSED) close(*fd), *fd = -1;
    if (fmt < 0) return fmt;
    if (fmt == SSI_FMT_COMPRESSED) {
        if (depth) return snprintf(err, errlen, "is compressed twice"), SS_ENOTSUP;
        return open_compressed(in_path, ssi_compression_of(b, (size_t)n), fd, out_path, is_temp,
                               err, errlen);
    }
    if (imp) { /* the importer reads it; the reader opens the import */
        int rc = import_to_temp(in_path, imp, out_path, err, errlen);
        *is_temp = rc == 0;
        return rc;
    }
    /* a native trace, or something the reader will name in its own words (bad magic...) */
    if (!(*out_path = strdup(in_path))) return close(*fd), *fd = -1, SS_ENOMEM;
    return 0;
}

static int open_compressed(const char *in_path, int comp, int *fd, char **out_path,
                           int *is_temp, char *err, size_t errlen)
{
    char *raw = NULL;
    int rc = ssi_decompress_to_temp(in_path, comp, &raw, err, errlen);
    if (rc) return rc;
    rc = open_plain(raw, fd, out_path, is_temp, err, errlen, 1);
    if (rc == 0 && !*is_temp && ssi_detect(raw) != SSI_FMT_SSTRACE) {
        close(*fd), *fd = -1, free(*out_path), *out_path = NULL;
        char formats[256];
        snprintf(err, errlen, "is %s-compressed, and what it holds is no %s",
                 ssi_compression_name(comp), ssi_formats_read(formats, sizeof formats, 1));
        rc = SS_ENOTTRACE;
    } else if (rc == 0 && !*is_temp) { /* a native trace: the decompressed file is the input */
        *is_temp = 1;
        return free(raw), 0;
    }
    unlink(raw), ss_tmp_untrack_path(raw), free(raw);
    return rc;
}

int ssi_open_any(const char *in_path, char **out_path, int *is_temp, char *err, size_t errlen)
{
    int fd;
    int rc = ssi_open_input(in_path, &fd, out_path, is_temp, err, errlen);
    if (fd >= 0) close(fd);
    return rc;
}
