/* ssi_detect.c — which format a file is in, and opening any supported input for analysis. */
#include "interop/ssi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace/sst_format.h"
#include "util/ss_error.h"

static const char *const k_format_names[] = {"unknown", "sstrace", "kineto-json", "kineto-gz",
                                             "sqlite"};

const char *ssi_format_name(int fmt)
{
    if (fmt < 0 || fmt >= (int)(sizeof k_format_names / sizeof k_format_names[0]))
        return "unknown";
    return k_format_names[fmt];
}

/* A JSON document starts with '{' or '[' after optional whitespace (and a UTF-8 BOM). */
static int looks_like_json(const unsigned char *b, size_t n)
{
    size_t i = 0;
    if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf) i = 3;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
    return i < n && (b[i] == '{' || b[i] == '[');
}

int ssi_detect(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ss_from_errno(errno);
    unsigned char b[64];
    ssize_t n = read(fd, b, sizeof b);
    int saved = errno;
    close(fd);
    if (n < 0) return ss_from_errno(saved);
    if (n >= SST_MAGIC_LEN && memcmp(b, SST_MAGIC, SST_MAGIC_LEN) == 0) return SSI_FMT_SSTRACE;
    if (n >= 16 && memcmp(b, "SQLite format 3", 16) == 0) return SSI_FMT_SQLITE;
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return SSI_FMT_KINETO_GZ;
    if (looks_like_json(b, (size_t)n)) return SSI_FMT_KINETO_JSON;
    return SSI_FMT_UNKNOWN;
}
