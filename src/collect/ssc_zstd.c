/*
 * ssc_zstd.c — zstd compression of trace chunks without linking libzstd.
 *
 * The injected library keeps its dependencies to libc and CUPTI, so it looks for the system's
 * libzstd.so.1 at run time; when it is absent, chunks are stored raw (the format allows both
 * per chunk). Level 1: the writer thread must keep up with the program, ratio matters less.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "collect/ssc_core.h"

typedef size_t (*zstd_compress_fn)(void *dst, size_t cap, const void *src, size_t len, int lvl);
typedef size_t (*zstd_bound_fn)(size_t len);
typedef unsigned (*zstd_iserror_fn)(size_t code);

static zstd_compress_fn g_compress;
static zstd_bound_fn g_bound;
static zstd_iserror_fn g_iserror;

static size_t compress_chunk(void *ctx, void *dst, size_t cap, const void *src, size_t len)
{
    (void)ctx;
    size_t n = g_compress(dst, cap, src, len, 1);
    return g_iserror(n) ? 0 : n;
}

static size_t bound(size_t len)
{
    return g_bound(len);
}

int ssc_zstd_compressor(struct sst_compressor *out)
{
    if (ssc_setting(SST_SET_NO_ZSTD)->num) return -1; /* tests: exercise the raw path */
    void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    g_compress = (zstd_compress_fn)dlsym(h, "ZSTD_compress");
    g_bound = (zstd_bound_fn)dlsym(h, "ZSTD_compressBound");
    g_iserror = (zstd_iserror_fn)dlsym(h, "ZSTD_isError");
    if (!g_compress || !g_bound || !g_iserror) {
        dlclose(h);
        return -1;
    }
    out->compress = compress_chunk;
    out->bound = bound;
    out->ctx = NULL;
    return 0; /* h stays open for the life of the process */
}
