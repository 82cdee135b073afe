/*
 * sst_format.h — the on-disk layout of a stepscope trace (format v2).
 *
 * The trace module (src/trace/) owns this file: every byte the writer puts on disk is
 * described here and in docs/trace-format.md, which is the specification; this header is
 * its C transcription, shared by the one writer (sst_writer.c) and the one reader
 * (sst_reader.c). Change both documents together and bump the revision table.
 *
 * All integers are little-endian. Structs are laid out with natural alignment and no
 * implicit padding; the _Static_asserts below pin every size so a compiler or an edit that
 * changes the layout fails the build instead of writing an unreadable file.
 */
#ifndef SST_FORMAT_H
#define SST_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* ---- file header ----------------------------------------------------------------------- */

/* "\x89SSTRACE" is never valid text, catches 7-bit transfers and CR/LF rewriting. */
#define SST_MAGIC "\x89SSTRACE"
#define SST_MAGIC_LEN 8
#define SST_FORMAT_VERSION 5 /* what this code writes (2: record types cost, graph, py_*; 3: py_call;
                              * 4: damage; 5: clock, skipped by older readers) */
#define SST_READ_VERSION 1   /* newest min_reader_version this code can read */
#define SST_BYTE_ORDER_LE 1

enum sst_clock {
    SST_CLOCK_MONOTONIC = 1,     /* clock_gettime(CLOCK_MONOTONIC), ns */
    SST_CLOCK_MONOTONIC_RAW = 2, /* clock_gettime(CLOCK_MONOTONIC_RAW), ns */
    SST_CLOCK_SYNTHETIC = 3,     /* made up by a generator or a test */
};

/* Feature bits: what the producer recorded. Readers ignore bits they do not know. */
enum sst_feature {
    SST_FEAT_CUPTI = 1u << 0,      /* CUPTI activity records present */
    SST_FEAT_NVTX = 1u << 1,       /* NVTX injection active */
    SST_FEAT_HOST_SAMPLES = 1u << 2,
    SST_FEAT_ZSTD = 1u << 3,       /* at least one chunk may be zstd-compressed */
    SST_FEAT_LIGHT_MODE = 1u << 4, /* collector ran in --mode light */
    SST_FEAT_SYNTHETIC = 1u << 5,  /* written by a generator, not a real program */
};

struct sst_file_header {
    char magic[SST_MAGIC_LEN];   /* SST_MAGIC */
    uint16_t format_version;     /* version of the writer */
    uint16_t min_reader_version; /* oldest reader version that can read this file */
    uint16_t header_size;        /* sizeof(struct sst_file_header) for v1; chunks follow it */
    uint8_t byte_order;          /* SST_BYTE_ORDER_LE */
    uint8_t clock;               /* enum sst_clock */
    uint32_t features;           /* enum sst_feature bits */
    uint32_t pid;                /* process that wrote the file (0: unknown) */
    uint64_t start_mono_ns;      /* clock reading when the file was opened */
    uint64_t start_unix_ns;      /* CLOCK_REALTIME at the same instant, for wall-clock display */
    uint32_t reserved[5];        /* zero */
    uint32_t header_crc;         /* CRC32C of the preceding 60 bytes */
};
_Static_assert(sizeof(struct sst_file_header) == 64, "file header is 64 bytes");

/* ---- chunks ---------------------------------------------------------------------------- */

#define SST_CHUNK_MAGIC 0x4b435353u /* "SSCK" as little-endian bytes */
#define SST_CHUNK_MAX_RAW (16u << 20) /* readers refuse chunks that claim more */

enum sst_chunk_type {
    SST_CHUNK_RECORDS = 1, /* payload: a sequence of records */
    SST_CHUNK_END = 2,     /* payload: struct sst_end; the last chunk of a cleanly closed file */
};

enum sst_chunk_flag {
    SST_CHUNK_F_ZSTD = 1u << 0, /* payload is one zstd frame that decompresses to raw_len */
};

struct sst_chunk_header {
    uint32_t magic;      /* SST_CHUNK_MAGIC: lets a reader resynchronise past damage */
    uint16_t type;       /* enum sst_chunk_type; unknown types are skipped by length */
    uint16_t flags;      /* enum sst_chunk_flag */
    uint32_t stored_len; /* bytes of payload following this header */
    uint32_t raw_len;    /* payload bytes after decompression (== stored_len if raw) */
    uint32_t seq;        /* 0, 1, 2, ... in file order */
    uint32_t crc;        /* CRC32C over this header (crc field as 0) then the stored payload */
};
_Static_assert(sizeof(struct sst_chunk_header) == 24, "chunk header is 24 bytes");

/* Payload of SST_CHUNK_END. Its presence means the writer closed the file. */
struct sst_end {
    uint64_t end_mono_ns;  /* clock reading at close */
    uint64_t records;      /* records written in all chunks */
    uint64_t dropped;      /* records the producer had to drop (also in DROPPED records) */
    uint32_t chunks;       /* RECORDS chunks written before this one */
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_end) == 32, "end payload is 32 bytes");

/* ---- records --------------------------------------------------------------------------- */

/*
 * Every record starts with this header. size counts the header, is a multiple of 8, and
 * lets a reader skip record types it does not know. A record's size may be larger than the
 * struct this version knows (a later version appended fields): read the known prefix,
 * skip the rest. A record smaller than the known struct is malformed.
 */
struct sst_rec_header {
    uint16_t type; /* enum sst_rec_type */
    uint16_t size; /* bytes, header included, multiple of 8, >= 8 */
};
_Static_assert(sizeof(struct sst_rec_header) == 4, "record header is 4 bytes");

#define SST_REC_ALIGN 8
#define SST_REC_MAX 65528u /* largest size a record can declare (multiple of 8) */

/*
 * Every record kind, one line each: X(NAME, number, "name", layout, time). Everything that
 * every kind has is generated from this list; nothing else lists the kinds.
 *   NAME, number  enum sst_rec_type (SST_REC_NAME). The numbers are part of the format: never
 *                 renumber, only append (a hole or a repeated number fails the tests/build).
 *   "name"        what `info`, `dump` and docs/trace-format.md call it (sst_rec_type_name).
 *   layout        the struct sst_rec_<layout> below that holds its fixed part: its size is the
 *                 kind's minimum size (sst_rec_min_size), and `stepscope dump` prints it with
 *                 p_<layout> (tools/inspect/rec_fields.c). Kinds may share a layout (NVTX).
 *   time          where it keeps its time (sst_rec_time_range): span (start_ns..end_ns),
 *                 ts (the instant ts_ns), start (the instant start_ns, 0: not known), none.
 */
#define SST_REC_TYPES(X)                                                                       \
    X(STRING, 1, "string", string, none)                                                       \
    X(PROCESS, 2, "process", process, start)                                                   \
    X(THREAD, 3, "thread", thread, ts)                                                         \
    X(ENV, 4, "env", env, none)                                                                \
    X(DEVICE, 5, "device", device, none)                                                       \
    X(KERNEL, 6, "kernel", kernel, span)                                                       \
    X(MEMCPY, 7, "memcpy", memcpy, span)                                                       \
    X(MEMSET, 8, "memset", memset, span)                                                       \
    X(SYNC, 9, "sync", sync, span)                                                             \
    X(API, 10, "api", api, span)                                                               \
    X(NVTX_PUSH, 11, "nvtx_push", nvtx, ts)                                                    \
    X(NVTX_POP, 12, "nvtx_pop", nvtx, ts)                                                      \
    X(NVTX_START, 13, "nvtx_start", nvtx, ts)                                                  \
    X(NVTX_END, 14, "nvtx_end", nvtx, ts)                                                      \
    X(NVTX_MARK, 15, "nvtx_mark", nvtx, ts)                                                    \
    X(HOST_SAMPLE, 16, "host_sample", host_sample, ts)                                         \
    X(DROPPED, 17, "dropped", dropped, ts)                                                     \
    X(CAPTURE, 18, "capture", capture, ts)                                                     \
    X(STEP, 19, "step", step, ts)                                                              \
    X(MEMORY, 20, "memory", memory, ts)                                                        \
    X(OVERHEAD, 21, "overhead", overhead, span)                                                \
    X(NOTICE, 22, "notice", notice, ts)                                                        \
    X(NVTX_DOMAIN, 23, "nvtx_domain", nvtx_domain, ts)                                         \
    X(COST, 24, "cost", cost, ts)                                                              \
    X(GRAPH, 25, "graph", graph, span)                                                         \
    X(PY_FRAME, 26, "py_frame", py_frame, none)                                                \
    X(PY_STACK, 27, "py_stack", py_stack, none)                                                \
    X(PY_SAMPLE, 28, "py_sample", py_sample, ts)                                           \
    X(PY_CALL, 29, "py_call", py_call, ts)                                                     \
    X(DAMAGE, 30, "damage", damage, none)                                                      \
    X(CLOCK, 31, "clock", clock, ts)

enum sst_rec_type {
#define SST_X_ENUM(name, num, str, layout, time) SST_REC_##name = num,
    SST_REC_TYPES(SST_X_ENUM)
#undef SST_X_ENUM
        SST_REC_TYPE_LIMIT /* one past the highest known type */
};

/* String ids: 0 means "no string"; the writer assigns 1, 2, 3, ... A STRING record defines
 * an id before any record in the file refers to it. */
#define SST_NO_STRING 0u

/* STRING: defines an interned string. len bytes of UTF-8 (not NUL-terminated) follow the
 * fixed part, then zero padding to the record's size. */
struct sst_rec_string {
    struct sst_rec_header h;
    uint32_t id;
    uint32_t len;
    uint32_t reserved;
    /* char bytes[len]; padding */
};
_Static_assert(sizeof(struct sst_rec_string) == 16, "string record is 16 bytes + text");
#define SST_STRING_MAX (SST_REC_MAX - sizeof(struct sst_rec_string)) /* longer ones are cut */

/* PROCESS: one per file, first record of the first chunk. */
struct sst_rec_process {
    struct sst_rec_header h;
    uint32_t pid;
    uint32_t ppid;
    int32_t rank;       /* RANK, -1 when unset */
    int32_t local_rank; /* LOCAL_RANK, -1 when unset */
    int32_t world_size; /* WORLD_SIZE, -1 when unset */
    uint32_t hostname;  /* string id */
    uint32_t cmdline;   /* string id: argv joined by single spaces */
    uint32_t exe;       /* string id: /proc/self/exe target */
    uint32_t reserved;
    uint64_t start_ns;  /* when the collector started in this process */
};
_Static_assert(sizeof(struct sst_rec_process) == 48, "process record is 48 bytes");

/* THREAD: names a host thread (by kernel tid). May repeat when a thread is renamed. */
struct sst_rec_thread {
    struct sst_rec_header h;
    uint32_t tid;
    uint32_t name; /* string id */
    uint32_t reserved;
    uint64_t ts_ns; /* when the name was seen */
};
_Static_assert(sizeof(struct sst_rec_thread) == 24, "thread record is 24 bytes");

/* ENV: one key/value of the environment record (versions, variables, limits, CPU...). */
struct sst_rec_env {
    struct sst_rec_header h;
    uint32_t key;   /* string id, e.g. "driver_version", "env.CUDA_LAUNCH_BLOCKING" */
    uint32_t value; /* string id */
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_env) == 16, "env record is 16 bytes");

/* DEVICE: one GPU visible to the process. */
struct sst_rec_device {
    struct sst_rec_header h;
    uint32_t device;       /* CUDA device ordinal as seen by the process */
    uint32_t name;         /* string id */
    uint32_t sm_count;
    uint16_t cc_major;
    uint16_t cc_minor;
    uint32_t uuid_hi_crc;  /* CRC32C of the 16-byte UUID, to match devices across ranks */
    uint64_t global_mem;   /* bytes */
    uint32_t mem_clock_khz;
    uint32_t mem_bus_width; /* bits */
    uint32_t pci_bus;
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_device) == 48, "device record is 48 bytes");

/* KERNEL: one kernel execution (CUPTI CONCURRENT_KERNEL). */
enum sst_kernel_flag {
    SST_KF_GRAPH = 1u << 0,        /* launched as part of a CUDA graph */
    SST_KF_DRIVER_LAUNCH = 1u << 1, /* launched through the driver API (Triton, compile) */
    SST_KF_COOPERATIVE = 1u << 2,
};
struct sst_rec_kernel {
    struct sst_rec_header h;
    uint32_t name;        /* string id: mangled name as CUPTI reports it */
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t correlation; /* links to the API record that launched it */
    uint32_t stream;
    uint32_t grid[3];
    uint16_t block[3];
    uint16_t registers;   /* per thread */
    uint32_t shared_static;
    uint32_t shared_dynamic;
    uint32_t graph_id;    /* 0 when not in a graph */
    uint16_t device;
    uint16_t flags;       /* enum sst_kernel_flag */
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_kernel) == 72, "kernel record is 72 bytes");

/* MEMCPY: one copy (CUPTI MEMCPY / MEMCPY2 for peer copies). The copy kinds, one row each:
 * X(NAME, number, "name") — the enum, the names (sst_copy_kind_name), and the analysis's row of
 * each (SSA_CLASSES in src/analysis/ssa.h: the category its time falls in; a kind without its
 * row there does not build). Numbers are the format's: a new kind takes the next one. H2A and
 * A2H (host to array and back) are kept distinct though rarely seen in training; OTHER stands
 * for the rest of CUPTI's kinds (array to array, to device, from device). */
#define SST_COPY_KINDS(X)                                                                          \
    X(UNKNOWN, 0, "unknown")                                                                       \
    X(H2D, 1, "h2d")                                                                               \
    X(D2H, 2, "d2h")                                                                               \
    X(D2D, 3, "d2d")                                                                               \
    X(H2H, 4, "h2h")                                                                               \
    X(P2P, 5, "p2p")                                                                               \
    X(H2A, 6, "h2a")                                                                               \
    X(A2H, 7, "a2h")                                                                               \
    X(OTHER, 8, "other")

enum sst_copy_kind {
#define SST_X_COPY_ENUM(name, num, str) SST_COPY_##name = num,
    SST_COPY_KINDS(SST_X_COPY_ENUM)
#undef SST_X_COPY_ENUM
        SST_COPY_KIND_COUNT /* one past the highest: the numbers have no hole */
};
enum sst_mem_kind {
    SST_MEM_UNKNOWN = 0,
    SST_MEM_PAGEABLE = 1,
    SST_MEM_PINNED = 2,
    SST_MEM_DEVICE = 3,
    SST_MEM_ARRAY = 4,
    SST_MEM_MANAGED = 5,
    SST_MEM_DEVICE_STATIC = 6,
    SST_MEM_MANAGED_STATIC = 7,
};
enum sst_copy_flag {
    SST_CF_ASYNC = 1u << 0, /* issued through an async API */
};
struct sst_rec_memcpy {
    struct sst_rec_header h;
    uint8_t copy_kind; /* enum sst_copy_kind */
    uint8_t src_kind;  /* enum sst_mem_kind */
    uint8_t dst_kind;  /* enum sst_mem_kind */
    uint8_t flags;     /* enum sst_copy_flag */
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes;
    uint32_t correlation;
    uint32_t stream;
    uint16_t device;
    uint16_t src_device; /* for P2P, else == device */
    uint16_t dst_device;
    uint16_t reserved;
};
_Static_assert(sizeof(struct sst_rec_memcpy) == 48, "memcpy record is 48 bytes");

/* MEMSET: one memset. */
struct sst_rec_memset {
    struct sst_rec_header h;
    uint8_t mem_kind; /* enum sst_mem_kind */
    uint8_t flags;    /* enum sst_copy_flag */
    uint16_t device;
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes;
    uint32_t correlation;
    uint32_t stream;
    uint32_t value;
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_memset) == 48, "memset record is 48 bytes");

/* SYNC: the host waited for the GPU (CUPTI SYNCHRONIZATION). */
enum sst_sync_kind {
    SST_SYNC_UNKNOWN = 0,
    SST_SYNC_EVENT = 1,          /* cudaEventSynchronize */
    SST_SYNC_STREAM_WAIT_EVENT = 2,
    SST_SYNC_STREAM = 3,         /* cudaStreamSynchronize */
    SST_SYNC_CONTEXT = 4,        /* cudaDeviceSynchronize / context sync */
};
struct sst_rec_sync {
    struct sst_rec_header h;
    uint8_t kind; /* enum sst_sync_kind */
    uint8_t reserved0;
    uint16_t device;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t correlation;
    uint32_t stream; /* 0xffffffff when not stream-specific */
    uint32_t event;  /* CUPTI event id, 0 when none */
    uint32_t reserved1;
};
_Static_assert(sizeof(struct sst_rec_sync) == 40, "sync record is 40 bytes");

/* API: one CUDA runtime or driver API call on a host thread. */
enum sst_api_domain {
    SST_API_RUNTIME = 1, /* cbid from cupti_runtime_cbid.h */
    SST_API_DRIVER = 2,  /* cbid from cupti_driver_cbid.h */
};
struct sst_rec_api {
    struct sst_rec_header h;
    uint8_t domain; /* enum sst_api_domain */
    uint8_t reserved0;
    uint16_t reserved1;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t tid;
    uint32_t cbid;
    uint32_t correlation;
    int32_t result; /* cudaError_t / CUresult returned */
};
_Static_assert(sizeof(struct sst_rec_api) == 40, "api record is 40 bytes");

/* NVTX_PUSH, NVTX_POP, NVTX_START, NVTX_END, NVTX_MARK share one layout.
 * PUSH opens a thread range (closed by the next POP on the same tid and domain);
 * START/END pair by range_id and may cross threads; MARK is an instant. */
enum sst_payload_type {
    SST_PAYLOAD_NONE = 0,
    SST_PAYLOAD_U64 = 1,
    SST_PAYLOAD_I64 = 2,
    SST_PAYLOAD_F64 = 3, /* IEEE-754 bits in payload */
    SST_PAYLOAD_U32 = 4,
    SST_PAYLOAD_I32 = 5,
    SST_PAYLOAD_F32 = 6,
};
struct sst_rec_nvtx {
    struct sst_rec_header h;
    uint32_t tid;
    uint64_t ts_ns;
    uint64_t range_id;   /* START/END: the nvtxRangeId_t; others 0 */
    uint64_t payload;    /* raw bits, interpreted by payload_type */
    uint32_t domain;     /* string id of the domain name, SST_NO_STRING for the default */
    uint32_t message;    /* string id, SST_NO_STRING when none (e.g. POP) */
    uint32_t category;
    uint32_t color;      /* ARGB, 0 when unset */
    uint8_t payload_type; /* enum sst_payload_type */
    uint8_t reserved[7];
};
_Static_assert(sizeof(struct sst_rec_nvtx) == 56, "nvtx record is 56 bytes");

/* NVTX_DOMAIN: a domain was created (name only; records refer to it by string id). */
struct sst_rec_nvtx_domain {
    struct sst_rec_header h;
    uint32_t name; /* string id */
    uint64_t ts_ns;
};
_Static_assert(sizeof(struct sst_rec_nvtx_domain) == 16, "nvtx domain record is 16 bytes");

/* HOST_SAMPLE: cumulative counters of the process, read periodically. Rates are the
 * differences between consecutive samples. */
struct sst_rec_host_sample {
    struct sst_rec_header h;
    uint32_t threads;           /* threads in the process */
    uint64_t ts_ns;
    uint64_t cpu_user_ns;       /* this process */
    uint64_t cpu_sys_ns;
    uint64_t child_user_ns;     /* live children (DataLoader workers) summed */
    uint64_t child_sys_ns;
    uint64_t read_bytes;        /* /proc/self/io read_bytes (storage), self + children */
    uint64_t rchar;             /* /proc/self/io rchar (all reads incl. page cache) */
    uint64_t vol_ctxsw;
    uint64_t invol_ctxsw;
    uint64_t rss_bytes;
    uint32_t children;          /* live child processes seen */
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_host_sample) == 96, "host sample is 96 bytes");

/* DROPPED: records lost, counted where they were lost. */
enum sst_drop_source {
    SST_DROP_HOST_BUFFER = 1, /* collector memory cap reached */
    SST_DROP_CUPTI = 2,       /* CUPTI reported dropped activity records */
    SST_DROP_WRITE = 3,       /* chunks that could not be written (disk full...) */
    SST_DROP_STRING = 4,      /* strings cut or not interned */
};
struct sst_rec_dropped {
    struct sst_rec_header h;
    uint8_t source; /* enum sst_drop_source */
    uint8_t reserved0;
    uint16_t rec_type; /* enum sst_rec_type of what was dropped, 0 when mixed/unknown */
    uint64_t ts_ns;
    uint64_t count;
};
_Static_assert(sizeof(struct sst_rec_dropped) == 24, "dropped record is 24 bytes");

/* CAPTURE: recording switched on or off, and why. */
enum sst_capture_reason {
    SST_CAP_START = 1,        /* collector started */
    SST_CAP_WINDOW = 2,       /* --capture window edge */
    SST_CAP_CONFLICT = 3,     /* another CUPTI client holds CUPTI */
    SST_CAP_TAKEN_OVER = 4,   /* torch.profiler (Kineto) took the callbacks over */
    SST_CAP_EXIT = 5,         /* process exit */
    SST_CAP_ERROR = 6,        /* CUPTI or I/O error */
    SST_CAP_SAMPLED = 7,      /* launch calls sampled: this step is (not) one of the 1 in N */
    SST_CAP_SLOW = 8,         /* PY_STACKS: the sampler ticks at its rate outside GPU windows
                                 (ENV pyshim.host_samples_outside_hz) from here on */
    SST_CAP_FULL = 9,         /* PY_STACKS: the sampler ticks at its full rate from here on */
};
struct sst_rec_capture {
    struct sst_rec_header h;
    uint8_t on;     /* 1 = recording, 0 = stopped */
    uint8_t reason; /* enum sst_capture_reason */
    uint16_t what;  /* enum sst_capture_what bits */
    uint64_t ts_ns;
};
/* What a CAPTURE record turns on or off. */
enum sst_capture_what {
    SST_CAPTURE_GPU = 1,
    SST_CAPTURE_NVTX = 2,
    SST_CAPTURE_HOST = 4,
    SST_CAPTURE_PY_STACKS = 8, /* the Python shim's stack sampler (PY_SAMPLE records) */
    SST_CAPTURE_LAUNCHES = 16, /* kernel launch calls' API records (STEPSCOPE_LAUNCH_SAMPLE) */
};
_Static_assert(sizeof(struct sst_rec_capture) == 16, "capture record is 16 bytes");

/* STEP: a training-step boundary. */
enum sst_step_phase { SST_STEP_BEGIN = 1, SST_STEP_END = 2, SST_STEP_MARK = 3 };
enum sst_step_source {
    SST_STEPSRC_API = 1,       /* stepscope_step_begin/end from the public header */
    SST_STEPSRC_PYSHIM = 2,    /* the Python shim's optimizer hook */
    SST_STEPSRC_PROFILER = 3,  /* ProfilerStep#N */
    SST_STEPSRC_USER = 4,      /* an NVTX range the user named */
    SST_STEPSRC_DETECTED = 5,  /* inferred from kernel periodicity */
};
struct sst_rec_step {
    struct sst_rec_header h;
    uint8_t phase;  /* enum sst_step_phase */
    uint8_t source; /* enum sst_step_source */
    uint16_t reserved0;
    uint64_t ts_ns;
    uint64_t step;  /* step number as the program counts it */
    uint32_t tid;
    uint32_t reserved1;
};
_Static_assert(sizeof(struct sst_rec_step) == 32, "step record is 32 bytes");

/* MEMORY: a device allocation or free (CUPTI MEMORY2). */
enum sst_memop { SST_MEMOP_ALLOC = 1, SST_MEMOP_FREE = 2 };
struct sst_rec_memory {
    struct sst_rec_header h;
    uint8_t op;       /* enum sst_memop */
    uint8_t mem_kind; /* enum sst_mem_kind */
    uint16_t device;
    uint64_t ts_ns;
    uint64_t address;
    uint64_t bytes;
    uint32_t correlation;
    uint32_t stream;
};
_Static_assert(sizeof(struct sst_rec_memory) == 40, "memory record is 40 bytes");

/* OVERHEAD: time CUPTI or the driver spent on its own work (buffer flush, instrumentation). */
struct sst_rec_overhead {
    struct sst_rec_header h;
    uint32_t kind; /* CUpti_ActivityOverheadKind as reported */
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t tid;  /* thread the overhead ran on, 0 when not a thread */
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_overhead) == 32, "overhead record is 32 bytes");

/* NOTICE: something the producer wants the reader of the trace to know, in words. */
enum sst_notice_level { SST_NOTE_INFO = 1, SST_NOTE_WARN = 2, SST_NOTE_ERROR = 3 };
struct sst_rec_notice {
    struct sst_rec_header h;
    uint8_t level; /* enum sst_notice_level */
    uint8_t reserved0;
    uint16_t code; /* a stable number for tools: see docs/trace-format.md */
    uint64_t ts_ns;
    uint32_t message; /* string id */
    uint32_t reserved1;
};
_Static_assert(sizeof(struct sst_rec_notice) == 24, "notice record is 24 bytes");

enum sst_notice_code {
    SST_NOTICE_CUPTI_UNAVAILABLE = 1, /* libcupti missing or failed to initialise */
    SST_NOTICE_CUPTI_CONFLICT = 2,    /* another CUPTI subscriber (nsys, ...) */
    SST_NOTICE_CUPTI_TAKEN_OVER = 3,  /* torch.profiler / Kineto took the buffers over */
    SST_NOTICE_WRITE_ERROR = 4,       /* disk full, unwritable output */
    SST_NOTICE_MEMORY_CAP = 5,        /* collector memory cap reached, records dropped */
    SST_NOTICE_FORKED = 6,            /* this file belongs to a fork()ed child */
    SST_NOTICE_OTHER = 7,
};

/* COST: the collector's own time on one thread (since v2). Counters are cumulative
 * from the thread's first counted event, like HOST_SAMPLE: the cost in an interval is the
 * difference between two records of the same tid and kind. Where timing every event would cost
 * more than it tells, one event in N is timed: the estimated total is ns x events / timed. */
enum sst_cost_kind {
    SST_COST_API_CALLBACK = 1,  /* recording an API call in our CUPTI callback (exit half) */
    SST_COST_NVTX_CALLBACK = 2, /* our NVTX callbacks: from their timestamp to the record */
    SST_COST_CUPTI_CONVERT = 3, /* converting one completed CUPTI activity buffer */
    SST_COST_WRITER = 4,        /* one writer round, less the conversion it did itself */
    SST_COST_THREAD_NAME = 5,   /* reading a thread's name from /proc */
    SST_COST_CUPTI_CONTROL = 6, /* switching CUPTI (window edges, hand-over, detach) */
    SST_COST_PY_STACK = 7,      /* reading Python stacks without the GIL: a CUDA call's site on
                                 * the program's thread, a sample on the native sampler's */
    SST_COST_KIND_LIMIT         /* one past the last kind */
};
struct sst_rec_cost {
    struct sst_rec_header h;
    uint8_t kind; /* enum sst_cost_kind */
    uint8_t reserved0;
    uint16_t reserved1;
    uint32_t tid; /* thread the time was spent on */
    uint32_t reserved2;
    uint64_t ts_ns;  /* when the counters were read */
    uint64_t events; /* events counted (callbacks, buffers, rounds, names, switches) */
    uint64_t timed;  /* of which timed */
    uint64_t ns;     /* time spent in the timed ones */
};
_Static_assert(sizeof(struct sst_rec_cost) == 48, "cost record is 48 bytes");

/* GRAPH: one CUDA graph launch executed on the GPU, as one interval (CUPTI GRAPH_TRACE, the
 * collector's STEPSCOPE_GRAPHS=graph mode); its nodes then have no records of their own. */
struct sst_rec_graph {
    struct sst_rec_header h;
    uint16_t device;     /* where the first node ran (0xffff: on the host / unknown) */
    uint16_t end_device; /* where the last node ran */
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t correlation; /* links to the API record of the launch (cudaGraphLaunch...) */
    uint32_t graph_id;    /* CUPTI's id of the launched graph, as in KERNEL.graph_id */
    uint32_t stream;
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_graph) == 40, "graph record is 40 bytes");
/* ---- Python stack samples (the shim's sampler, through stepscope_host_api_v1) ----------
 * Frames and stacks are interned by the producer: a PY_FRAME defines a frame id, a PY_STACK a
 * stack id as frame ids leaf first, and each PY_SAMPLE names one thread's stack at an instant.
 * Both id spaces count from 1 (0: none) and are separate; an id is defined before any record
 * of the file that uses it, and a later definition of the same id replaces the earlier one. */

/* PY_FRAME: one position in Python code (function, file, line). */
struct sst_rec_py_frame {
    struct sst_rec_header h;
    uint32_t id;         /* frame id */
    uint32_t function;   /* string id: co_qualname (3.11+) or co_name */
    uint32_t file;       /* string id: co_filename */
    uint32_t line;       /* line being executed, 0 when unknown */
    uint32_t first_line; /* co_firstlineno: with file and function, names the function */
};
_Static_assert(sizeof(struct sst_rec_py_frame) == 24, "py_frame record is 24 bytes");

/* PY_STACK: a stack, depth frame ids leaf first (innermost call first), then zero padding. */
enum sst_py_stack_flag {
    SST_PYSTACK_TRUNCATED = 1u << 0, /* the thread's stack was deeper: the root side is cut */
};
struct sst_rec_py_stack {
    struct sst_rec_header h;
    uint32_t id;     /* stack id */
    uint16_t depth;  /* frame ids that follow */
    uint16_t flags;  /* enum sst_py_stack_flag */
    uint32_t reserved;
    /* uint32_t frames[depth]; padding */
};
_Static_assert(sizeof(struct sst_rec_py_stack) == 16, "py_stack record is 16 bytes + frames");
#define SST_PYSTACK_MAX_DEPTH ((SST_REC_MAX - sizeof(struct sst_rec_py_stack)) / 4)

/* PY_SAMPLE: where one Python thread was at ts_ns. */
struct sst_rec_py_sample {
    struct sst_rec_header h;
    uint32_t tid;    /* kernel thread id, 0 when the sampler could not tell */
    uint64_t ts_ns;
    uint32_t stack;  /* stack id; 0: the thread had no Python frame */
    uint32_t lag_us; /* how late the sample was taken after it was due (waiting for the GIL,
                        scheduling), saturated at 0xffffffff */
};
_Static_assert(sizeof(struct sst_rec_py_sample) == 24, "py_sample record is 24 bytes");

/* PY_CALL: where one Python thread was while it waited in a synchronising CUDA call (the
 * sampler is woken when such a call has blocked for a while: a snapshot taken then shows the
 * line that issued it, however short the wait). Not a sample: it stands for no time of its
 * own; the API record with the same correlation id says how long the call blocked. */
struct sst_rec_py_call {
    struct sst_rec_header h;
    uint32_t tid;         /* kernel thread id of the thread in the call */
    uint64_t ts_ns;       /* the snapshot, inside the call when it is on time */
    uint32_t stack;       /* stack id (PY_STACK) */
    uint32_t correlation; /* the API call's CUPTI correlation id (its API record's) */
};
_Static_assert(sizeof(struct sst_rec_py_call) == 24, "py_call record is 24 bytes");

/* ---- damage: the one model of what is wrong with an input --------------------------------
 * Every reader fills it (sst_reader_damage: a .sstrace's own damage, and through DAMAGE
 * records what an importer found wrong with the capture it converted: a Kineto JSON cut
 * short, an nsys SQLite file that fails its integrity check), every verb says it and exits
 * non-zero unless --accept-damage, every writer carries it into its output.
 * One row per kind: X(NAME, number, "name", "what a count of it counts"). The numbers are part
 * of the format (DAMAGE.kind): never renumber, only append. */
#define SST_DAMAGE_KINDS(X)                                                                    \
    X(TRUNCATED, 1, "truncated", "the input ends early")                                       \
    X(CORRUPT, 2, "corrupt", "damaged regions skipped")                                        \
    X(LOST, 3, "lost", "records the input counts that were not read")                          \
    X(DROPPED, 4, "dropped", "records dropped while recording")                                \
    X(DUPLICATE, 5, "duplicate", "repeated chunks, records or rows skipped")                   \
    X(ORDER, 6, "order", "chunks out of their sequence")                                       \
    X(INCONSISTENT, 7, "inconsistent", "records with impossible values dropped")

enum sst_damage_kind {
#define SST_X_DAMAGE_ENUM(name, num, str, what) SST_DAMAGE_##name = num,
    SST_DAMAGE_KINDS(SST_X_DAMAGE_ENUM)
#undef SST_X_DAMAGE_ENUM
        SST_DAMAGE_LIMIT /* one past the highest known kind */
};

/* Times at or past 2^62 ns (146 years) are impossible in every clock a trace names: a record
 * holding one is inconsistent (the Kineto and nsys importers refuse such values too). */
#define SST_TIME_LIMIT (1ull << 62)

/* DAMAGE: what a producer found wrong with its own input (an importer: the capture was cut,
 * failed its integrity check, held duplicates or impossible values, which it left out), so
 * that every reader of the trace reports that damage as the trace's own. */
struct sst_rec_damage {
    struct sst_rec_header h;
    uint8_t kind; /* enum sst_damage_kind */
    uint8_t reserved0[3];
    uint64_t count;  /* how many (records, rows, regions); 1 for a cut */
    uint64_t offset; /* where in the input: a byte offset, a row id; UINT64_MAX unknown */
    uint32_t detail; /* string id: one line saying what and where, or 0 */
    uint32_t reserved;
};
_Static_assert(sizeof(struct sst_rec_damage) == 32, "damage record is 32 bytes");

/* CLOCK: the trace's clock and CLOCK_REALTIME read as one pair (since v5), so the traces of
 * several hosts, each on its own boot-relative clock, can be laid on one timeline through UTC.
 * Read as MONOTONIC, REALTIME, MONOTONIC: ts_ns is the midpoint of the two monotonic reads and
 * spread_ns their distance, the pair's uncertainty (a preempted read shows as a large spread).
 * The collector writes one when the trace opens, one every 10 s and one at close. */
struct sst_rec_clock {
    struct sst_rec_header h;
    uint32_t spread_ns; /* second monotonic read - first, saturated at 0xffffffff */
    uint64_t ts_ns;     /* the file's clock: midpoint of the two reads */
    uint64_t unix_ns;   /* CLOCK_REALTIME, ns since 1970 (UTC) */
};
_Static_assert(sizeof(struct sst_rec_clock) == 24, "clock record is 24 bytes");

/* Each kind's layout is a whole number of 8-byte units and more than the header. */
#define SST_X_LAYOUT_CHECK(name, num, str, layout, time)                                       \
    _Static_assert(sizeof(struct sst_rec_##layout) % SST_REC_ALIGN == 0 &&                     \
                       sizeof(struct sst_rec_##layout) > sizeof(struct sst_rec_header),        \
                   #name " layout: a multiple of 8 bytes, more than the header");
SST_REC_TYPES(SST_X_LAYOUT_CHECK)
#undef SST_X_LAYOUT_CHECK

/* The fixed size of each record type, for the reader's "too small" check and for the writer.
 * Variable-length records (STRING, PY_STACK) give their fixed prefix. A type this version does
 * not know has only its header known: readers skip it by its size. */
static inline size_t sst_rec_min_size(uint16_t type)
{
    static const uint16_t sizes[SST_REC_TYPE_LIMIT] = {
#define SST_X_SIZE(name, num, str, layout, time) [num] = sizeof(struct sst_rec_##layout),
        SST_REC_TYPES(SST_X_SIZE)
#undef SST_X_SIZE
    };
    return type < SST_REC_TYPE_LIMIT && sizes[type] ? sizes[type] : sizeof(struct sst_rec_header);
}

/* Name of a record type as used by `info` and in docs ("kernel", "nvtx_push"...), or NULL. */
const char *sst_rec_type_name(uint16_t type);

#endif
