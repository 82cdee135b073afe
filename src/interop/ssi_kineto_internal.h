/*
 * ssi_kineto_internal.h — what the Kineto importer's files share (prefix ki_, private to
 * src/interop/ssi_kineto*.c).
 *
 * ssi_kineto.c       the driver: input (zlib reads plain and gzip alike), the reader, the
 *                    temporary output and its rename; error lines
 * ssi_kineto_feed.c  the input read ahead on a second thread, piece by piece
 * ssi_kineto_lex.c   the streaming JSON reader: tokens -> the parser's callbacks
 * ssi_kineto_parse.c the callbacks: a stack of frames that knows where in the document it is,
 *                    and fills one event (struct ki_event) at a time
 * ssi_kineto_emit.c  one finished event -> stepscope records (sst_writer)
 * ssi_kineto_map.c   names -> numbers: categories, memcpy/memset/sync kinds, API cbids; the
 *                    exact decimal parser for timestamps
 *
 * Memory is bounded by constants (the feed's two pieces, the reader's buffer — beyond them
 * only a token up to KI_TOKEN_MAX —, the frame stack, one event's fields, a name buffer, a
 * correlation cache, a few pending copies, the keys of recent events) plus the writer's
 * interned strings; nothing grows with the number of events.
 */
#ifndef SSI_KINETO_INTERNAL_H
#define SSI_KINETO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include "trace/sst_format.h"
#include "trace/sst_writer.h"

#define KI_MAX_DEPTH 32                /* JSON nesting the importer follows; deeper: error */
#define KI_TOKEN_MAX (16u << 20)       /* longest string or number token accepted */
#define KI_NAME_MAX SST_STRING_MAX     /* event names are kept up to what a record holds */
#define KI_ARG_NAME_MAX 1024           /* args.name of metadata events (thread names) */
#define KI_VALUE_MAX 64                /* top-level version strings */
#define KI_MAX_DEVICES 64              /* deviceProperties entries kept */
#define KI_TS_LIMIT (INT64_C(1) << 62) /* |time| in ns beyond this is absurd */
#define KI_CORR_SLOTS 65536            /* API correlation -> async flag, direct-mapped */
#define KI_PENDING 64                  /* copies waiting for their API call */
#define KI_SEEN_SLOTS 65536            /* recent GPU events and API calls, for repeats */
#define KI_KEY_SLOTS 256               /* member-name lookup (power of two > the names read) */

/* Event categories ("cat") the importer tells apart; KC_OTHER is any other text. */
enum ki_cat {
    KC_NONE = 0, /* no "cat" key */
    KC_OTHER,
    KC_KERNEL,
    KC_MEMCPY,
    KC_MEMSET,
    KC_RUNTIME,
    KC_DRIVER,
    KC_SYNC,
    KC_USER_ANNOTATION,
    KC_CPU_OP,
    KC_PYTHON,
    KC_GPU_ANNOTATION,
    KC_KNOWN_SKIPPED, /* a Kineto category with nothing to import (ac2g flows, overhead...) */
};

/* Fields of an event object and of its "args" that the importer reads: bits of ki_event.have. */
enum ki_field {
    KF_PH = 1u << 0,
    KF_CAT = 1u << 1,
    KF_NAME = 1u << 2,
    KF_PID = 1u << 3,
    KF_TID = 1u << 4,
    KF_TS = 1u << 5,
    KF_DUR = 1u << 6,
    KF_DEVICE = 1u << 7,
    KF_STREAM = 1u << 8,
    KF_CORR = 1u << 9,
    KF_BYTES = 1u << 10,
    KF_REGS = 1u << 11,
    KF_SHMEM = 1u << 12,
    KF_CBID = 1u << 13,
    KF_GRID = 1u << 14,
    KF_BLOCK = 1u << 15,
    KF_EVENT_ID = 1u << 16,
    KF_ARG_NAME = 1u << 17,
    KF_SRC_DEV = 1u << 18,
    KF_DST_DEV = 1u << 19,
    KF_ARGS = 1u << 20,
};

/* One event of traceEvents, as far as it was read. Strings point into buffers the parser
 * owns (valid until the next event). pid/tid may be JSON strings: *_num says they parsed as
 * numbers. */
struct ki_event {
    uint64_t index;      /* position in traceEvents, for messages */
    uint32_t have;       /* enum ki_field bits */
    uint32_t bad;        /* fields present with a wrong type or an absurd value */
    const char *bad_msg; /* the first of them, said as an error line (when bad != 0) */
    char ph;
    uint8_t cat;
    uint8_t pid_num, tid_num;
    int64_t pid, tid;
    int64_t ts, dur; /* ns; ts relative to baseTimeNanoseconds */
    const char *name;
    size_t name_len;
    const char *arg_name;
    size_t arg_name_len;
    int64_t device, stream, corr, bytes, regs, shmem, cbid, event_id, src_dev, dst_dev;
    int64_t grid[3], block[3];
};

struct ki_device {
    int64_t id, total_mem, cc_major, cc_minor, sms;
    char name[128];
};

/* A copy or memset waiting for its API call, which says whether it was issued async. */
struct ki_pending {
    uint32_t corr;
    uint16_t type; /* SST_REC_MEMCPY or SST_REC_MEMSET */
    union {
        struct sst_rec_memcpy c;
        struct sst_rec_memset s;
    } r;
};

/* What the importer knows about the trace outside traceEvents, and the output. */
struct ki_out {
    struct sst_writer *w; /* NULL until the first event (the header needs the pid) */
    int fd;               /* the temporary output, until the writer owns it */
    struct sst_compressor zc;
    const char *src_name; /* the input's path as given, for the import.source env record */
    int64_t base_ns;
    int have_base, base_late; /* base_late: baseTimeNanoseconds came after the first event */
    uint64_t truncated_at;    /* the input ended inside the document at this byte (0: not) */
    uint32_t pid;             /* the profiled process: pid of the first host-side event */
    int have_pid;
    int32_t rank, world_size;
    char driver_ver[KI_VALUE_MAX], runtime_ver[KI_VALUE_MAX], cupti_ver[KI_VALUE_MAX];
    struct ki_device dev[KI_MAX_DEVICES];
    size_t n_dev, n_dev_written;
    uint64_t first_ns, last_ns;
    uint32_t dom_stepscope, msg_data; /* string ids, 0 until the first data range */
    /* correlation id -> 1 + (API was async); 0: not seen (direct-mapped, newest wins) */
    uint32_t corr_key[KI_CORR_SLOTS];
    uint8_t corr_async[KI_CORR_SLOTS];
    struct ki_pending pending[KI_PENDING];
    size_t n_pending;
    /* counts, for the env records and for "is this Kineto at all" */
    uint64_t events, recognised, imported, skipped_cpu, skipped_other, unknown_cbid;
    /* damage (issue #41), written as DAMAGE records at the end: the cut, events repeated
     * exactly (a hash of every field the import keeps, direct-mapped: repeats among recent
     * events), events before the capture's time base; the first of each in words */
    char cut_msg[160];
    uint64_t seen[KI_SEEN_SLOTS];
    uint64_t repeats, impossible;
    char first_repeat[96], first_impossible[96];
};

/* ---- ssi_kineto_parse.c ---- */

/* Where the parser is: the kind of each open container. */
enum ki_frame {
    KFR_SKIP = 0, /* something the importer does not read: only nesting is followed */
    KFR_TOP,      /* the document object */
    KFR_EVENTS,   /* traceEvents */
    KFR_EVENT,    /* one event */
    KFR_ARGS,     /* its args */
    KFR_DIMS,     /* args.grid / args.block */
    KFR_DEVPROPS, /* deviceProperties */
    KFR_DEV,      /* one of them */
    KFR_DIST,     /* distributedInfo */
};

/* A member name the parser reads: its first 8 bytes (zeros after), 1 + its row, where. */
struct ki_key_slot {
    uint64_t head;
    uint8_t row, frame, len, key;
};

struct ki_parser {
    struct ki_out *out;
    uint8_t frame[KI_MAX_DEPTH]; /* enum ki_frame of each open container */
    uint8_t key[KI_MAX_DEPTH];   /* the member being read in each open object */
    int depth;
    int dim;           /* next index of grid/block */
    int seen_events;   /* a traceEvents array was met */
    uint64_t n_events; /* events started */
    struct ki_event ev;
    struct ki_device dev;
    char name_buf[KI_NAME_MAX + 8];
    char arg_name_buf[KI_ARG_NAME_MAX];
    char bad_msg[200];
    struct ki_key_slot key_slot[KI_KEY_SLOTS]; /* member names (ssi_kineto_parse.c) */
    int key_slot_built;
    int err;       /* negative ss_error that stopped the parse; 0 */
    char msg[320]; /* its line */
};

/* What the reader (ssi_kineto_lex.c) calls for each token, in document order. Each returns 1
 * to go on, 0 to stop (p->err and p->msg say why). */
int ki_cb_null(struct ki_parser *p);
int ki_cb_boolean(struct ki_parser *p, int v);
int ki_cb_number(struct ki_parser *p, const char *s, size_t n); /* the number's text */
int ki_cb_string(struct ki_parser *p, const unsigned char *s, size_t n);
int ki_cb_start_map(struct ki_parser *p);
int ki_cb_map_key(struct ki_parser *p, const unsigned char *s, size_t n);
int ki_cb_end_map(struct ki_parser *p);
int ki_cb_start_array(struct ki_parser *p);
int ki_cb_end_array(struct ki_parser *p);

/* ---- ssi_kineto_lex.c ---- */

#define KI_LEX_PAD 64             /* bytes after the data's NUL that the scanners may read */
#define KI_FEED_HEAD (64u << 10) /* room before each piece of the feed for the unread tail */

struct ki_lex {
    unsigned char *buf;   /* the data: own, or a piece of the feed; buf[end] is NUL */
    unsigned char *own;   /* own_cap + KI_LEX_PAD bytes */
    size_t own_cap;
    size_t pos, end;      /* unread data: buf[pos, end) */
    uint64_t base;        /* document offset of buf[0] */
    int eof;              /* no more data will come: a token at the end is complete */
    int depth, state;
    unsigned char open[KI_MAX_DEPTH + 1]; /* '{' or '[' of each open container */
    const char *err;                      /* KL_SYNTAX: what is wrong, yajl's wording */
    uint64_t err_at;                      /* KL_SYNTAX, KL_BIG: the document offset */
};

enum { KL_SYNTAX = -1, KL_STOP = -2, KL_BIG = -3 }; /* ki_lex_run's failures */

int ki_lex_init(struct ki_lex *l, size_t cap); /* 0 or SS_ENOMEM */
void ki_lex_free(struct ki_lex *l);
/* Where the next read goes (at least `want` bytes): the unread tail moved to the front, the
 * buffer grown when the tail leaves less. 0 or SS_ENOMEM. */
int ki_lex_room(struct ki_lex *l, size_t want, unsigned char **at, size_t *room);
void ki_lex_added(struct ki_lex *l, size_t n); /* n bytes were read into the room */
/* Goes on in a piece of the feed: n bytes at mem + KI_FEED_HEAD, KI_LEX_PAD bytes after them;
 * the unread tail put in front. -1 (nothing done) when the tail is longer than KI_FEED_HEAD. */
int ki_lex_adopt(struct ki_lex *l, unsigned char *mem, size_t n);
/* Every complete token of the buffer to the callbacks; an incomplete one stays unread (at the
 * end of the input, l->eof set first, the last number completes). 0 or a KL_ failure. */
int ki_lex_run(struct ki_lex *l, struct ki_parser *p);
int ki_lex_complete(const struct ki_lex *l); /* the document was closed */

/* ---- ssi_kineto_map.c ---- */

enum ki_cat ki_cat_of(const char *s, size_t n);
/* JSON number text -> value * 10^scale (scale 3: microseconds -> ns), rounded to nearest.
 * 0, or -1 when it does not fit in +-KI_TS_LIMIT. */
int ki_parse_scaled(const char *s, size_t n, int scale, int64_t *out);
/* "Memcpy HtoD (Pageable -> Device)" -> copy kind and memory kinds (0 when unknown). */
void ki_memcpy_kinds(const char *name, size_t n, uint8_t *kind, uint8_t *src, uint8_t *dst);
uint8_t ki_memset_kind(const char *name, size_t n); /* "Memset (Device)" */
uint8_t ki_sync_kind(const char *name, size_t n);   /* "Stream Sync" ... */
/* CUPTI cbid of an API call named as Kineto names it ("cudaLaunchKernel", "cuLaunchKernel"):
 * the version suffix stripped. 0 when the name is not in the analysis's table. */
uint32_t ki_cbid_of(uint8_t domain, const char *name, size_t n);
/* What stepscope does with a Kineto annotation name: 0 skip, 1 keep as a range, 2 step
 * marker (ProfilerStep#N), 3 data loading (enumerate(DataLoader)#...). */
enum ki_range { KR_SKIP = 0, KR_RANGE, KR_STEP, KR_DATA };
enum ki_range ki_range_kind(uint8_t cat, const char *name, size_t n);
/* "thread 24110 (pt_autograd_0)" -> "pt_autograd_0" (the name itself when not that form). */
void ki_thread_name(const char *s, size_t n, const char **out, size_t *out_len);

/* ---- ssi_kineto_feed.c ---- */

struct ki_feed;
/* Starts the thread reading gz in pieces of `size` bytes. 0, or -1: read without it. */
int ki_feed_start(struct ki_feed **f, gzFile gz, size_t size);
/* The next piece (waits for it): its buffer in *mem (data at KI_FEED_HEAD), gzoffset after it
 * in *zoff; returns gzread's count (0: the end, < 0: an error; the thread then has stopped). */
int ki_feed_next(struct ki_feed *f, unsigned char **mem, uint64_t *zoff);
void ki_feed_done(struct ki_feed *f, const unsigned char *mem); /* the parser left that piece */
void ki_feed_stop(struct ki_feed *f); /* joins, frees; gz is the caller's again. NULL: no-op */

/* ---- ssi_kineto_emit.c ---- */

/* Turns one complete event into records. 0, or a negative ss_error with msg filled. */
int ki_emit_event(struct ki_out *o, const struct ki_event *e, char *msg, size_t cap);
/* A deviceProperties entry (written at once, or when the writer opens). */
int ki_add_device(struct ki_out *o, const struct ki_device *d);
/* After the last event: pending copies, the import's counts. 0 or a negative ss_error. */
int ki_emit_finish(struct ki_out *o, char *msg, size_t cap);

#endif
