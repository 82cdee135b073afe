/*
 * sst_ahead.h — decodes a trace's chunks on worker threads ahead of its reader (issue #44:
 * `report` on one large trace uses every core).
 *
 * Workers read the compressed chunks that follow the reader's position (pread), sum their
 * checksums and decompress them, up to a few chunks ahead; raw chunks they sum in place through
 * a mapping of their own (sst_map_range) when the reader maps its file (SST_READ_MAP), else
 * leave them to the reader (a pread copy costs more than their checksum); the reader takes them in file order through
 * struct sst_ahead_ops (sst_reader.h), and loads any chunk the pool did not decode cleanly
 * itself, so damage is found, counted and worded exactly as by a reader without a pool.
 * The CLI's only (pthreads): the collector library never links this file.
 */
#ifndef SST_AHEAD_H
#define SST_AHEAD_H

#include "sst_reader.h"

#define SST_AHEAD_MAX_WORKERS 64

/* Gives r a pool of `workers` decoding threads (1..SST_AHEAD_MAX_WORKERS). r must be rewound
 * (or not read yet) and read from a file (sst_reader_source); the reader owns the pool and
 * stops it at sst_reader_close or sst_reader_set_ahead(r, NULL, NULL). Returns 0, SS_EINVAL
 * (a stream, a trace whose header says it has no compressed chunk read by a reader that does
 * not map it, or workers out of range: r keeps reading alone), SS_ENOMEM, or SS_EIO when no
 * thread could be started (r reads alone). */
int sst_ahead_attach(struct sst_reader *r, unsigned workers);

#endif
