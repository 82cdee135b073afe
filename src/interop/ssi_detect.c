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

static const char *const k_format_names[] = {"unknown", "sstrace", "kineto-json", "kineto-gz",
                                             "sqlite", "stepscope-perfetto"};

/* How `stepscope export` begins its JSON (src/interop/ssi_perfetto.c); torch.profiler's never does. */
static const char k_own_export_head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\"";

const char *ssi_format_name(int fmt)
{
    if (fmt < 0 || fmt >= (int)(sizeof k_format_names / sizeof k_format_names[0]))
        return "unknown";
    return k_format_names[fmt];
}

static int json_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Index of the first byte at or after i that is not JSON whitespace (n: none). */
static size_t skip_space(const unsigned char *b, size_t n, size_t i)
{
    while (i < n && json_space(b[i])) i++;
    return i;
}

/* What may follow a document's opening bracket (after whitespace): a key or '}' in an
 * object; a value or ']' in an array. */
static int json_second(unsigned char open, unsigned char c)
{
    if (open == '{') return c == '"' || c == '}';
    return c == ']' || strchr("{[\"-0123456789tfn", c) != NULL;
}

/* A JSON document starts with '{' or '[' after optional whitespace (and a UTF-8 BOM), goes on
 * with a key or value, and holds no control bytes but whitespace (JSON escapes them). Random
 * bytes passed the first test alone about 1 time in 120: `import /dev/urandom` then spooled
 * the endless stream instead of saying "not a trace". */
static int looks_like_json(const unsigned char *b, size_t n)
{
    size_t i = n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
    i = skip_space(b, n, i);
    if (i >= n || (b[i] != '{' && b[i] != '[')) return 0;
    size_t j = skip_space(b, n, i + 1);
    if (j < n && !json_second(b[i], b[j])) return 0;
    for (size_t k = i; k < n; k++)
        if (b[k] < 0x20 && !json_space(b[k])) return 0;
    return 1;
}

/* gzip's magic, then its method (8, deflate: the only one defined) and flags with the
 * reserved bits clear (RFC 1952). */
static int looks_like_gzip(const unsigned char *b, size_t n)
{
    if (n < 2 || b[0] != 0x1f || b[1] != 0x8b) return 0;
    return n < 4 || (b[2] == 8 && (b[3] & 0xe0) == 0);
}

int ssi_detect_bytes(const void *buf, size_t n)
{
    const unsigned char *b = buf;
    if (n >= SST_MAGIC_LEN && memcmp(b, SST_MAGIC, SST_MAGIC_LEN) == 0) return SSI_FMT_SSTRACE;
    if (n >= 16 && memcmp(b, "SQLite format 3", 16) == 0) return SSI_FMT_SQLITE;
    if (looks_like_gzip(b, n)) return SSI_FMT_KINETO_GZ;
    if (n >= sizeof k_own_export_head - 1 &&
        memcmp(b, k_own_export_head, sizeof k_own_export_head - 1) == 0)
        return SSI_FMT_OWN_JSON;
    if (looks_like_json(b, n)) return SSI_FMT_KINETO_JSON;
    return SSI_FMT_UNKNOWN;
}

int ssi_detect(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return ss_from_errno(errno);
    unsigned char b[64];
    ssize_t n = read(fd, b, sizeof b);
    int saved = errno;
    close(fd);
    if (n < 0) return ss_from_errno(saved);
    return ssi_detect_bytes(b, (size_t)n);
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

/* Foreign formats are imported into a temporary trace. Anything else (a native trace, an
 * unknown or unreadable file) is returned as is: the trace reader then says what is wrong
 * with it, in the same words as for any trace. */
/* A foreign capture imported into a new temporary trace (*out_path, owned, tracked for
 * removal on signals). */
static int import_to_temp(const char *in_path, int fmt, char **out_path, char *err, size_t errlen)
{
    char *tmp = NULL;
    int rc = make_temp(&tmp, err, errlen);
    if (rc) return rc;
    rc = fmt == SSI_FMT_SQLITE ? ssi_nsys_import(in_path, tmp, err, errlen)
                               : ssi_kineto_import(in_path, tmp, err, errlen);
    if (rc) {
        unlink(tmp);
        ss_tmp_untrack_path(tmp);
        free(tmp);
        return rc;
    }
    *out_path = tmp;
    return 0;
}

static int is_foreign(int fmt)
{
    return fmt == SSI_FMT_KINETO_JSON || fmt == SSI_FMT_KINETO_GZ || fmt == SSI_FMT_SQLITE;
}

/* A compressed input that is not a gzipped Kineto JSON (read by its importer as it is):
 * decompressed into a temporary file, then opened as if given so (once: a file compressed
 * twice is named as such). The decompressed file is the result when it is a native trace, and
 * is removed once imported otherwise. */
static int open_compressed(const char *in_path, int comp, int *fd, char **out_path,
                           int *is_temp, char *err, size_t errlen);

static int compression_to_unpack(const char *in_path, const unsigned char *b, size_t n)
{
    int comp = ssi_compression_of(b, n);
    unsigned char head[64];
    if (comp != SSI_COMP_GZIP) return comp;
    int k = ssi_gzip_head(in_path, head, sizeof head);
    int inner = ssi_detect_bytes(head, (size_t)k);
    return inner == SSI_FMT_KINETO_JSON || inner == SSI_FMT_OWN_JSON ? SSI_COMP_NONE : comp;
}

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

static int open_plain(const char *in_path, int *fd, char **out_path, int *is_temp, char *err,
                      size_t errlen, int depth)
{
    *out_path = NULL, *is_temp = 0, *fd = open(in_path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) return ss_from_errno(errno);
    unsigned char b[64];
    ssize_t n = pread(*fd, b, sizeof b, 0);
    int comp = n > 0 ? compression_to_unpack(in_path, b, (size_t)n) : SSI_COMP_NONE;
    if (comp != SSI_COMP_NONE) {
        close(*fd), *fd = -1;
        if (depth) return snprintf(err, errlen, "is compressed twice"), SS_ENOTSUP;
        return open_compressed(in_path, comp, fd, out_path, is_temp, err, errlen);
    }
    int fmt = n < 0 ? ss_from_errno(errno) : ssi_detect_bytes(b, (size_t)n);
    if (fmt == SSI_FMT_OWN_JSON) fmt = SS_EINVAL, snprintf(err, errlen, "%s", SSI_OWN_JSON_REFUSAL);
    if (fmt < 0 || is_foreign(fmt)) close(*fd), *fd = -1;
    if (fmt < 0) return fmt;
    if (is_foreign(fmt)) { /* the importer reads it; the reader opens the import */
        int rc = import_to_temp(in_path, fmt, out_path, err, errlen);
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
        snprintf(err, errlen, "is %s-compressed, and what it holds is no stepscope trace, nsys "
                 "SQLite export or Kineto JSON", ssi_compression_name(comp));
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
