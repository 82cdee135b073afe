/*
 * sst_reader.c — the one reader of the trace format (see sst_reader.h,
 * docs/trace-format.md).
 *
 * Reading is a loop over chunks: load a chunk (header, payload, checksum), then hand out its
 * records one by one from the buffer. Nothing from the file is trusted: every length is
 * checked against the buffer it indexes and against the file size before it is used. A chunk
 * that fails a check is skipped by scanning forward for the next chunk magic whose chunk
 * passes every check; a chunk that runs past the end of the file with nothing valid after it
 * is a truncation (the writer was killed), not damage.
 *
 * Memory is bounded by one chunk (stored + decompressed, each <= SST_CHUNK_MAX_RAW), a 64 KiB
 * scan window used only while resynchronising, the string table, and with SST_READ_MAP a
 * mapped window of the file (MAP_WINDOW, or one chunk when that is larger).
 *
 * Input. A regular file opened by path is read with pread(2), one whole chunk (1 MiB by
 * default) per call, straight into the chunk buffer; other inputs (pipes, fmemopen streams
 * handed to sst_reader_open_file) go through stdio. pread of a range that another process
 * truncated just returns short, which reads as a truncated chunk. The size is taken once at
 * open: bytes a live writer appends later are not read.
 * With SST_READ_MAP (the analysis sets it: two passes over the whole file, where the
 * kernel's copy out of the page cache was 15 % of the time) the file is mapped instead, a
 * window at a time, and chunks are checked and read in place. A truncation zaps the mapped
 * pages past the new end of file (MAP_PRIVATE too) and the next access raises SIGBUS, which
 * only a process-wide handler can catch: the reader installs one when SIGBUS has its default
 * action (and reads with pread when it does not). It ends the program with one line on stderr
 * for a fault inside a reader's window, and restores the default action for any other.
 * Every length is checked exactly as with pread; the mapping only replaces the copy.
 */
#include "sst_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sst_crc32c.h"
#include "sst_names.h"
#include "sst_zstd.h"
#include "util/ss_error.h"
#include "util/ss_progress.h"

#define CHUNK_HDR sizeof(struct sst_chunk_header)
#define SCAN_WINDOW (64u << 10)
#define NO_OFFSET UINT64_MAX

/* Outcome of examining the bytes at one offset as a chunk. */
enum chunk_check { CHUNK_OK = 0, CHUNK_SHORT = 1, CHUNK_BAD = 2 };

struct str_entry {
    uint32_t id; /* 0: empty slot (id 0 is never defined) */
    uint32_t len;
    const char *text; /* in a str_block */
};

struct str_block {
    struct str_block *next;
    size_t used, cap;
    char data[];
};

/* Sequence numbers not read yet below the highest one read: [lo, hi]. */
struct seq_gap {
    uint64_t lo, hi;
};
#define SEQ_GAPS 64
#define TIME_SLACK_NS 1000000000ull /* a record may lie this far outside the recording */
#define INCONSISTENT_SAID 8        /* impossible records named through on_problem per pass */

/* A chunk whose checksum passed on the first read, for sst_reader_rewind. */
struct seen_chunk {
    uint64_t off;
    struct sst_chunk_header h;
    uint8_t *raw; /* its payload decompressed, kept for a re-read (sst_reader_keep_raw), or NULL */
};
#define SEEN_MAX 65536 /* chunks remembered (2 MiB); 64 GiB of trace at the default chunk size */

struct sst_reader {
    struct sst_reader_hot hot; /* first: sst_reader_next's inline part reads it (header) */
    FILE *f;            /* the stdio input, or NULL when reading fd (pread, or mapped) */
    int fd;             /* a regular file opened by sst_reader_open, or -1 */
    struct sst_reader_opts opts;
    struct sst_file_header hdr;
    uint64_t file_size; /* NO_OFFSET when the stream cannot tell */
    uint64_t fpos;      /* where the stream's position is, to skip needless seeks */
    uint64_t pos;       /* offset of the next chunk to examine */
    struct sst_chunk_header ch; /* the chunk last loaded */
    const uint8_t *data; /* the loaded chunk's stored payload: in `stored` or in the map */
    uint8_t *stored, *raw, *scan;
    size_t stored_cap, raw_cap;
    struct map_slot *slot; /* SST_READ_MAP granted: where the mapped window is announced */
    const uint8_t *map;    /* a window of the file mapped read-only, or NULL */
    uint64_t map_off;      /* its file offset (page-aligned) */
    size_t map_len;
    int map_whole;         /* sst_reader_map_whole: the map is the whole file, kept to the end */
    void *zctx;
    struct seen_chunk *seen; /* fd mode: chunks checked on the first read, by offset */
    size_t n_seen, seen_cap, seen_next; /* seen_next: a re-read's place in seen */
    int rereading;           /* after sst_reader_rewind */
    size_t cur_seen;         /* the loaded chunk's entry in seen, or SIZE_MAX */
    size_t raw_keep, raw_kept; /* sst_reader_keep_raw's budget, bytes kept under it */
    struct stat id;          /* fd mode: the file at open, to tell a change before a rewind */
    uint64_t chunk_off; /* file offset of the current chunk, for messages */
    char reason[96];    /* why the last chunk check failed */
    int done, err;
    struct sst_read_status st;
    struct str_entry *strs;
    size_t str_slots, str_count;
    struct str_block *blocks;
    char line[512];
    /* chunk sequence: the next seq expected, and the holes below it not read yet (a chunk that
     * fills one came out of order; one below next_seq in no hole repeats a chunk) */
    uint64_t next_seq;
    struct seq_gap gaps[SEQ_GAPS];
    size_t n_gaps;
    int gaps_overflow;      /* more holes than SEQ_GAPS: repeats are no longer told apart */
    uint64_t shown_inconsistent; /* inconsistent records handed out (show_inconsistent) */
    char detail[SST_DAMAGE_LIMIT][SST_DAMAGE_DETAIL]; /* first of each kind, this pass */
    const struct sst_ahead_ops *ahead; /* chunks decoded on other threads, or NULL */
    void *ahead_ctx;
    const uint8_t *ahead_payload; /* the current chunk's payload from the pool, or NULL */
};

/* ---- problems ------------------------------------------------------------------------- */

__attribute__((format(printf, 4, 5))) static void problem(struct sst_reader *r, int err,
                                                          uint64_t offset, const char *fmt, ...)
{
    if (!r->opts.on_problem)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->opts.on_problem(r->opts.problem_ctx, err, offset, msg);
}

__attribute__((format(printf, 2, 3))) static enum chunk_check bad(struct sst_reader *r,
                                                                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    return CHUNK_BAD;
}

/* Keeps the first occurrence of a damage kind in words (later ones are only counted). */
__attribute__((format(printf, 3, 4))) static void note_detail(struct sst_reader *r, int kind,
                                                              const char *fmt, ...)
{
    if (r->detail[kind][0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail[kind], sizeof r->detail[kind], fmt, ap);
    va_end(ap);
}

/* ---- raw input ------------------------------------------------------------------------ */

/* pread until len bytes, end of file or an error; returns the number read. */
static size_t pread_full(int fd, uint64_t offset, uint8_t *dst, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, dst + got, len - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* an I/O error reads as the end of the data: a truncation */
        got += (size_t)n;
    }
    return got;
}

/* ---- mapped input (SST_READ_MAP) ------------------------------------------------------- */

/* The mapped windows of all readers, for the SIGBUS handler: a fault at an address inside one
 * is a file cut (or an I/O error) under a reader. Lock-free, so the handler may read them. */
#define MAP_SLOTS 64
#define MAP_WINDOW (8u << 20) /* bytes mapped at once: bounds what the mapping adds to RSS */
/* sst_reader_map_whole: at most this share of the machine's memory, and this many bytes. Its
 * pages are the page cache's (clean, shared, given back under memory pressure) but count in
 * the process's RSS. */
#define MAP_WHOLE_RAM_SHARE 4
#define MAP_WHOLE_MAX ((uint64_t)4 << 30)

struct map_slot {
    atomic_uintptr_t lo, hi; /* the window [lo, hi); hi 0: none */
    atomic_int taken;
};
static struct map_slot map_slots[MAP_SLOTS];

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    static const char msg[] = "stepscope: a trace file shrank while it was being read (cut by "
                              "another program) or could not be read; stopping\n";
    (void)uctx;
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < MAP_SLOTS && si->si_code == BUS_ADRERR; i++) {
        uintptr_t hi = atomic_load(&map_slots[i].hi), lo = atomic_load(&map_slots[i].lo);
        if (a >= lo && a < hi) {
            ssize_t n = write(2, msg, sizeof msg - 1);
            (void)n;
            _exit(1);
        }
    }
    struct sigaction dfl; /* not a reader's fault: the default action, as if we were not here */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0)
        raise(sig); /* sent with kill(2): sent again; a real fault repeats on return */
}

/* Whether our SIGBUS handler is in place, installing it where SIGBUS has its default action.
 * Another handler (the program's, a sanitizer's) is left alone: no mapping then. */
static int sigbus_guard(void)
{
    struct sigaction cur, g;
    if (sigaction(SIGBUS, NULL, &cur) != 0)
        return 0;
    if (cur.sa_flags & SA_SIGINFO)
        return cur.sa_sigaction == on_sigbus;
    if (cur.sa_handler != SIG_DFL)
        return 0;
    memset(&g, 0, sizeof g);
    g.sa_sigaction = on_sigbus;
    g.sa_flags = SA_SIGINFO;
    sigemptyset(&g.sa_mask);
    return sigaction(SIGBUS, &g, NULL) == 0;
}

/* A free slot for a reader that may map, or NULL (no guard, or MAP_SLOTS readers open). */
static struct map_slot *map_slot_take(void)
{
    if (!sigbus_guard())
        return NULL;
    for (int i = 0; i < MAP_SLOTS; i++) {
        int free_ = 0;
        if (atomic_compare_exchange_strong(&map_slots[i].taken, &free_, 1))
            return &map_slots[i];
    }
    return NULL;
}

static void map_drop(struct sst_reader *r)
{
    if (!r->map)
        return;
    atomic_store(&r->slot->hi, 0);
    munmap((void *)r->map, r->map_len);
    r->map = NULL;
}

/* [off, off + len) of the file through the mapped window, remapping it when needed; NULL
 * when the range is not all inside the file (size taken at open) or the file cannot be
 * mapped (the caller then reads with pread). */
static const uint8_t *map_at(struct sst_reader *r, uint64_t off, size_t len)
{
    if (!r->slot || off > r->file_size || len > r->file_size - off)
        return NULL;
    if (r->map && off >= r->map_off && off + len <= r->map_off + r->map_len)
        return r->map + (off - r->map_off);
    map_drop(r);
    uint64_t base = off & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
    uint64_t n = off + len - base; /* <= the file's rest, so never past its end */
    if (r->map_whole)
        base = 0, n = r->file_size;
    else if (n < MAP_WINDOW)
        n = r->file_size - base < MAP_WINDOW ? r->file_size - base : MAP_WINDOW;
    /* Not MAP_POPULATE: faults map 16 pages each (fault-around) for less than populating
     * costs; MADV_SEQUENTIAL asks for read-ahead when the file is not in the page cache. */
    void *m = mmap(NULL, (size_t)n, PROT_READ, MAP_PRIVATE, r->fd, (off_t)base);
    if (m == MAP_FAILED) { /* a file system that cannot map: pread from now on */
        atomic_store(&r->slot->taken, 0);
        r->slot = NULL;
        return NULL;
    }
    (void)madvise(m, (size_t)n, MADV_SEQUENTIAL);
    r->map = m, r->map_off = base, r->map_len = (size_t)n;
    atomic_store(&r->slot->lo, (uintptr_t)m);
    atomic_store(&r->slot->hi, (uintptr_t)m + (size_t)n);
    return r->map + (off - base);
}

/* Whether a file of size bytes may be mapped whole (MAP_WHOLE_RAM_SHARE, MAP_WHOLE_MAX). */
static int whole_fits(uint64_t size)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 || size == 0 || size > MAP_WHOLE_MAX) return 0;
    return size <= (uint64_t)pages * (uint64_t)page / MAP_WHOLE_RAM_SHARE;
}

const uint8_t *sst_reader_map_whole(struct sst_reader *r)
{
    if (!r->slot || r->file_size == NO_OFFSET || !whole_fits(r->file_size)) return NULL;
    if (!r->map_whole) map_drop(r); /* a window mapped before: the whole file replaces it */
    r->map_whole = 1;
    if (map_at(r, 0, (size_t)r->file_size)) return r->map;
    r->map_whole = 0;
    return NULL;
}

int sst_reader_maps(const struct sst_reader *r)
{
    return r->slot != NULL;
}

const uint8_t *sst_map_range(int fd, uint64_t size, uint64_t off, size_t len, struct sst_map *m)
{
    *m = (struct sst_map){NULL, 0, NULL};
    if (off > size || len > size - off || !len) return NULL;
    struct map_slot *slot = map_slot_take();
    if (!slot) return NULL;
    uint64_t base = off & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
    size_t n = (size_t)(off + len - base);
    /* not MAP_POPULATE either: it took no time off a re-read's reader (10 M records) */
    void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, (off_t)base);
    if (p == MAP_FAILED) {
        atomic_store(&slot->taken, 0);
        return NULL;
    }
    atomic_store(&slot->lo, (uintptr_t)p);
    atomic_store(&slot->hi, (uintptr_t)p + n);
    *m = (struct sst_map){p, n, slot};
    return (const uint8_t *)p + (off - base);
}

void sst_map_drop(struct sst_map *m)
{
    if (!m->base) return;
    struct map_slot *slot = m->slot;
    atomic_store(&slot->hi, 0);
    munmap((void *)m->base, m->len);
    atomic_store(&slot->taken, 0);
    *m = (struct sst_map){NULL, 0, NULL};
}

/* Reads exactly len bytes at offset; returns the number read (short at end of file). */
static size_t read_at(struct sst_reader *r, uint64_t offset, void *dst, size_t len)
{
    if (r->fd >= 0) {
        const uint8_t *m = map_at(r, offset, len);
        if (!m)
            return pread_full(r->fd, offset, dst, len);
        memcpy(dst, m, len);
        return len;
    }
    if (r->fpos != offset) {
        if (fseeko(r->f, (off_t)offset, SEEK_SET) != 0)
            return 0;
        r->fpos = offset;
    }
    size_t n = fread(dst, 1, len, r->f);
    r->fpos += n;
    return n;
}

/* Grows *buf to hold len bytes (len <= SST_CHUNK_MAX_RAW, checked by the caller). */
static int ensure(uint8_t **buf, size_t *cap, size_t len)
{
    if (*cap >= len)
        return 0;
    size_t n = *cap ? *cap : (64u << 10);
    while (n < len)
        n *= 2;
    uint8_t *p = realloc(*buf, n);
    if (!p)
        return SS_ENOMEM;
    *buf = p;
    *cap = n;
    return 0;
}

/* ---- chunks --------------------------------------------------------------------------- */

/* Checks the header's own fields; CHUNK_SHORT when the chunk would run past the file. */
static enum chunk_check check_chunk_header(struct sst_reader *r, uint64_t off,
                                           const struct sst_chunk_header *h)
{
    if (h->magic != SST_CHUNK_MAGIC)
        return bad(r, "bad chunk magic 0x%08" PRIx32, h->magic);
    if (h->stored_len > SST_CHUNK_MAX_RAW || h->raw_len > SST_CHUNK_MAX_RAW)
        return bad(r, "chunk claims %" PRIu32 "/%" PRIu32 " bytes, over the 16 MiB limit",
                   h->stored_len, h->raw_len);
    if (h->flags & ~(uint16_t)SST_CHUNK_F_ZSTD)
        return bad(r, "unknown chunk flags 0x%04x", (unsigned)h->flags);
    if (!(h->flags & SST_CHUNK_F_ZSTD) && h->raw_len != h->stored_len)
        return bad(r, "raw chunk with raw_len %" PRIu32 " != stored_len %" PRIu32, h->raw_len,
                   h->stored_len);
    if (r->file_size != NO_OFFSET && off + CHUNK_HDR + h->stored_len > r->file_size)
        return CHUNK_SHORT;
    return CHUNK_OK;
}

/* First read, fd mode: remembers a chunk that passed its checksum (offsets only grow). */
static void remember_chunk(struct sst_reader *r, uint64_t off, const struct sst_chunk_header *h)
{
    if (r->rereading || r->fd < 0 || r->n_seen == SEEN_MAX)
        return;
    if (r->n_seen == r->seen_cap) {
        size_t cap = r->seen_cap ? r->seen_cap * 2 : 256;
        struct seen_chunk *v = realloc(r->seen, cap * sizeof *v);
        if (!v)
            return; /* then it is checked again on a re-read */
        r->seen = v, r->seen_cap = cap;
    }
    r->cur_seen = r->n_seen;
    r->seen[r->n_seen++] = (struct seen_chunk){off, *h, NULL};
}

/* A re-read (sst_reader_rewind): whether the chunk at off passed its checksum on the first
 * read with this very header (lengths, seq and checksum). Its payload then is not summed
 * again: the file is the one the first read checked (sst_reader_rewind compared its size,
 * inode and modification time), and every length is still checked as it is used. */
static int seen_before(struct sst_reader *r, uint64_t off, const struct sst_chunk_header *h)
{
    if (!r->rereading)
        return 0;
    while (r->seen_next < r->n_seen && r->seen[r->seen_next].off < off)
        r->seen_next++;
    int same = r->seen_next < r->n_seen && r->seen[r->seen_next].off == off &&
               memcmp(&r->seen[r->seen_next].h, h, sizeof *h) == 0;
    if (same) r->cur_seen = r->seen_next;
    return same;
}

int sst_reader_verified(const struct sst_reader *r, uint64_t off, const struct sst_chunk_header *h)
{
    if (!r->rereading) return 0;
    size_t lo = 0, hi = r->n_seen; /* offsets only grow: a binary search */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->seen[mid].off < off) lo = mid + 1;
        else hi = mid;
    }
    return lo < r->n_seen && r->seen[lo].off == off && memcmp(&r->seen[lo].h, h, sizeof *h) == 0;
}

/* Reads and checks the chunk at off into r->ch and r->stored. */
static enum chunk_check load_chunk(struct sst_reader *r, uint64_t off)
{
    struct sst_chunk_header h;
    if (read_at(r, off, &h, sizeof h) != sizeof h)
        return CHUNK_SHORT;
    enum chunk_check c = check_chunk_header(r, off, &h);
    if (c != CHUNK_OK)
        return c;
    r->cur_seen = SIZE_MAX;
    const uint8_t *data = r->fd >= 0 ? map_at(r, off + CHUNK_HDR, h.stored_len) : NULL;
    if (!data) {
        if (ensure(&r->stored, &r->stored_cap, h.stored_len) != 0)
            return bad(r, "out of memory for a %" PRIu32 "-byte chunk", h.stored_len);
        if (read_at(r, off + CHUNK_HDR, r->stored, h.stored_len) != h.stored_len)
            return CHUNK_SHORT;
        data = r->stored;
    }
    if (!seen_before(r, off, &h)) {
        uint32_t want = h.crc;
        h.crc = 0;
        uint32_t got = sst_crc32c(sst_crc32c(0, &h, sizeof h), data, h.stored_len);
        if (got != want)
            return bad(r, "checksum mismatch");
        h.crc = want;
        remember_chunk(r, off, &h);
    }
    r->ch = h;
    r->data = data;
    return CHUNK_OK;
}

/* Offset of the next chunk after `from` that passes every check, or NO_OFFSET. */
/* The next offset at or after base that holds data: a hole of a sparse file (a 50 GB tail of
 * nothing) has no chunk in it and is skipped without reading. NO_OFFSET past the last data. */
static uint64_t next_data(const struct sst_reader *r, uint64_t base)
{
    if (r->fd < 0 || base > (uint64_t)INT64_MAX) return base;
    off_t d = lseek(r->fd, (off_t)base, SEEK_DATA);
    if (d < 0) return errno == ENXIO ? NO_OFFSET : base; /* ENXIO: only a hole is left */
    return (uint64_t)d > base ? (uint64_t)d : base;
}

static uint64_t resync(struct sst_reader *r, uint64_t from)
{
    static const uint8_t magic[4] = {0x53, 0x53, 0x43, 0x4b}; /* SST_CHUNK_MAGIC, LE */
    if (!r->scan && !(r->scan = malloc(SCAN_WINDOW)))
        return NO_OFFSET;
    for (uint64_t base = from;;) {
        if ((base = next_data(r, base)) == NO_OFFSET) return NO_OFFSET;
        ss_progress_report(base, r->file_size != NO_OFFSET ? r->file_size : 0);
        size_t n = read_at(r, base, r->scan, SCAN_WINDOW);
        if (n < sizeof magic)
            return NO_OFFSET;
        for (size_t i = 0; i + sizeof magic <= n; i++) {
            const uint8_t *hit = memchr(r->scan + i, magic[0], n - i);
            if (!hit || (size_t)(hit - r->scan) + sizeof magic > n)
                break;
            i = (size_t)(hit - r->scan);
            if (memcmp(hit, magic, sizeof magic) == 0 && load_chunk(r, base + i) == CHUNK_OK)
                return base + i;
        }
        base += n - (sizeof magic - 1); /* overlap: a magic may straddle two windows */
    }
}

/* The only use of zstd in the reader: a compressed payload must expand to exactly raw_len. */
static int decompress_payload(struct sst_reader *r)
{
    if (ensure(&r->raw, &r->raw_cap, r->ch.raw_len) != 0)
        return SS_ENOMEM;
    return sst_zstd_decompress(&r->zctx, r->raw, r->ch.raw_len, r->data, r->ch.stored_len);
}

/* The loaded chunk's payload as a first read decompressed it, when it was kept. */
static const uint8_t *kept_raw(const struct sst_reader *r)
{
    return r->rereading && r->cur_seen < r->n_seen ? r->seen[r->cur_seen].raw : NULL;
}

/* A first read keeps what it decompressed, within the budget: a re-read of the same file
 * (sst_reader_rewind checked it is the same) takes it instead of decompressing again. A copy
 * that cannot be made is only not kept. */
static void keep_raw(struct sst_reader *r)
{
    if (r->rereading || r->cur_seen >= r->n_seen || r->raw_kept + r->ch.raw_len > r->raw_keep)
        return;
    uint8_t *copy = malloc(r->ch.raw_len ? r->ch.raw_len : 1);
    if (!copy) return;
    if (r->ch.raw_len) memcpy(copy, r->raw, r->ch.raw_len); /* an empty chunk: r->raw may be NULL */
    r->seen[r->cur_seen].raw = copy;
    r->raw_kept += r->ch.raw_len;
}

static void raw_free(struct sst_reader *r)
{
    for (size_t i = 0; i < r->n_seen; i++) {
        free(r->seen[i].raw);
        r->seen[i].raw = NULL;
    }
    r->raw_kept = 0;
}

/* Makes the loaded RECORDS chunk current. Returns 0, or CHUNK_BAD with r->reason set. */
static enum chunk_check open_records(struct sst_reader *r)
{
    const uint8_t *p = r->data;
    if (r->ahead_payload) {
        p = r->ahead_payload; /* checked and decompressed by the pool */
    } else if ((r->ch.flags & SST_CHUNK_F_ZSTD) && kept_raw(r)) {
        p = kept_raw(r); /* decompressed to raw_len by the first read */
    } else if (r->ch.flags & SST_CHUNK_F_ZSTD) {
        int rc = decompress_payload(r);
        if (rc != 0)
            return bad(r, "zstd payload does not decompress to %" PRIu32 " bytes: %s",
                       r->ch.raw_len, ss_strerror(rc));
        p = r->raw;
        if (r->raw_keep) keep_raw(r);
    }
    r->hot.payload = p;
    r->hot.len = r->ch.raw_len;
    r->hot.off = 0;
    return CHUNK_OK;
}

/* Takes in the END chunk: the file was closed by its writer. */
static enum chunk_check take_end(struct sst_reader *r)
{
    if (r->ch.flags != 0 || r->ch.stored_len < sizeof(struct sst_end))
        return bad(r, "END chunk of %" PRIu32 " bytes is malformed", r->ch.stored_len);
    memcpy(&r->st.end, r->data, sizeof r->st.end);
    r->st.closed = 1;
    /* Only comparable when every chunk was one this version knows and none was lost. */
    if (r->st.bad_chunks == 0 && r->st.unknown_chunks == 0 && r->st.end.chunks != r->st.chunks)
        problem(r, SS_ECORRUPT, r->chunk_off,
                "END chunk counts %" PRIu32 " chunks but %" PRIu32 " were read",
                r->st.end.chunks, r->st.chunks);
    return CHUNK_OK;
}

/* ---- chunk sequence ------------------------------------------------------------------- */

enum seq_verdict { SEQ_NEXT, SEQ_LATE, SEQ_REPEAT };

/* Takes seq out of the hole that holds it: 1 when one did (the chunk came late). */
static int gap_fill(struct sst_reader *r, uint64_t seq)
{
    for (size_t i = 0; i < r->n_gaps; i++) {
        struct seq_gap *g = &r->gaps[i];
        if (seq < g->lo || seq > g->hi) continue;
        if (g->lo == g->hi)
            *g = r->gaps[--r->n_gaps];
        else if (seq == g->lo)
            g->lo++;
        else if (seq == g->hi)
            g->hi--;
        else if (r->n_gaps < SEQ_GAPS)
            r->gaps[r->n_gaps++] = (struct seq_gap){seq + 1, g->hi}, g->hi = seq - 1;
        else
            g->hi = seq - 1, r->gaps_overflow = 1; /* the hole's upper part is forgotten */
        return 1;
    }
    return 0;
}

/* Where a chunk's sequence number puts it: next (holes it leaves are chunks not read, which
 * the expected count shows), late (it fills a hole), or a repeat of one read before. */
static enum seq_verdict seq_take(struct sst_reader *r, uint32_t seq)
{
    if (seq >= r->next_seq) {
        if (seq > r->next_seq && r->n_gaps < SEQ_GAPS)
            r->gaps[r->n_gaps++] = (struct seq_gap){r->next_seq, (uint64_t)seq - 1};
        else if (seq > r->next_seq)
            r->gaps_overflow = 1;
        r->next_seq = (uint64_t)seq + 1;
        return SEQ_NEXT;
    }
    return gap_fill(r, seq) || r->gaps_overflow ? SEQ_LATE : SEQ_REPEAT;
}

/* A chunk whose records were read before (a copy spliced in): skipped, counted. */
static int skip_repeat(struct sst_reader *r)
{
    r->st.dup_chunks++;
    note_detail(r, SST_DAMAGE_DUPLICATE, "chunk %" PRIu32 " again at offset %" PRIu64, r->ch.seq,
                r->chunk_off);
    problem(r, SS_ECORRUPT, r->chunk_off,
            "chunk %" PRIu32 " at offset %" PRIu64 ": repeats a chunk read before, skipped",
            r->ch.seq, r->chunk_off);
    r->pos = r->chunk_off + CHUNK_HDR + r->ch.stored_len;
    return 0;
}

/* A chunk read after a later one (chunks moved): read where it is, counted. */
static void note_late(struct sst_reader *r)
{
    r->st.late_chunks++;
    note_detail(r, SST_DAMAGE_ORDER, "chunk %" PRIu32 " at offset %" PRIu64 " after chunk %" PRId32,
                r->ch.seq, r->chunk_off, r->st.last_seq);
    problem(r, SS_ECORRUPT, r->chunk_off,
            "chunk %" PRIu32 " at offset %" PRIu64 ": out of sequence (after chunk %" PRId32 ")",
            r->ch.seq, r->chunk_off, r->st.last_seq);
}

/* Acts on a chunk that passed its checks. Returns 1 when records are ready, 0 to go on
 * to the next chunk, or CHUNK_BAD-as-negative (-1) when its content is unusable. */
static int take_chunk(struct sst_reader *r)
{
    enum seq_verdict v = seq_take(r, r->ch.seq);
    if (v == SEQ_REPEAT) return skip_repeat(r);
    if (v == SEQ_LATE) note_late(r);
    enum chunk_check c = CHUNK_OK;
    if (r->ch.type == SST_CHUNK_RECORDS)
        c = open_records(r);
    else if (r->ch.type == SST_CHUNK_END)
        c = take_end(r);
    else
        r->st.unknown_chunks++; /* a later version's chunk: framed, checksummed, skippable */
    if (c != CHUNK_OK)
        return -1;
    if (r->ch.type == SST_CHUNK_RECORDS)
        r->st.chunks++;
    r->st.last_seq = (int32_t)r->ch.seq;
    r->pos = r->chunk_off + CHUNK_HDR + r->ch.stored_len;
    return r->ch.type == SST_CHUNK_RECORDS;
}

static void mark_truncated(struct sst_reader *r, uint64_t at)
{
    r->st.truncated = 1;
    r->st.truncated_at = at;
    problem(r, SS_ETRUNC, at, "%s", sst_reader_state_line(r));
}

/* Skips a damaged chunk at r->chunk_off, resuming at the next valid one. Returns 0 to go on,
 * 1 at the end of the readable data, or SS_ECORRUPT in strict mode. */
static int skip_damage(struct sst_reader *r, enum chunk_check why)
{
    uint64_t at = r->chunk_off;
    uint64_t next = resync(r, at + 1);
    if (next == NO_OFFSET && why == CHUNK_SHORT) {
        mark_truncated(r, at); /* the writer stopped inside this chunk */
        return 1;
    }
    r->st.bad_chunks++;
    if (r->st.bad_chunks == 1)
        r->st.first_bad_offset = at;
    uint64_t end = next != NO_OFFSET ? next : r->file_size;
    r->st.bad_bytes += end - at;
    /* the chunk after the last good one; int64: a hostile seq of INT32_MAX must not overflow */
    problem(r, SS_ECORRUPT, at, "chunk %" PRId64 " at offset %" PRIu64 ": %s, skipped",
            (int64_t)r->st.last_seq + 1, at,
            why == CHUNK_SHORT ? "length runs past the file" : r->reason);
    if (r->opts.strict)
        return SS_ECORRUPT;
    if (next == NO_OFFSET) {
        mark_truncated(r, at);
        return 1;
    }
    r->pos = next;
    return 0;
}

/* The offset of the first non-zero byte at or after `from`, holes skipped, looking at no more
 * than TRAIL_SCAN bytes of data; NO_OFFSET when there is none (or only zeros that far). */
#define TRAIL_SCAN (1u << 20)
static uint64_t first_nonzero(struct sst_reader *r, uint64_t from)
{
    if (!r->scan && !(r->scan = malloc(SCAN_WINDOW))) return from; /* cannot tell: data */
    for (uint64_t base = from, seen = 0; seen < TRAIL_SCAN;) {
        if ((base = next_data(r, base)) == NO_OFFSET) return NO_OFFSET;
        size_t n = read_at(r, base, r->scan, SCAN_WINDOW);
        if (n == 0) return NO_OFFSET;
        for (size_t i = 0; i < n; i++)
            if (r->scan[i]) return base + i;
        base += n, seen += n;
    }
    return NO_OFFSET;
}

/* Bytes after the END chunk: data there does not belong to the trace (damage); zeros and
 * holes (a preallocated or sparse tail, the rest of a file system block) are only said. */
static void note_trailing(struct sst_reader *r)
{
    uint64_t at = first_nonzero(r, r->pos);
    if (at == NO_OFFSET) {
        problem(r, 0, r->pos, "%" PRIu64 " bytes of zeros after the END chunk ignored",
                r->file_size - r->pos);
        return;
    }
    r->st.trailing_bytes = r->file_size - r->pos;
    problem(r, SS_ECORRUPT, at, "%" PRIu64 " bytes after the END chunk ignored (data at offset %" PRIu64 ")",
            r->file_size - r->pos, at);
}

/* The chunk at off as the pool decoded it (the first read remembers it, as load_chunk does),
 * else loaded and checked here. */
static enum chunk_check load_or_take(struct sst_reader *r, uint64_t off)
{
    r->ahead_payload = NULL;
    r->cur_seen = SIZE_MAX; /* a pool's payload is never kept: the pool decodes it again */
    struct sst_chunk_header h;
    const uint8_t *payload;
    if (!r->ahead || !r->ahead->take(r->ahead_ctx, off, &h, &payload))
        return load_chunk(r, off);
    remember_chunk(r, off, &h);
    r->ch = h;
    r->data = r->ahead_payload = payload;
    return CHUNK_OK;
}

/* Makes the next RECORDS chunk current. Returns 1, 0 at the end, or a negative error. */
static int next_chunk(struct sst_reader *r)
{
    while (!r->st.closed) {
        if (r->file_size != NO_OFFSET && r->pos >= r->file_size) {
            mark_truncated(r, r->pos); /* no END chunk: the writer never closed the file */
            return 0;
        }
        r->chunk_off = r->pos;
        ss_progress_report(r->pos, r->file_size != NO_OFFSET ? r->file_size : 0);
        enum chunk_check c = load_or_take(r, r->pos);
        int took = c == CHUNK_OK ? take_chunk(r) : -1;
        if (took == 1)
            return 1;
        if (took == 0)
            continue;
        int rc = skip_damage(r, c == CHUNK_OK ? CHUNK_BAD : c);
        if (rc != 0)
            return rc < 0 ? rc : 0;
    }
    if (r->file_size != NO_OFFSET && r->pos < r->file_size) note_trailing(r);
    return 0;
}

/* ---- strings -------------------------------------------------------------------------- */

/* Ids come from the file, so they index a hash table, never an array. */
static size_t str_home(uint32_t id, size_t slots)
{
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 20) & (slots - 1);
}

static struct str_entry *str_find(const struct sst_reader *r, uint32_t id)
{
    if (!r->str_slots || id == SST_NO_STRING)
        return NULL;
    for (size_t j = str_home(id, r->str_slots);; j = (j + 1) & (r->str_slots - 1)) {
        if (r->strs[j].id == id || r->strs[j].id == 0)
            return &r->strs[j];
    }
}

static int str_grow(struct sst_reader *r)
{
    size_t n = r->str_slots ? r->str_slots * 2 : 1024;
    struct str_entry *t = calloc(n, sizeof *t);
    if (!t)
        return SS_ENOMEM;
    for (size_t i = 0; i < r->str_slots; i++) {
        if (!r->strs[i].id)
            continue;
        size_t j = str_home(r->strs[i].id, n);
        while (t[j].id)
            j = (j + 1) & (n - 1);
        t[j] = r->strs[i];
    }
    free(r->strs);
    r->strs = t;
    r->str_slots = n;
    return 0;
}

/* Copies text into a block that never moves, so returned pointers stay valid. */
static const char *str_copy(struct sst_reader *r, const char *s, size_t len)
{
    struct str_block *b = r->blocks;
    if (!b || b->cap - b->used < len + 1) {
        size_t cap = len + 1 > (256u << 10) ? len + 1 : (256u << 10);
        if (!(b = malloc(sizeof *b + cap)))
            return NULL;
        b->next = r->blocks;
        b->used = 0;
        b->cap = cap;
        r->blocks = b;
    }
    char *dst = b->data + b->used;
    memcpy(dst, s, len);
    dst[len] = 0;
    b->used += len + 1;
    return dst;
}

/* Defines (or redefines: the later definition wins) a string from a STRING record. */
static int str_define(struct sst_reader *r, const struct sst_rec_string *rec)
{
    if (rec->id == SST_NO_STRING)
        return 0;
    if ((r->str_count + 1) * 2 > r->str_slots && str_grow(r) != 0)
        return SS_ENOMEM;
    const char *text = str_copy(r, (const char *)(rec + 1), rec->len);
    if (!text)
        return SS_ENOMEM;
    struct str_entry *e = str_find(r, rec->id);
    if (e->id == 0)
        r->str_count++;
    *e = (struct str_entry){rec->id, rec->len, text};
    return 0;
}

const char *sst_reader_string(const struct sst_reader *r, uint32_t id, uint32_t *len)
{
    const struct str_entry *e = str_find(r, id);
    if (!e || e->id == 0)
        return NULL;
    if (len)
        *len = e->len;
    return e->text;
}

/* ---- records -------------------------------------------------------------------------- */

/* Where each kind keeps its time, from the time column of SST_REC_TYPES: the offsets of its
 * first and last timestamp (the same one for an instant). */
struct rec_time {
    uint8_t known, zero_unknown; /* zero_unknown: a time of 0 means "not known" */
    uint16_t start_off, end_off;
};
#define REC_TIME_span(st) {1, 0, offsetof(st, start_ns), offsetof(st, end_ns)}
#define REC_TIME_ts(st) {1, 0, offsetof(st, ts_ns), offsetof(st, ts_ns)}
#define REC_TIME_start(st) {1, 1, offsetof(st, start_ns), offsetof(st, start_ns)}
#define REC_TIME_none(st) {0, 0, 0, 0}
static const struct rec_time rec_times[SST_REC_TYPE_LIMIT] = {
#define REC_X_TIME(name, num, str, layout, time) [num] = REC_TIME_##time(struct sst_rec_##layout),
    SST_REC_TYPES(REC_X_TIME)
#undef REC_X_TIME
};

int sst_rec_time_range(const struct sst_rec_header *h, uint64_t *t0, uint64_t *t1)
{
    const struct rec_time *t = h->type < SST_REC_TYPE_LIMIT ? &rec_times[h->type] : NULL;
    if (!t || !t->known || h->size < t->end_off + sizeof(uint64_t)) return 0;
    uint64_t a, b;
    memcpy(&a, (const char *)h + t->start_off, sizeof a);
    memcpy(&b, (const char *)h + t->end_off, sizeof b);
    if (t->zero_unknown && a == 0) return 0;
    *t0 = a < b ? a : b;
    *t1 = a < b ? b : a;
    return 1;
}

int sst_rec_time_fields(uint16_t type, size_t *first, size_t *last)
{
    const struct rec_time *t = type < SST_REC_TYPE_LIMIT ? &rec_times[type] : NULL;
    if (!t || !t->known) return 0;
    *first = t->start_off, *last = t->end_off;
    return 1;
}

/* Why the record at p (with `left` bytes of payload from it) is malformed, or NULL. */
static const char *record_defect(const uint8_t *p, size_t left, struct sst_rec_header *h)
{
    if (left < 8)
        return "fewer than 8 bytes left in the chunk";
    memcpy(h, p, sizeof *h);
    if (h->size < 8 || h->size % SST_REC_ALIGN)
        return "size not a multiple of 8";
    if (h->size > left)
        return "size runs past the chunk";
    if (h->type == 0 || h->type >= SST_REC_TYPE_LIMIT)
        return NULL; /* unknown: skippable by size */
    if (h->size < sst_rec_min_size(h->type))
        return "smaller than its type";
    if (h->type == SST_REC_STRING) {
        const struct sst_rec_string *s = (const void *)p;
        if (s->len > h->size - sizeof *s)
            return "string longer than its record";
    }
    return NULL;
}

/* The rest of a chunk whose framing broke cannot be trusted: drop it. */
static int malformed(struct sst_reader *r, const char *why, const struct sst_rec_header *h)
{
    r->st.malformed++;
    problem(r, SS_EBADREC, r->chunk_off,
            "chunk %" PRIu32 " at offset %" PRIu64 ": malformed record at payload byte %zu "
            "(type %u, size %u: %s), rest of chunk skipped",
            r->ch.seq, r->chunk_off, r->hot.off, (unsigned)h->type, (unsigned)h->size, why);
    r->hot.off = r->hot.len;
    return r->opts.strict ? SS_ECORRUPT : 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s; /* hostile counts saturate */
}

/* Whether the record at p holds possible times (sst_reader_times_ok); one that does not is
 * counted, its first few named, and never returned: an end before its start or a time far
 * outside the recording would move every number of an analysis (issue #41). */
static int times_possible(struct sst_reader *r, const uint8_t *p, const struct sst_rec_header *h)
{
    const struct sst_reader_hot *c = &r->hot;
    if (sst_reader_times_ok(c, p, h->type)) return 1;
    uint64_t a, b;
    memcpy(&a, p + c->t_first[h->type], sizeof a);
    memcpy(&b, p + c->t_last[h->type], sizeof b);
    const char *why = a > b                          ? "ends before it starts"
                      : a < c->t_lo                  ? "lies before the recording started"
                      : b >= SST_TIME_LIMIT          ? "holds a time past 2^62 ns"
                                                     : "lies after the recording ended";
    r->st.inconsistent++;
    note_detail(r, SST_DAMAGE_INCONSISTENT, "a %s record in chunk %" PRIu32 " %s",
                sst_rec_type_name(h->type), r->ch.seq, why);
    if (r->st.inconsistent <= INCONSISTENT_SAID)
        problem(r, SS_EBADREC, r->chunk_off,
                "chunk %" PRIu32 " at offset %" PRIu64 ": %s record (%" PRIu64 "..%" PRIu64
                " ns) %s, skipped",
                r->ch.seq, r->chunk_off, sst_rec_type_name(h->type), a, b, why);
    return 0;
}

/* A DAMAGE record's detail, kept as printable ASCII: it comes from the file. */
static void imported_detail(struct sst_reader *r, int kind, uint32_t id)
{
    uint32_t len = 0;
    const char *t = id ? sst_reader_string(r, id, &len) : NULL;
    if (!t || r->detail[kind][0]) return;
    size_t n = len < SST_DAMAGE_DETAIL - 1 ? len : SST_DAMAGE_DETAIL - 1;
    for (size_t i = 0; i < n; i++)
        r->detail[kind][i] = t[i] >= 0x20 && t[i] < 0x7f ? t[i] : '?';
    r->detail[kind][n] = '\0';
}

/* What DROPPED and DAMAGE records say is lost: the damage model's counts (slow path). */
static void tally(struct sst_reader *r, const struct sst_rec_header *h)
{
    if (h->type == SST_REC_DROPPED) {
        struct sst_rec_dropped d;
        sst_rec_load(h, &d, sizeof d);
        if (d.source != SST_DROP_STRING) /* a text cut short: nothing was lost but bytes */
            r->st.dropped = sat_add(r->st.dropped, d.count);
        return;
    }
    struct sst_rec_damage d;
    sst_rec_load(h, &d, sizeof d);
    int kind = d.kind > 0 && d.kind < SST_DAMAGE_LIMIT ? d.kind : SST_DAMAGE_CORRUPT; /* later */
    if (!d.count) return;
    r->st.imported[kind] = sat_add(r->st.imported[kind], d.count);
    imported_detail(r, kind, d.detail);
}

/* The next known record of the current chunk: 1 with *rec set, 0 when the chunk is done,
 * or a negative error. */
static int next_record(struct sst_reader *r, const struct sst_rec_header **rec)
{
    while (r->hot.off < r->hot.len) {
        const uint8_t *p = r->hot.payload + r->hot.off;
        struct sst_rec_header h = {0, 0};
        const char *why = record_defect(p, r->hot.len - r->hot.off, &h);
        if (why)
            return malformed(r, why, &h);
        r->hot.off += h.size;
        if (h.type == 0 || h.type >= SST_REC_TYPE_LIMIT) {
            r->st.unknown_records++;
            continue;
        }
        if (!times_possible(r, p, &h) && !r->opts.show_inconsistent) continue;
        if (r->opts.show_inconsistent && !sst_reader_times_ok(&r->hot, p, h.type))
            r->shown_inconsistent++;
        if (h.type == SST_REC_STRING && str_define(r, (const void *)p) != 0)
            return SS_ENOMEM;
        if (h.type == SST_REC_DROPPED || h.type == SST_REC_DAMAGE)
            tally(r, (const struct sst_rec_header *)(const void *)p);
        r->hot.records++;
        *rec = (const struct sst_rec_header *)(const void *)p;
        return 1;
    }
    return 0;
}

/* Ends the current chunk's records (done, malformed, or reading stopped on an error). */
static void drop_payload(struct sst_reader *r)
{
    r->hot.payload = NULL;
    r->hot.len = r->hot.off = 0;
}

/* Everything sst_reader_next's inline part (sst_reader.h) does not take: the end of a chunk,
 * STRING and unknown records, malformed ones, the next chunk, the end of the data. */
int sst_reader_next_slow(struct sst_reader *r, const struct sst_rec_header **rec)
{
    for (;;) {
        if (r->hot.payload) {
            int rc = next_record(r, rec);
            if (rc == 1)
                return 1;
            drop_payload(r);
            if (rc < 0) {
                r->done = 1, r->err = rc;
                return rc;
            }
        }
        if (r->done)
            return r->err;
        int rc = next_chunk(r);
        if (rc <= 0) {
            r->done = 1;
            r->err = rc;
            return rc;
        }
    }
}

/* The inline path's tables: least sizes (STRING and the records the damage model counts go
 * to the slow path) and where each kind's times are (a PROCESS's 0 means "not known"). */
static void init_fast_min(struct sst_reader *r)
{
    for (uint16_t t = 0; t < SST_REC_TYPE_LIMIT; t++) {
        int slow = t == 0 || t == SST_REC_STRING || t == SST_REC_DROPPED || t == SST_REC_DAMAGE;
        r->hot.fast_min[t] = slow                      ? UINT32_MAX
                             : sst_rec_min_size(t) < 8 ? 8
                                                       : (uint32_t)sst_rec_min_size(t);
        int timed = rec_times[t].known && !rec_times[t].zero_unknown;
        r->hot.t_first[t] = timed ? rec_times[t].start_off : 0;
        r->hot.t_last[t] = timed ? rec_times[t].end_off : 0;
    }
    r->hot.t_lo = 0, r->hot.t_hi = SST_TIME_LIMIT - 1;
}

/* The END chunk's time when the file ends with a whole END chunk (0: none), read at open: it
 * bounds the times the records may hold before the END itself is reached. */
static uint64_t peek_end(struct sst_reader *r)
{
    struct {
        struct sst_chunk_header h;
        struct sst_end e;
    } c;
    if (r->fd < 0 || r->file_size == NO_OFFSET || r->file_size < r->hdr.header_size + sizeof c)
        return 0;
    if (read_at(r, r->file_size - sizeof c, &c, sizeof c) != sizeof c) return 0;
    if (c.h.magic != SST_CHUNK_MAGIC || c.h.type != SST_CHUNK_END || c.h.flags != 0 ||
        c.h.stored_len != sizeof c.e || c.h.raw_len != sizeof c.e)
        return 0;
    uint32_t want = c.h.crc;
    c.h.crc = 0;
    return sst_crc32c(sst_crc32c(0, &c.h, sizeof c.h), &c.e, sizeof c.e) == want ? c.e.end_mono_ns
                                                                                 : 0;
}

/* The times records may hold. On the collector's clock the header's start and the END's
 * time were read on the same clock as every record: a record more than TIME_SLACK_NS outside
 * them is impossible (the fixtures: none earlier than the start, none later than 0.5 ms after
 * the END). Other clocks and synthetic traces (imports, generators, tests) only get the
 * absolute limit. */
static void set_time_bounds(struct sst_reader *r)
{
    if (r->hdr.clock != SST_CLOCK_MONOTONIC || (r->hdr.features & SST_FEAT_SYNTHETIC)) return;
    uint64_t start = r->hdr.start_mono_ns, end = peek_end(r);
    if (start > TIME_SLACK_NS) r->hot.t_lo = start - TIME_SLACK_NS;
    if (end >= start && end < SST_TIME_LIMIT - TIME_SLACK_NS) r->hot.t_hi = end + TIME_SLACK_NS;
}

/* ---- open / state --------------------------------------------------------------------- */

/* Checks the file header in buf (n bytes read). Returns 0 or the ss_error for open. */
static int check_header(struct sst_reader *r, const uint8_t *buf, size_t n)
{
    if (n == 0)
        return SS_EEMPTY;
    size_t m = n < SST_MAGIC_LEN ? n : SST_MAGIC_LEN;
    if (memcmp(buf, SST_MAGIC, m) != 0)
        return SS_ENOTTRACE;
    if (n < sizeof r->hdr) {
        problem(r, SS_ETRUNC, n, "file ends after %zu bytes, inside the 64-byte header", n);
        return SS_ETRUNC;
    }
    struct sst_file_header *h = &r->hdr;
    memcpy(h, buf, sizeof *h);
    int crc_ok = sst_crc32c(0, h, offsetof(struct sst_file_header, header_crc)) == h->header_crc;
    /* A newer format may lay its header out differently, so version beats the checksum. */
    if (h->min_reader_version > SST_READ_VERSION) {
        problem(r, SS_EVERSION, 0,
                "trace format v%u needs a newer stepscope (this one reads up to v%u)",
                (unsigned)h->min_reader_version, SST_READ_VERSION);
        return SS_EVERSION;
    }
    if (h->byte_order != SST_BYTE_ORDER_LE)
        return SS_EBYTEORDER;
    if (!crc_ok) {
        problem(r, SS_ECORRUPT, 0, "file header checksum mismatch");
        return SS_ECORRUPT;
    }
    if (h->header_size < sizeof *h) {
        problem(r, SS_ECORRUPT, 0, "header_size %u is under 64", (unsigned)h->header_size);
        return SS_ECORRUPT;
    }
    return 0;
}

static uint64_t stream_size(FILE *f)
{
    struct stat sb;
    if (fileno(f) >= 0 && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode))
        return (uint64_t)sb.st_size;
    if (fseeko(f, 0, SEEK_END) != 0)
        return NO_OFFSET; /* a pipe: lengths are checked by short reads instead */
    off_t end = ftello(f);
    if (fseeko(f, 0, SEEK_SET) != 0 || end < 0)
        return NO_OFFSET;
    return (uint64_t)end;
}

/* The common part of both opens: takes ownership of f, or of fd when f is NULL. */
static int open_input(FILE *f, int fd, uint64_t size, const struct sst_reader_opts *opts,
                      unsigned flags, struct sst_reader **out)
{
    *out = NULL;
    struct sst_reader *r = calloc(1, sizeof *r);
    if (!r) {
        if (f)
            fclose(f);
        else
            close(fd);
        return SS_ENOMEM;
    }
    r->f = f;
    r->fd = f ? -1 : fd;
    if (!f && fstat(fd, &r->id) != 0)
        memset(&r->id, 0, sizeof r->id); /* then a rewind checks every chunk again */
    init_fast_min(r);
    if (opts)
        r->opts = *opts;
    if (!f && (flags & SST_READ_MAP))
        r->slot = map_slot_take(); /* NULL: pread */
    r->st.last_seq = -1;
    r->file_size = size;
    r->st.file_bytes = r->file_size == NO_OFFSET ? 0 : r->file_size;
    uint8_t buf[sizeof(struct sst_file_header)];
    size_t n = read_at(r, 0, buf, sizeof buf);
    int rc = f && ferror(f) ? SS_EIO : check_header(r, buf, n);
    if (rc != 0) {
        sst_reader_close(r);
        return rc;
    }
    r->pos = r->hdr.header_size; /* a newer writer's longer header: skip what we don't know */
    set_time_bounds(r);
    *out = r;
    return 0;
}

int sst_reader_open_file(FILE *f, const struct sst_reader_opts *opts, struct sst_reader **out)
{
    return open_input(f, -1, stream_size(f), opts, 0, out);
}

int sst_reader_open(const char *path, const struct sst_reader_opts *opts,
                    struct sst_reader **out)
{
    return sst_reader_open_ex(path, opts, 0, out);
}

int sst_reader_open_ex(const char *path, const struct sst_reader_opts *opts, unsigned flags,
                       struct sst_reader **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ss_from_errno(errno);
    return sst_reader_open_fd(fd, opts, flags, out);
}

int sst_reader_open_fd(int fd, const struct sst_reader_opts *opts, unsigned flags,
                       struct sst_reader **out)
{
    *out = NULL;
    struct stat sb;
    int rc = fstat(fd, &sb) != 0 ? ss_from_errno(errno) : S_ISDIR(sb.st_mode) ? SS_EINVAL : 0;
    if (rc != 0) {
        close(fd);
        return rc;
    }
    if (S_ISREG(sb.st_mode)) {
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a hint: larger read-ahead */
        return open_input(NULL, fd, (uint64_t)sb.st_size, opts, flags, out);
    }
    FILE *f = fdopen(fd, "rb"); /* a pipe or a device: stdio, lengths checked by short reads */
    if (!f) {
        rc = ss_from_errno(errno);
        close(fd);
        return rc;
    }
    return open_input(f, -1, stream_size(f), opts, 0, out);
}

void sst_reader_set_problem(struct sst_reader *r, sst_problem_fn fn, void *ctx,
                            sst_problem_fn *old_fn, void **old_ctx)
{
    if (old_fn) *old_fn = r->opts.on_problem;
    if (old_ctx) *old_ctx = r->opts.problem_ctx;
    r->opts.on_problem = fn;
    r->opts.problem_ctx = ctx;
}

/* Frees the string table: a re-read defines the strings again as it meets them. */
static void strings_free(struct sst_reader *r)
{
    while (r->blocks) {
        struct str_block *next = r->blocks->next;
        free(r->blocks);
        r->blocks = next;
    }
    free(r->strs);
    r->strs = NULL;
    r->str_slots = r->str_count = 0;
}

/* Whether the file still is the one opened: same inode, size and modification time. */
static int same_file(const struct sst_reader *r)
{
    struct stat now;
    return r->fd >= 0 && fstat(r->fd, &now) == 0 && now.st_ino == r->id.st_ino &&
           now.st_dev == r->id.st_dev && now.st_size == r->id.st_size &&
           now.st_mtim.tv_sec == r->id.st_mtim.tv_sec &&
           now.st_mtim.tv_nsec == r->id.st_mtim.tv_nsec;
}

int sst_reader_rewind(struct sst_reader *r)
{
    if (r->ahead) r->ahead->restart(r->ahead_ctx); /* first: its threads read what follows */
    r->ahead_payload = NULL;
    drop_payload(r);
    strings_free(r);
    if (!same_file(r)) {
        raw_free(r);
        r->n_seen = 0; /* changed since the first read, or not a file: check every chunk */
    }
    /* a rewind before anything was read (the analysis rewinds first) leaves the first read
     * to come: it is the one that remembers the chunks checked (and keeps their payloads) */
    if (r->pos != r->hdr.header_size || r->done) r->rereading = 1;
    r->seen_next = 0;
    r->done = r->err = 0;
    memset(&r->st, 0, sizeof r->st);
    r->st.last_seq = -1;
    r->st.file_bytes = r->file_size == NO_OFFSET ? 0 : r->file_size;
    r->hot.records = 0;
    r->fpos = NO_OFFSET; /* stdio: seek before the next read */
    r->pos = r->hdr.header_size;
    r->next_seq = 0, r->n_gaps = 0, r->gaps_overflow = 0, r->shown_inconsistent = 0;
    memset(r->detail, 0, sizeof r->detail);
    return 0;
}

const struct sst_file_header *sst_reader_header(const struct sst_reader *r)
{
    return &r->hdr;
}

const struct sst_read_status *sst_reader_status(const struct sst_reader *r)
{
    /* the count lives in the hot state; readers are never const objects (sst_reader_open) */
    ((struct sst_reader *)r)->st.records = r->hot.records;
    return &r->st;
}

/* Records and chunks the file says it held (the END chunk, else the highest sequence number
 * read), against those read; what is missing is lost, what is over is inconsistent. */
static void expected_counts(const struct sst_reader *r, const struct sst_read_status *st,
                            struct sst_damage *d)
{
    uint64_t present = st->records + st->inconsistent - r->shown_inconsistent + st->unknown_records;
    if (st->closed) {
        d->records_expected = st->end.records;
        d->chunks_expected = st->end.chunks;
    } else if (r->next_seq) { /* the END chunk would continue the sequence */
        uint64_t seen = r->next_seq;
        d->chunks_expected = seen > st->unknown_chunks ? (uint32_t)(seen - st->unknown_chunks) : 0;
    }
    uint64_t lost_rec = d->records_expected > present ? d->records_expected - present : 0;
    uint64_t lost_chunks = d->chunks_expected > d->chunks_read ? d->chunks_expected - d->chunks_read : 0;
    d->count[SST_DAMAGE_LOST] = lost_rec ? lost_rec : lost_chunks;
    if (st->closed && (present > st->end.records || d->chunks_read > st->end.chunks)) {
        d->count[SST_DAMAGE_INCONSISTENT]++;
        snprintf(d->detail[SST_DAMAGE_INCONSISTENT], SST_DAMAGE_DETAIL,
                 "the END chunk counts %" PRIu64 " records in %" PRIu32 " chunks, %" PRIu64
                 " in %" PRIu32 " were read", st->end.records, st->end.chunks, present,
                 d->chunks_read);
    }
    if (d->chunks_expected < d->chunks_read) d->chunks_expected = d->chunks_read;
    d->read_fraction = 1.0;
    if (d->records_expected)
        d->read_fraction = lost_rec ? (double)d->records_read / (double)d->records_expected : 1.0;
    else if (d->chunks_expected)
        d->read_fraction = (double)d->chunks_read / (double)d->chunks_expected;
}

/* The words of the kinds the reader measures itself: where the file ends, what was skipped,
 * how much was read. */
static void own_details(const struct sst_read_status *st, struct sst_damage *d)
{
    char *t = d->detail[SST_DAMAGE_TRUNCATED], *c = d->detail[SST_DAMAGE_CORRUPT];
    if (st->truncated && st->last_seq < 0)
        snprintf(t, SST_DAMAGE_DETAIL, "the trace has no end: it stops before its first chunk "
                 "(offset %" PRIu64 ")", st->truncated_at);
    else if (st->truncated)
        snprintf(t, SST_DAMAGE_DETAIL, "the trace has no end: it stops after chunk %" PRId32
                 " (offset %" PRIu64 ")", st->last_seq, st->truncated_at);
    if (st->bad_chunks)
        snprintf(c, SST_DAMAGE_DETAIL, "%" PRIu32 " damaged region%s skipped (first at offset %" PRIu64 ")",
                 st->bad_chunks, st->bad_chunks == 1 ? "" : "s", st->first_bad_offset);
    else if (st->malformed)
        snprintf(c, SST_DAMAGE_DETAIL, "%" PRIu64 " malformed record%s, the rest of %s chunk skipped",
                 st->malformed, st->malformed == 1 ? "" : "s", st->malformed == 1 ? "its" : "their");
    else if (st->trailing_bytes)
        snprintf(c, SST_DAMAGE_DETAIL, "%" PRIu64 " bytes after the END chunk", st->trailing_bytes);
    char *l = d->detail[SST_DAMAGE_LOST];
    if (d->records_expected)
        snprintf(l, SST_DAMAGE_DETAIL, "%" PRIu64 " of %" PRIu64 " records (%.1f %%) and %" PRIu32
                 " of %" PRIu32 " chunks read", d->records_read, d->records_expected,
                 100.0 * d->read_fraction, d->chunks_read, d->chunks_expected);
    else
        snprintf(l, SST_DAMAGE_DETAIL, "%" PRIu32 " of at least %" PRIu32 " chunks read (%" PRIu64
                 " records)", d->chunks_read, d->chunks_expected, d->records_read);
}

void sst_reader_damage(const struct sst_reader *r, struct sst_damage *d)
{
    const struct sst_read_status *st = sst_reader_status(r);
    memset(d, 0, sizeof *d);
    d->records_read = st->records;
    d->chunks_read = st->chunks;
    memcpy(d->detail, r->detail, sizeof d->detail);
    expected_counts(r, st, d);
    uint64_t *n = d->count;
    n[SST_DAMAGE_TRUNCATED] = st->truncated ? 1 : 0;
    n[SST_DAMAGE_CORRUPT] = sat_add(st->bad_chunks + (st->trailing_bytes ? 1 : 0), st->malformed);
    n[SST_DAMAGE_DROPPED] = st->closed && st->end.dropped > st->dropped ? st->end.dropped : st->dropped;
    n[SST_DAMAGE_DUPLICATE] = st->dup_chunks;
    n[SST_DAMAGE_ORDER] = st->late_chunks;
    n[SST_DAMAGE_INCONSISTENT] = sat_add(n[SST_DAMAGE_INCONSISTENT], st->inconsistent);
    int own_trunc = st->truncated, own_corrupt = n[SST_DAMAGE_CORRUPT] != 0, own_lost = n[SST_DAMAGE_LOST] != 0;
    own_details(st, d);
    for (int k = 1; k < SST_DAMAGE_LIMIT; k++) {
        n[k] = sat_add(n[k], st->imported[k]); /* the importer's input's damage is the trace's */
        d->damaged |= k != SST_DAMAGE_TRUNCATED && n[k] != 0;
    }
    /* kinds only an import knows: their words are the importer's */
    if (!own_trunc) memcpy(d->detail[SST_DAMAGE_TRUNCATED], r->detail[SST_DAMAGE_TRUNCATED], SST_DAMAGE_DETAIL);
    if (!own_corrupt) memcpy(d->detail[SST_DAMAGE_CORRUPT], r->detail[SST_DAMAGE_CORRUPT], SST_DAMAGE_DETAIL);
    if (!own_lost) memcpy(d->detail[SST_DAMAGE_LOST], r->detail[SST_DAMAGE_LOST], SST_DAMAGE_DETAIL);
    d->any = d->damaged || n[SST_DAMAGE_TRUNCATED];
}

/* Kinds whose detail is the whole phrase (where the input ends, how much was read); the
 * others say their count and what it counts, then the first occurrence. */
static const char k_detail_only[SST_DAMAGE_LIMIT] = {[SST_DAMAGE_TRUNCATED] = 1,
                                                     [SST_DAMAGE_CORRUPT] = 1,
                                                     [SST_DAMAGE_LOST] = 1};

/* Appends one kind to buf at *used ("; " between kinds). */
static void describe_kind(const struct sst_damage *d, int k, char *buf, size_t cap, size_t *used)
{
    const char *detail = d->detail[k];
    int n;
    if (*used >= cap) return;
    if (k_detail_only[k] && detail[0])
        n = snprintf(buf + *used, cap - *used, "%s%s: %s", *used ? "; " : "",
                     sst_damage_kind_name((uint8_t)k), detail);
    else
        n = snprintf(buf + *used, cap - *used, "%s%s: %" PRIu64 " %s%s%s%s", *used ? "; " : "",
                     sst_damage_kind_name((uint8_t)k), d->count[k], sst_damage_kind_what((uint8_t)k),
                     detail[0] ? " (first: " : "", detail, detail[0] ? ")" : "");
    if (n > 0) *used += (size_t)n;
}

const char *sst_damage_describe(const struct sst_damage *d, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap) buf[0] = '\0';
    for (int k = 1; k < SST_DAMAGE_LIMIT; k++)
        if (d->count[k]) describe_kind(d, k, buf, cap, &used);
    return buf;
}

/* Appends what damage cost after the file's own state (whose truncation it already says). */
static void append_damage(struct sst_reader *r, size_t used)
{
    struct sst_damage d;
    sst_reader_damage(r, &d);
    if (r->st.truncated) d.count[SST_DAMAGE_TRUNCATED]--; /* the state says it */
    if (!d.damaged && !d.count[SST_DAMAGE_TRUNCATED]) return;
    if (used >= sizeof r->line) return;
    int n = snprintf(r->line + used, sizeof r->line - used, "; DAMAGED: ");
    if (n > 0 && (size_t)n < sizeof r->line - used)
        sst_damage_describe(&d, r->line + used + (size_t)n, sizeof r->line - used - (size_t)n);
}

const char *sst_reader_state_line(struct sst_reader *r)
{
    struct sst_damage d;
    sst_reader_damage(r, &d);
    int n;
    if (r->st.truncated && r->st.last_seq < 0)
        n = snprintf(r->line, sizeof r->line, "truncated before the first chunk (offset %" PRIu64 ")",
                     r->st.truncated_at);
    else if (r->st.truncated)
        n = snprintf(r->line, sizeof r->line, "truncated after chunk %" PRId32 " (offset %" PRIu64 ")",
                     r->st.last_seq, r->st.truncated_at);
    else if (r->st.closed)
        n = snprintf(r->line, sizeof r->line, "%s, %" PRIu32 " chunk%s",
                     d.damaged ? "closed" : "complete", r->st.chunks,
                     r->st.chunks == 1 ? "" : "s");
    else
        n = snprintf(r->line, sizeof r->line, "read %" PRIu32 " chunk%s so far", r->st.chunks,
                     r->st.chunks == 1 ? "" : "s");
    append_damage(r, n > 0 ? (size_t)n : 0);
    return r->line;
}

void sst_reader_keep_raw(struct sst_reader *r, size_t budget)
{
    r->raw_keep = budget;
    if (!budget) raw_free(r);
}

void sst_reader_set_ahead(struct sst_reader *r, const struct sst_ahead_ops *ops, void *ctx)
{
    if (r->ahead) r->ahead->free(r->ahead_ctx); /* its threads are gone after this */
    r->ahead_payload = NULL;
    drop_payload(r); /* the payload may have been the pool's: read on from the next chunk */
    r->ahead = ops;
    r->ahead_ctx = ops ? ctx : NULL;
}

int sst_reader_source(const struct sst_reader *r, int *fd, uint64_t *size)
{
    if (r->fd < 0 || r->file_size == NO_OFFSET) return -1;
    *fd = r->fd, *size = r->file_size;
    return 0;
}

void sst_reader_close(struct sst_reader *r)
{
    if (!r)
        return;
    sst_reader_set_ahead(r, NULL, NULL);
    strings_free(r);
    if (r->zctx)
        sst_zstd_dctx_free(r->zctx);
    raw_free(r);
    free(r->seen);
    free(r->stored);
    if (r->slot) {
        map_drop(r);
        atomic_store(&r->slot->taken, 0);
    }
    free(r->raw);
    free(r->scan);
    if (r->f)
        fclose(r->f);
    else if (r->fd >= 0)
        close(r->fd);
    free(r);
}
