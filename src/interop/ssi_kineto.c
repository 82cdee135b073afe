/*
 * ssi_kineto.c — torch.profiler (Kineto) Chrome-trace JSON -> stepscope trace, streamed.
 *
 * zlib reads the input (gzip, or plain text, which gzread passes through) on a second thread
 * (ssi_kineto_feed.c; here, when no thread can start or a token outgrows a piece's headroom);
 * the reader (ssi_kineto_lex.c) turns it into callbacks (ssi_kineto_parse.c) that hand each
 * finished event to the emitter (ssi_kineto_emit.c), which appends records to an sst_writer on
 * the output file (written directly and removed on failure: the CLI hands a temporary file of
 * its own, src/util/ss_out.h). Memory does not grow with the input: the reader keeps one read
 * and the token it ends in, and tokens are capped (KI_TOKEN_MAX); nesting is capped by the
 * callbacks (KI_MAX_DEPTH). Every failure is one line in err and no output file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "interop/ssi.h"
#include "ssi_kineto_internal.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"
#include "util/ss_progress.h"

#define KI_READ_CHUNK (256u << 10) /* zlib's buffer */
/* Each read asks for at least twice zlib's buffer: zlib then reads a plain file straight into
 * the reader's buffer instead of through its own (a copy less). */
#define KI_READ_WANT (2 * KI_READ_CHUNK)
#define KI_FEED_PIECE (4 * KI_READ_CHUNK) /* each piece the feed thread reads */

/* ---- the import ---- */

struct kimport {
    const char *in_path, *out_path;
    int created; /* out_path was made by this import and is not finished: removed on failure */
    uint64_t in_size; /* bytes of the input file (0: unknown), for the progress line */
    gzFile gz;
    struct ki_feed *feed;        /* the thread reading ahead; NULL: reads are made here */
    const unsigned char *piece;  /* the feed's buffer the reader is in */
    struct ki_lex lex;
    uint64_t offset; /* uncompressed bytes read (after a BOM) */
    struct ki_out out;
    struct ki_parser p;
    char *err;
    size_t errlen;
};

static int say(struct kimport *k, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int say(struct kimport *k, int rc, const char *fmt, ...)
{
    if (k->err && k->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(k->err, k->errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int open_input(struct kimport *k)
{
    int fd = open(k->in_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return say(k, ss_from_errno(errno), "cannot open: %s", strerror(errno));
    k->gz = gzdopen(fd, "rb");
    if (!k->gz) {
        close(fd);
        return say(k, SS_ENOMEM, "cannot read: out of memory");
    }
    gzbuffer(k->gz, KI_READ_CHUNK);
    struct stat st;
    k->in_size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    return 0;
}

static int open_output(struct kimport *k)
{
    k->out.fd = open(k->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
    if (k->out.fd < 0)
        return say(k, ss_from_errno(errno), "cannot create %s: %s", k->out_path, strerror(errno));
    k->created = 1;
    return 0;
}

/* zlib's verdict after a short read: truncated, corrupted, or fine (end of input). */
static int gz_status(struct kimport *k)
{
    int zerr;
    const char *m = gzerror(k->gz, &zerr);
    switch (zerr) {
    case Z_OK:
    case Z_STREAM_END:
        return 0;
    case Z_BUF_ERROR:
        return say(k, SS_ETRUNC, "gzip data is truncated at byte %llu",
                   (unsigned long long)k->offset);
    case Z_ERRNO:
        return say(k, ss_from_errno(errno), "cannot read: %s", strerror(errno));
    case Z_MEM_ERROR:
        return say(k, SS_ENOMEM, "out of memory while decompressing");
    default:
        return say(k, SS_ECORRUPT, "gzip data is corrupted (%s)", m ? m : "?");
    }
}

/* The reader's failure as one line. */
static int lex_failure(struct kimport *k, int rc)
{
    if (rc == KL_STOP) return say(k, k->p.err, "%s", k->p.msg); /* a callback stopped it */
    if (rc == KL_BIG)
        return say(k, SS_ETOOBIG, "a JSON string or number longer than %u MiB at byte %llu",
                   KI_TOKEN_MAX >> 20, (unsigned long long)k->lex.err_at);
    return say(k, SS_ECORRUPT, "not valid JSON at byte %llu: %s",
               (unsigned long long)k->lex.err_at, k->lex.err);
}

/* n bytes just read at `at`, less a UTF-8 BOM at the start of the input. */
static size_t drop_bom(const struct kimport *k, unsigned char *at, size_t n)
{
    if (k->offset != 0 || k->lex.end != k->lex.pos || n < 3 || memcmp(at, "\xef\xbb\xbf", 3) != 0)
        return n;
    memmove(at, at + 3, n - 3);
    return n - 3;
}

/* Reads the next piece of the input after what the reader left: gzread's count (0 at the
 * end, negative on an error, -2 out of memory). */
static int read_more(struct kimport *k, uint64_t *zoff)
{
    unsigned char *at;
    size_t room;
    if (ki_lex_room(&k->lex, KI_READ_WANT, &at, &room)) return -2;
    int n = gzread(k->gz, at, (unsigned)(room < INT32_MAX ? room : INT32_MAX));
    if (n <= 0) return n;
    size_t len = drop_bom(k, at, (size_t)n);
    ki_lex_added(&k->lex, len);
    k->offset += len;
    *zoff = (uint64_t)gzoffset(k->gz);
    return n;
}

/* Ends the feed thread: the reader's unread tail first copied out of its buffers. From here
 * reads are made here (read_more). 0 or -2 (out of memory). */
static int stop_feed(struct kimport *k)
{
    unsigned char *at;
    size_t room;
    int rc = ki_lex_room(&k->lex, 1, &at, &room) ? -2 : 0;
    ki_feed_stop(k->feed);
    k->feed = NULL, k->piece = NULL;
    return rc;
}

/* A piece the feed read (n bytes at mem + KI_FEED_HEAD) into the reader: in place, or, when
 * the reader's tail does not fit before it (a token over KI_FEED_HEAD: hostile input), copied
 * after the tail and the thread ended. 0 or -2. */
static int take_piece(struct kimport *k, unsigned char *mem, size_t n)
{
    unsigned char *data = mem + KI_FEED_HEAD, *at;
    size_t len = drop_bom(k, data, n), room;
    k->offset += len;
    if (ki_lex_adopt(&k->lex, mem, len) == 0) {
        if (k->piece) ki_feed_done(k->feed, k->piece); /* the reader left it */
        k->piece = mem;
        return 0;
    }
    if (ki_lex_room(&k->lex, len, &at, &room)) return stop_feed(k), -2;
    memcpy(at, data, len);
    ki_lex_added(&k->lex, len);
    return stop_feed(k);
}

/* The next piece of the input into the reader, from the feed while it runs: as read_more. */
static int next_piece(struct kimport *k, uint64_t *zoff)
{
    if (!k->feed) return read_more(k, zoff);
    unsigned char *mem;
    int n = ki_feed_next(k->feed, &mem, zoff);
    if (n <= 0) return stop_feed(k) ? -2 : n; /* the thread has stopped: gz is ours */
    return take_piece(k, mem, (size_t)n) ? -2 : n;
}

/* A capture cut short (a profiler killed while writing, a partial copy) is imported up to
 * its last complete event and marked (ENV import.truncated_at): the report says so, as for
 * a truncated trace. Without one complete event it stays an error. */
static int accept_truncated(struct kimport *k, int rc)
{
    if (rc != SS_ETRUNC || k->out.recognised == 0) return rc;
    k->out.truncated_at = k->offset ? k->offset : 1;
    if (k->err && k->errlen) { /* the trace's DAMAGE record says it from now on */
        const char *m = strncmp(k->err, "truncated: ", 11) == 0 ? k->err + 11 : k->err;
        snprintf(k->out.cut_msg, sizeof k->out.cut_msg, "%s", m);
        k->err[0] = '\0';
    }
    return 0;
}

/* At the end of the input: the last token, and a document that must be closed. */
static int parse_end(struct kimport *k)
{
    int rc = gz_status(k);
    if (rc) return accept_truncated(k, rc);
    if (k->offset == 0) return say(k, SS_EEMPTY, "file is empty");
    k->lex.eof = 1;
    rc = ki_lex_run(&k->lex, &k->p);
    if (rc) return lex_failure(k, rc);
    if (!ki_lex_complete(&k->lex))
        return accept_truncated(k, say(k, SS_ETRUNC,
                                       "truncated: the JSON ends at byte %llu inside the document",
                                       (unsigned long long)k->offset));
    return 0;
}

/* Reads and parses the whole input. */
static int parse_all(struct kimport *k)
{
    for (;;) {
        uint64_t zoff = 0;
        int n = next_piece(k, &zoff);
        if (n == -2) return say(k, SS_ENOMEM, "out of memory");
        if (n < 0) {
            int rc = gz_status(k);
            return rc ? accept_truncated(k, rc) : say(k, SS_EIO, "cannot read");
        }
        if (n == 0) break;
        ss_progress_report(zoff, k->in_size);
        int rc = ki_lex_run(&k->lex, &k->p);
        if (rc) return lex_failure(k, rc);
    }
    return parse_end(k);
}

/* After parsing: is it a Kineto trace with something in it? */
static int check_kineto(struct kimport *k)
{
    if (!k->p.seen_events)
        return say(k, SS_EINVAL, "not a torch.profiler trace: no \"traceEvents\" array");
    if (k->p.n_events == 0) return say(k, SS_EINVAL, "\"traceEvents\" is empty");
    if (k->out.recognised == 0)
        return say(k, SS_EINVAL,
                   "not a torch.profiler (Kineto) trace: none of its %llu events has a Kineto "
                   "category",
                   (unsigned long long)k->p.n_events);
    return 0;
}

/* Closes the writer (a trace with no timed event still gets its header and process). */
static int finish_output(struct kimport *k)
{
    struct ki_out *o = &k->out;
    char msg[256];
    int rc = ki_emit_finish(o, msg, sizeof msg);
    if (rc) return say(k, rc, "%s", msg);
    if (!o->w)
        return say(k, SS_EINVAL,
                   "nothing to import: no GPU activity, CUDA API call or annotation among its "
                   "%llu events",
                   (unsigned long long)o->events);
    struct sst_writer *w = o->w;
    o->w = NULL;
    rc = sst_writer_close(w, o->last_ns > o->first_ns ? o->last_ns : o->first_ns);
    if (rc) return say(k, rc, "cannot write the trace: %s", ss_strerror(rc));
    k->created = 0; /* finished: nothing to remove */
    return 0;
}

static void cleanup(struct kimport *k)
{
    ki_feed_stop(k->feed); /* before gzclose: the thread reads gz */
    ki_lex_free(&k->lex);
    if (k->gz) gzclose(k->gz);
    if (k->out.w)
        sst_writer_abandon(k->out.w, 0);
    else if (k->out.fd >= 0)
        close(k->out.fd);
    sst_zstd_compressor_free(&k->out.zc);
    if (k->created) unlink(k->out_path);
}

int ssi_kineto_import(const char *in_path, const char *out_path, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    struct kimport *k = calloc(1, sizeof *k);
    if (!k) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return SS_ENOMEM;
    }
    k->in_path = in_path, k->out_path = out_path, k->err = err, k->errlen = errlen;
    k->out.fd = -1;
    k->out.rank = k->out.world_size = -1;
    k->out.src_name = in_path;
    k->p.out = &k->out;
    int rc = open_input(k);
    if (!rc) rc = open_output(k);
    if (!rc && ki_lex_init(&k->lex, 2 * KI_READ_WANT)) rc = say(k, SS_ENOMEM, "out of memory");
    /* Read ahead only from a regular file: a pipe or a terminal may hold back its next bytes
     * for ever, and an import that failed would wait for them to stop its thread. */
    if (!rc && (k->in_size == 0 || ki_feed_start(&k->feed, k->gz, KI_FEED_PIECE) != 0))
        k->feed = NULL; /* no thread: reads are made here */
    if (!rc) rc = parse_all(k);
    if (!rc) rc = check_kineto(k);
    if (!rc) rc = finish_output(k);
    cleanup(k);
    free(k);
    return rc;
}

/* ---- the importer's row (ssi.h: SSI_IMPORTERS) ---- */

static int json_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Index of the first byte at or after i that is not JSON whitespace (n: none). */
static size_t skip_space(const unsigned char *b, size_t n, size_t i)
{
    while (i < n && json_space(b[i])) i++;
    return i;
}

/* What may follow a document's opening bracket (after whitespace): a key or '}' in an
 * object; a value or ']' in an array. */
static int json_second(unsigned char open, unsigned char c)
{
    if (open == '{') return c == '"' || c == '}';
    return c == ']' || strchr("{[\"-0123456789tfn", c) != NULL;
}

/* A JSON document starts with '{' or '[' after optional whitespace (and a UTF-8 BOM), goes on
 * with a key or value, and holds no control bytes but whitespace (JSON escapes them). Random
 * bytes passed the first test alone about 1 time in 120: `import /dev/urandom` then spooled
 * the endless stream instead of saying "not a trace". Any JSON is taken: the importer says
 * what is not Kineto's in it ("no traceEvents array"). */
static int looks_like_json(const unsigned char *b, size_t n)
{
    size_t i = n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
    i = skip_space(b, n, i);
    if (i >= n || (b[i] != '{' && b[i] != '[')) return 0;
    size_t j = skip_space(b, n, i + 1);
    if (j < n && !json_second(b[i], b[j])) return 0;
    for (size_t k = i; k < n; k++)
        if (b[k] < 0x20 && !json_space(b[k])) return 0;
    return 1;
}

const struct ssi_importer ssi_import_kineto = {
    "kineto",
    looks_like_json,
    ssi_kineto_import,
    ".pt.trace.json.gz .pt.trace.json .json.gz .json",
    "torch.profiler (Kineto) Chrome-trace JSON, plain or gzip-compressed\n"
    "(streamed: files of several GB take constant memory).",
    "torch.profiler JSON",
    1,
};
