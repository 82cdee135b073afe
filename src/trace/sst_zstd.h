/*
 * sst_zstd.h — zstd for trace chunks: a compressor for sst_writer and the decompression
 * sst_reader uses. This file and sst_zstd.c are the only places that include <zstd.h>, so
 * the libzstd dependency stays with the CLI and tools (the collector brings its own
 * dlopen-based compressor and does not link this).
 */
#ifndef SST_ZSTD_H
#define SST_ZSTD_H

#include <stddef.h>

#include "sst_writer.h"

/* Fills *out with a zstd compressor at `level` (1..19; 3 is zstd's default). The context it
 * allocates is owned by the caller: free it with sst_zstd_compressor_free after the writer
 * using it is closed. Returns 0 or SS_ENOMEM. */
int sst_zstd_compressor_init(struct sst_compressor *out, int level);
void sst_zstd_compressor_free(struct sst_compressor *c);

/* Decompresses one zstd frame from src into dst, which must come out at exactly dst_len
 * bytes. *dctx caches a decompression context between calls (start with NULL; free with
 * sst_zstd_dctx_free). Returns 0, SS_ECORRUPT (bad frame or wrong size) or SS_ENOMEM. */
int sst_zstd_decompress(void **dctx, void *dst, size_t dst_len, const void *src,
                        size_t src_len);
void sst_zstd_dctx_free(void *dctx);

#endif
