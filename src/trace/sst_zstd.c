/* sst_zstd.c — libzstd behind the trace module's compressor interface (see sst_zstd.h). */
#include "sst_zstd.h"

#include <zstd.h>

#include "util/ss_error.h"

static size_t zstd_compress(void *ctx, void *dst, size_t dst_cap, const void *src,
                            size_t src_len)
{
    size_t n = ZSTD_compress2(ctx, dst, dst_cap, src, src_len);
    return ZSTD_isError(n) ? 0 : n; /* 0 tells the writer to store the chunk raw */
}

static size_t zstd_bound(size_t src_len)
{
    return ZSTD_compressBound(src_len);
}

int sst_zstd_compressor_init(struct sst_compressor *out, int level)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (!cctx)
        return SS_ENOMEM;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    /* The chunk header already carries a CRC32C over the stored bytes. */
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
    out->compress = zstd_compress;
    out->bound = zstd_bound;
    out->ctx = cctx;
    return 0;
}

void sst_zstd_compressor_free(struct sst_compressor *c)
{
    if (c && c->ctx)
        ZSTD_freeCCtx(c->ctx);
    if (c)
        c->ctx = NULL;
}

int sst_zstd_decompress(void **dctx, void *dst, size_t dst_len, const void *src,
                        size_t src_len)
{
    if (!*dctx && !(*dctx = ZSTD_createDCtx()))
        return SS_ENOMEM;
    /* A frame that claims more than dst_len fails here with dstSize_tooSmall: the buffer
     * bounds what a hostile file can make us write. */
    size_t n = ZSTD_decompressDCtx(*dctx, dst, dst_len, src, src_len);
    if (ZSTD_isError(n) || n != dst_len)
        return SS_ECORRUPT;
    return 0;
}

void sst_zstd_dctx_free(void *dctx)
{
    ZSTD_freeDCtx(dctx);
}
