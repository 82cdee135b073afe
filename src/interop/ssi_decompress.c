/*
 * ssi_decompress.c — compressed inputs (issue #29): a trace, an nsys SQLite export or a Kineto
 * JSON compressed with gzip, zstd or xz is decompressed into a temporary file and then read as
 * if it had been given plainly. zlib, libzstd and liblzma do the work (the libraries made for
 * it; liblzma is required); a build without libzstd names zstd in its error instead.
 *
 * A decompression bomb cannot fill the disk unseen: the output stops at SSI_DECOMPRESS_MAX.
 */
#include "interop/ssi.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef SST_HAVE_ZSTD
#include <zstd.h>
#endif

#include "util/ss_error.h"
#include "util/ss_out.h"

#define SSI_DECOMPRESS_MAX (64ull << 30) /* as the stdin spool's cap */
#define CHUNK (1u << 16)

/* X(kind, name, magic, magic length): how each compression starts. */
#define SSI_COMPRESSIONS(X)                                                                        \
    X(SSI_COMP_GZIP, "gzip", "\x1f\x8b", 2)                                                        \
    X(SSI_COMP_ZSTD, "zstd", "\x28\xb5\x2f\xfd", 4)                                                \
    X(SSI_COMP_XZ, "xz", "\xfd" "7zXZ\x00", 6)

static const struct {
    int kind;
    const char *name, *magic;
    size_t len;
} k_comps[] = {
#define SSI_COMP_ROW(k, n, m, l) {k, n, m, l},
    SSI_COMPRESSIONS(SSI_COMP_ROW)
#undef SSI_COMP_ROW
};

int ssi_compression_of(const void *head, size_t n)
{
    for (size_t i = 0; i < sizeof k_comps / sizeof k_comps[0]; i++)
        if (n >= k_comps[i].len && memcmp(head, k_comps[i].magic, k_comps[i].len) == 0)
            return k_comps[i].kind;
    return SSI_COMP_NONE;
}

const char *ssi_compression_name(int comp)
{
    for (size_t i = 0; i < sizeof k_comps / sizeof k_comps[0]; i++)
        if (k_comps[i].kind == comp) return k_comps[i].name;
    return "none";
}

/* ---- one decompressor per format: in -> out, in chunks ---- */

struct sink {
    int fd;
    uint64_t written;
};

/* Appends n bytes; SS_ETOOBIG past the cap, or the write's error. */
static int sink_put(struct sink *s, const void *buf, size_t n)
{
    if ((s->written += n) > SSI_DECOMPRESS_MAX) return SS_ETOOBIG;
    for (const char *p = buf; n;) {
        ssize_t w = write(s->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return ss_from_errno(errno);
        p += w, n -= (size_t)w;
    }
    return 0;
}

static int gunzip(FILE *in, struct sink *out)
{
    static unsigned char ibuf[CHUNK], obuf[CHUNK];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) return SS_ENOMEM; /* gzip header, members */
    int rc = 0, zr = Z_OK;
    while (!rc && zr != Z_STREAM_END) {
        z.avail_in = (uInt)fread(ibuf, 1, CHUNK, in), z.next_in = ibuf;
        if (!z.avail_in) {
            rc = SS_ETRUNC;
            break;
        }
        do {
            z.avail_out = CHUNK, z.next_out = obuf;
            zr = inflate(&z, Z_NO_FLUSH);
            if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) rc = SS_ECORRUPT;
            if (!rc) rc = sink_put(out, obuf, CHUNK - z.avail_out);
            if (zr == Z_STREAM_END && z.avail_in) zr = inflateReset(&z); /* another member */
        } while (!rc && z.avail_out == 0);
    }
    inflateEnd(&z);
    return rc;
}

static int unxz(FILE *in, struct sink *out)
{
    static uint8_t ibuf[CHUNK], obuf[CHUNK];
    lzma_stream z = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) return SS_ENOMEM;
    int rc = 0;
    lzma_ret lr = LZMA_OK;
    while (!rc && lr != LZMA_STREAM_END) {
        lzma_action act = LZMA_RUN;
        if (z.avail_in == 0) {
            z.next_in = ibuf, z.avail_in = fread(ibuf, 1, CHUNK, in);
            if (!z.avail_in) act = LZMA_FINISH;
        }
        z.next_out = obuf, z.avail_out = CHUNK;
        lr = lzma_code(&z, act);
        if (lr != LZMA_OK && lr != LZMA_STREAM_END)
            rc = lr == LZMA_BUF_ERROR ? SS_ETRUNC : lr == LZMA_MEM_ERROR ? SS_ENOMEM : SS_ECORRUPT;
        if (!rc) rc = sink_put(out, obuf, CHUNK - z.avail_out);
    }
    lzma_end(&z);
    return rc;
}

#ifdef SST_HAVE_ZSTD
static int unzstd(FILE *in, struct sink *out)
{
    static uint8_t ibuf[CHUNK], obuf[CHUNK];
    ZSTD_DStream *z = ZSTD_createDStream();
    if (!z) return SS_ENOMEM;
    size_t last = 1, n;
    int rc = 0;
    while (!rc && (n = fread(ibuf, 1, CHUNK, in)) > 0) {
        ZSTD_inBuffer ib = {ibuf, n, 0};
        while (!rc && ib.pos < ib.size) {
            ZSTD_outBuffer ob = {obuf, CHUNK, 0};
            last = ZSTD_decompressStream(z, &ob, &ib);
            rc = ZSTD_isError(last) ? SS_ECORRUPT : sink_put(out, obuf, ob.pos);
        }
    }
    ZSTD_freeDStream(z);
    return rc ? rc : last != 0 ? SS_ETRUNC : 0; /* a frame left unfinished: cut short */
}
#endif

static int decompress_stream(int comp, FILE *in, struct sink *out)
{
    if (comp == SSI_COMP_GZIP) return gunzip(in, out);
    if (comp == SSI_COMP_XZ) return unxz(in, out);
#ifdef SST_HAVE_ZSTD
    if (comp == SSI_COMP_ZSTD) return unzstd(in, out);
#endif
    return SS_ENOTSUP;
}

int ssi_gzip_head(const char *path, void *buf, size_t cap)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return 0;
    int n = gzread(g, buf, (unsigned)cap);
    gzclose(g);
    return n > 0 ? n : 0;
}

/* ---- into a temporary file ---- */

static int temp_file(char **out, int *fd)
{
    *fd = ss_tmp_new("stepscope-unpacked", out);
    return *fd < 0 ? ss_from_errno(errno) : 0;
}

int ssi_decompress_to_temp(const char *in_path, int comp, char **out_path, char *err,
                           size_t errlen)
{
    FILE *in = fopen(in_path, "rb");
    char *tmp = NULL;
    struct sink s = {-1, 0};
    int rc = in ? temp_file(&tmp, &s.fd) : ss_from_errno(errno);
    if (!rc) rc = decompress_stream(comp, in, &s);
    if (in) fclose(in);
    if (s.fd >= 0) close(s.fd);
    if (rc && tmp) unlink(tmp), ss_tmp_untrack_path(tmp), free(tmp), tmp = NULL;
    if (rc == SS_ENOTSUP)
        snprintf(err, errlen, "is %s-compressed and this stepscope was built without %s: "
                 "decompress it first", ssi_compression_name(comp), ssi_compression_name(comp));
    else if (rc == SS_ETRUNC)
        snprintf(err, errlen, "is %s-compressed and cut short: its compressed data ends before "
                 "the end of what it held", ssi_compression_name(comp));
    else if (rc)
        snprintf(err, errlen, "is %s-compressed and could not be decompressed: %s",
                 ssi_compression_name(comp), ss_strerror(rc));
    *out_path = tmp;
    return rc;
}
