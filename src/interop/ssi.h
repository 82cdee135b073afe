/*
 * ssi.h — interop: conversions between stepscope traces and other tools' formats (prefix ssi_).
 *
 * Importers turn a foreign capture into a stepscope trace file (.sstrace, written through
 * sst_writer), so every import goes through the same analysis as a native trace. Exporters
 * read a stepscope trace (sst_reader) and write another tool's format. All functions return
 * 0 or a negative ss_error code; on failure they write one line for people into err (when
 * err is not NULL) and remove their output file. They write out_path directly (created
 * 0600, or truncated): a caller that must not lose what was at the path hands them a
 * temporary file and puts it in place when they succeed (the CLI: src/util/ss_out.h). A damaged
 * input is the caller's to say (the reader's damage model, sst_reader_damage; the CLI refuses
 * it unless --accept-damage): the exporters write what could be read and, where the format has
 * room, the damage with it; the importers write what they found wrong with the capture as
 * DAMAGE records (sst_writer_damage). Callers print a non-empty err either way.
 */
#ifndef SSI_H
#define SSI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sst_reader;
struct ssa_result;

/* What a file's first bytes say it is (ssi_detect). */
enum ssi_format {
    SSI_FMT_UNKNOWN = 0,
    SSI_FMT_SSTRACE,    /* stepscope trace (SST_MAGIC) */
    SSI_FMT_OWN_JSON,   /* stepscope's own Perfetto export: not importable whole (no copy
                         * kinds, devices or pids of the trace); read the .sstrace instead */
    SSI_FMT_FOREIGN,    /* another tool's capture: a row of SSI_IMPORTERS reads it
                         * (ssi_importer_of says which) */
    SSI_FMT_COMPRESSED, /* gzip, zstd or xz: what it holds is told once decompressed */
};
#define SSI_OWN_JSON_REFUSAL                                                                   \
    "is stepscope's own Perfetto export, which cannot be imported whole: use the .sstrace it "  \
    "was exported from"

/* One step of the hash the importers find exact repeats with (a Kineto event, an nsys row:
 * every field folded in; issue #41). */
static inline uint64_t ssi_hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* Sniffs the first bytes of the file at path. Returns an ssi_format (>= 0) or a negative
 * ss_error code when the file cannot be read. */
int ssi_detect(const char *path);
/* The format the first n bytes of a file announce (at least 16 for every format to be told). */
int ssi_detect_bytes(const void *buf, size_t n);
/* The first up to cap bytes of the file at path (non-blocking: a FIFO without a writer reads
 * none): how many, or a negative ss_error. */
int ssi_head(const char *path, void *buf, size_t cap);

/* Kineto JSON (plain or gzip) -> stepscope trace. Streaming: memory bounded by the number of
 * distinct names and open ranges, not by the file size. (ssi_kineto.c; the table's row
 * ssi_import_kineto, below) */
int ssi_kineto_import(const char *in_path, const char *out_path, char *err, size_t errlen);

/* nsys SQLite export -> stepscope trace. (ssi_nsys_import.c; the row ssi_import_nsys) */
int ssi_nsys_import(const char *in_path, const char *out_path, char *err, size_t errlen);

/* stepscope trace -> SQLite database in the nsys export schema. (ssi_nsys_export.c) */
/* source: how the input is named in the output's metadata (the path the user gave: in_path
 * may be a temporary import of it); NULL: in_path. */
int ssi_nsys_export(const char *in_path, const char *source, const char *out_path, char *err,
                    size_t errlen);

/* The same, from a reader the caller opened: the CLI opens each input once. (the table's
 * to_path, below) */
struct ssi_export_in;
int ssi_nsys_export_reader(const struct ssi_export_in *in, const char *out_path, char *err,
                           size_t errlen);

/* Compressed inputs (ssi_decompress.c, issue #29). */
enum ssi_compression { SSI_COMP_NONE = 0, SSI_COMP_GZIP, SSI_COMP_ZSTD, SSI_COMP_XZ };
/* The compression a file's first bytes announce (SSI_COMP_NONE: none known). */
int ssi_compression_of(const void *head, size_t n);
/* "gzip", "zstd", "xz" (static). */
const char *ssi_compression_name(int comp);
/* The first up to cap bytes of a gzip file, decompressed; how many (0: none). */
int ssi_gzip_head(const char *path, void *buf, size_t cap);
/* Decompresses in_path into a new temporary file (*out_path, owned, tracked for removal on
 * signals; NULL on error). 0, or an ss_error with one line in err ("is xz-compressed and ..."):
 * SS_ENOTSUP when this build lacks the library, SS_ETRUNC, SS_ECORRUPT, SS_ETOOBIG (past 64
 * GiB, a decompression bomb). */
int ssi_decompress_to_temp(const char *in_path, int comp, char **out_path, char *err,
                           size_t errlen);

/* Any supported input -> a path the analysis can read. A native trace is returned as is
 * (*out_path = strdup(in_path), *is_temp = 0); a foreign one is imported into a new file
 * under $TMPDIR (or /tmp) made with mkstemp, *is_temp = 1: the caller unlinks it when done
 * (and calls ss_tmp_untrack_path: the file is removed should a signal end the process).
 * The caller frees *out_path. (ssi_detect.c) */
int ssi_open_any(const char *in_path, char **out_path, int *is_temp, char *err, size_t errlen);

/* As ssi_open_any, opening in_path once: for a native trace (or a file of no known format)
 * *fd is that descriptor, for sst_reader_open_fd to take over (the caller closes it
 * otherwise); for an imported capture *fd is -1 and *out_path the import to open. */
int ssi_open_input(const char *in_path, int *fd, char **out_path, int *is_temp, char *err,
                   size_t errlen);

/* stepscope trace -> NVTXT (Nsight Systems' ImportNvtxt input), from a reader and its
 * analysis (full mode: the steps kept). (ssi_nvtxt.c; the table's to_path, below) */
int ssi_nvtxt_export_reader(const struct ssi_export_in *in, const char *out_path, char *err,
                            size_t errlen);

/* Chrome Trace Event JSON (Perfetto UI, chrome://tracing) of the trace in->r reads to f;
 * in->res (full mode, or NULL) gives the attribution track. (ssi_perfetto.c, docs/export.md) */
int ssi_perfetto_write(const struct ssi_export_in *in, FILE *f, char *warn, size_t cap);

/* ---- importers: one table, one row per format read (`import`, every verb's input) ---- */

/* One format of another tool that becomes a stepscope trace. Detection, `import --help`, the
 * default output's name and the "not a ..." messages come from these rows; docs/interop.md
 * describes each (cli.tables checks it against `import --help`). */
struct ssi_importer {
    const char *name; /* in `import --help` and docs/interop.md's table of importers */
    /* 1 when a file's first n bytes (64, or the whole of a shorter file) are this format's.
     * Tried in table order after the native trace and stepscope's own export, so a sniff that
     * is too loose takes files from the rows below it: look at the bytes, not the name. */
    int (*sniff)(const unsigned char *head, size_t n);
    int (*import)(const char *in_path, const char *out_path, char *err, size_t errlen);
    const char *suffixes; /* the names its files end in, space-separated, longest first: the
                           * default output of `import` and `export` drops one of them */
    const char *help;     /* for `import --help`: its lines, shown after the name */
    const char *what;     /* the format in a few words ("nsys SQLite export"), for messages */
    int reads_gzip;       /* streams a gzip-compressed file itself (else decompressed first) */
};

/* The importers, tried in this order: the file of each X(name) defines
 * `const struct ssi_importer ssi_import_<name>`. A new importer is its file and one X here
 * (docs/design.md, "Add an importer"). SSI_TEST_IMPORTERS is empty in the product: the test of
 * that recipe adds its own row through it (tests/interop/recipe_importer.c). */
#ifndef SSI_TEST_IMPORTERS
#define SSI_TEST_IMPORTERS(X)
#endif
#define SSI_IMPORTERS(X) X(kineto) X(nsys) SSI_TEST_IMPORTERS(X)
#define SSI_X_DECLARE(name) extern const struct ssi_importer ssi_import_##name;
SSI_IMPORTERS(SSI_X_DECLARE)
#undef SSI_X_DECLARE

/* Every importer in SSI_IMPORTERS order, then NULL. (ssi_import.c) */
extern const struct ssi_importer *const ssi_importers[];

/* The importer whose sniff takes the first n bytes of a file, or NULL. */
const struct ssi_importer *ssi_importer_of(const void *head, size_t n);

/* The importer that reads the file at path as it is: the one its first bytes name, or for a
 * gzip file the one that streams gzip itself and takes what the file holds. NULL otherwise
 * (*fmt, when not NULL, then says what the file is: ssi_detect). */
const struct ssi_importer *ssi_importer_for(const char *path, int *fmt);
/* The same from the file's first n bytes (path: to look inside a gzip file). */
const struct ssi_importer *ssi_importer_for_head(const char *path, const void *head, size_t n,
                                                 int *fmt);

/* The formats stepscope reads, for messages: "stepscope trace, torch.profiler JSON or nsys
 * SQLite export" (with_native 1), "torch.profiler JSON or nsys SQLite export" (0). buf. */
const char *ssi_formats_read(char *buf, size_t cap, int with_native);

/* The length of the suffix of path that names a format stepscope reads (".sstrace" or one of
 * an importer's suffixes, the longest that fits), 0 for none. */
size_t ssi_input_suffix_len(const char *path);

/* 0 when an importer reads the file at path, as it is or once decompressed (ssi_import then
 * tells what it holds); else an ss_error with its line in err: the native trace, stepscope's
 * own export, an empty file, one of no format the importers read, one that cannot be read. */
int ssi_import_check(const char *path, char *err, size_t errlen);

/* Another tool's capture at in_path, compressed or not, -> the stepscope trace at out_path,
 * by the importer it needs (the contract at the top). A file no importer reads is SS_EINVAL
 * with its line (the native trace, stepscope's own export, an unknown or empty file). */
int ssi_import(const char *in_path, const char *out_path, char *err, size_t errlen);

/* ---- export formats: one table, one row per format (`stepscope export --format NAME`) ---- */

/* What an exporter reads. */
struct ssi_export_in {
    struct sst_reader *r;         /* the trace: read from its first chunk, left at its end */
    const struct ssa_result *res; /* its analysis (full mode: the steps kept) when the format
                                   * needs_analysis, else NULL */
    const char *source;           /* the input as the user named it, for the output to say */
    int all_samples;              /* folded: every sample of every thread (--samples all) */
    struct ssi_window *win;       /* the part to write (--steps, --time): NULL, all of it */
    const char *win_desc;         /* that part in words ("steps 5-9, 1.204-1.311 s"), or NULL */
    const struct ssi_merge *merge; /* one trace of several on one timeline (Perfetto, nsys), or
                                    * NULL */
};

/* Where one trace goes in a merged export (the ranks of a job, issue #44): its clock on the
 * common one (a local time t is t + offset_ns + drift_ppm / 1e6 (t - at_ns) there, as
 * ssa_align_map), the common timeline's zero, its own pids (slot: its host process is
 * SSI_MERGE_PID(slot, 0), its GPU d SSI_MERGE_PID(slot, 1 + d % 63)) and flow ids (slot << 32
 * | correlation), and the label its process and GPU tracks are named with ("rank 3 node01"). */
struct ssi_merge {
    uint32_t slot;
    double offset_ns, drift_ppm;
    uint64_t at_ns, t0;
    const char *label;
};
#define SSI_MERGE_PID(slot, k) (256u + (uint64_t)(slot) * 64u + (k))

/* Several traces in one Perfetto JSON document, each with its ins[i].merge: their events on
 * one timeline. 0 or an ss_error with warn saying why (ssi_perfetto.c). */
int ssi_perfetto_write_merged(const struct ssi_export_in *ins, size_t n, FILE *f, char *warn,
                              size_t cap);

/* The trace's local time t on the common timeline, in ns since its zero m->t0: the one mapping
 * every merged writer uses, so that Perfetto and nsys put a record at the same place
 * (ssi_export.c). */
int64_t ssi_merge_rel_ns(const struct ssi_merge *m, uint64_t t);

/* Several traces in one database in the nsys export schema, each with its ins[i].merge: times
 * on the common clock (m->t0 + ssi_merge_rel_ns), each trace its own globalPid (hardware id
 * bits = slot), correlation and NVTX range ids (slot << 32 | id), CUDA contexts and GPUs
 * (TARGET_INFO_GPU.vmId = slot) (ssi_nsys_export.c). source: the folder, for the metadata. */
int ssi_nsys_write_merged(const struct ssi_export_in *ins, size_t n, const char *source,
                          const char *out_path, char *err, size_t errlen);

/* One format. It has one of to_stream (to f, which may be stdout: the caller checks f for
 * write errors) and to_path (fills the empty 0600 file at path, which the caller then puts in
 * place). Both return 0 (a damaged trace: what could be read was exported, and the damage
 * written where the format has room; the caller says it), or a negative ss_error with msg
 * saying why. */
struct ssi_exporter {
    const char *name;   /* --format NAME */
    const char *suffix; /* of the default output, named after the input, next to it */
    const char *help;   /* for `stepscope export --help`: its lines, shown after the name */
    int needs_analysis;
    int (*to_stream)(const struct ssi_export_in *in, FILE *f, char *msg, size_t cap);
    int (*to_path)(const struct ssi_export_in *in, const char *path, char *msg, size_t cap);
    int takes_samples; /* reads ssi_export_in.all_samples (--samples idle|all) */
    /* the output's bytes per record that carries a time (kernel, API call, NVTX range end...),
     * for the size `export` warns about before it writes (0: the size does not grow with the
     * records, as collapsed stacks' does not): within what the fixtures' exports measured
     * (docs/performance.md, "Import and export"), near its middle; a warning, not a limit */
    double bytes_per_event;
};

/* The formats, the default first: the file of each X(name) defines
 * `const struct ssi_exporter ssi_export_<name>`. A new format is its file and one X here. */
#define SSI_EXPORTERS(X) X(perfetto) X(nsys_sqlite) X(nvtxt) X(folded) X(sstrace)
#define SSI_X_DECLARE(name) extern const struct ssi_exporter ssi_export_##name;
SSI_EXPORTERS(SSI_X_DECLARE)
#undef SSI_X_DECLARE

/* Every format in SSI_EXPORTERS order, then NULL. (ssi_export.c) */
extern const struct ssi_exporter *const ssi_exporters[];

/* The format called name, or NULL. */
const struct ssi_exporter *ssi_exporter_find(const char *name);

/* Collapsed stacks of the Python stack samples (flamegraph.pl, speedscope) to f: in->all_samples
 * 0, the GPU-idle time of in->res (the training and autograd threads, steady steps; a root
 * frame per category; an export window is the analysis's: ssa_opts.host_from_ns); 1, every
 * sample of every thread read from in->r inside in->win (a root frame per thread).
 * Values in microseconds. 0, or a negative ss_error with its line in msg: SS_EEMPTY when there
 * is nothing to fold (no samples; no GPU-idle time sampled), so that no empty file is written.
 * (ssi_folded.c, docs/export.md) */
int ssi_folded_write(const struct ssi_export_in *in, FILE *f, char *msg, size_t cap);

#endif
