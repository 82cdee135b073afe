/*
 * sst_multihost.c — synthetic multi-host copies of real rank traces (sst_multihost.h says
 * what). Every record is copied as it was read (STRING records with their ids, so no record
 * needs its string ids rewritten); only times, the PROCESS record and, on the slow host, the
 * collectives' starts change. One more STRING (an id above any the writer assigns) names the
 * host.
 */
#include "sst_multihost.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ssa_align.h"
#include "trace/sst_reader.h"
#include "trace/sst_writer.h"
#include "trace/sst_zstd.h"
#include "util/ss_error.h"

#define HOST_STRING_ID 0x7fffff01u    /* readers treat ids as arbitrary numbers */
#define PAIR_EVERY_NS 10000000000ull  /* the collector's CLOCK period: 10 s */

uint64_t smh_local_ns(const struct smh_host *h, uint64_t anchor, uint64_t true_ns)
{
    if (!h) return true_ns;
    double since = (double)(int64_t)(true_ns - anchor);
    int64_t shift = (int64_t)(h->offset_s * 1e9 + since * h->drift_ppm / 1e6);
    return true_ns + (uint64_t)shift; /* wraps to the right value for a negative shift */
}

uint64_t smh_anchor(const struct smh_opts *o)
{
    struct sst_reader *r;
    if (!o->n_inputs || sst_reader_open(o->inputs[0], NULL, &r)) return 0;
    uint64_t a = sst_reader_header(r)->start_mono_ns;
    sst_reader_close(r);
    return a;
}

/* One copy being written: where it comes from and what it becomes. */
struct copy {
    const struct smh_opts *o;
    const struct smh_host *clk; /* NULL: true clocks */
    uint64_t anchor;
    size_t host, local;
    int slow;
    struct sst_reader *r;
    struct sst_writer *w;
    struct sst_compressor z; /* zstd level 3, as the collector: copies as small as sources */
    uint64_t first_ns, last_ns; /* the source's span, for the CLOCK pairs written at close */
    int had_pairs;              /* the source has CLOCK records: moved, none made up */
    uint64_t rng;               /* xorshift64 state of the jitter, seeded by the rank */
};

static uint64_t local_of(const struct copy *c, uint64_t t)
{
    return smh_local_ns(c->clk, c->anchor, t);
}

static int64_t ntp_ns(const struct copy *c)
{
    return c->clk ? (int64_t)(c->clk->ntp_us * 1e3) : 0;
}

static void hostname(const struct copy *c, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%02zu", c->o->host_prefix ? c->o->host_prefix : "node", c->host);
}

/* The hostname's STRING record, written before the PROCESS record that names it. */
static int write_host_string(struct copy *c)
{
    char name[64];
    hostname(c, name, sizeof name);
    size_t len = strlen(name), size = (sizeof(struct sst_rec_string) + len + 7) & ~(size_t)7;
    struct sst_rec_string *s = sst_writer_reserve(c->w, SST_REC_STRING, size);
    if (!s) return sst_writer_error(c->w) ? sst_writer_error(c->w) : SS_ENOMEM;
    s->id = HOST_STRING_ID, s->len = (uint32_t)len;
    memcpy(s + 1, name, len);
    return 0;
}

static void fix_process(struct copy *c, struct sst_rec_process *p)
{
    p->rank = (int32_t)(c->host * c->o->ranks_per_host + c->local);
    p->local_rank = (int32_t)c->local;
    p->world_size = (int32_t)(c->o->hosts * c->o->ranks_per_host);
    p->hostname = HOST_STRING_ID; /* its start_ns moves with the other times */
}

/* A uniform shift in [-jitter, +jitter] ns. */
static int64_t jitter_ns(struct copy *c)
{
    c->rng ^= c->rng << 13, c->rng ^= c->rng >> 7, c->rng ^= c->rng << 17;
    double u = (double)(c->rng >> 11) / 9007199254740992.0; /* [0, 1) */
    return (int64_t)((2 * u - 1) * c->o->jitter_us * 1e3);
}

/* A collective kernel moved by the jitter (whole), then its start delayed on the slow host,
 * at most to its end: it arrived later, and the collective still ends when it did (everyone
 * leaves together). */
static void move_collective(struct copy *c, struct sst_rec_kernel *k)
{
    uint32_t len;
    const char *name = sst_reader_string(c->r, k->name, &len);
    if (!name || !ssa_align_collective(name, len)) return;
    if (c->o->jitter_us > 0) {
        int64_t j = jitter_ns(c);
        k->start_ns += (uint64_t)j, k->end_ns += (uint64_t)j;
    }
    uint64_t d = c->slow ? (uint64_t)(c->o->delay_us * 1e3) : 0;
    k->start_ns = k->end_ns - k->start_ns > d ? k->start_ns + d : k->end_ns;
}

static void move_times(struct copy *c, uint8_t *rec, uint16_t type)
{
    size_t a, b;
    uint64_t t;
    if (!sst_rec_time_fields(type, &a, &b)) return;
    size_t offs[2] = {a, b};
    for (int i = 0; i < (a == b ? 1 : 2); i++) {
        memcpy(&t, rec + offs[i], sizeof t);
        if (t && t < c->first_ns) c->first_ns = t;
        if (t > c->last_ns) c->last_ns = t;
        if (t || type != SST_REC_PROCESS) t = local_of(c, t);
        memcpy(rec + offs[i], &t, sizeof t);
    }
}

/* One record: copied, its times moved; the PROCESS record renamed, CLOCK pairs moved on
 * their MONOTONIC side and given the host's wall-clock error. */
static int copy_record(struct copy *c, const struct sst_rec_header *h)
{
    uint8_t buf[SST_REC_MAX];
    memcpy(buf, h, h->size);
    if (h->type == SST_REC_PROCESS && h->size >= sizeof(struct sst_rec_process)) {
        int rc = write_host_string(c);
        if (rc) return rc;
        fix_process(c, (struct sst_rec_process *)(void *)buf);
    }
    if (h->type == SST_REC_KERNEL && h->size >= sizeof(struct sst_rec_kernel))
        move_collective(c, (struct sst_rec_kernel *)(void *)buf);
    move_times(c, buf, h->type);
    if (h->type == SST_REC_CLOCK && h->size >= sizeof(struct sst_rec_clock)) {
        struct sst_rec_clock *k = (struct sst_rec_clock *)(void *)buf;
        k->unix_ns += (uint64_t)ntp_ns(c), c->had_pairs = 1;
    }
    return sst_writer_append(c->w, buf);
}

/* A source without CLOCK records (format before v5) gets the collector's: at the start,
 * every 10 s and at the end, from its header's pair (true wall time on the source). */
static int make_pairs(struct copy *c)
{
    const struct sst_file_header *fh = sst_reader_header(c->r);
    if (c->had_pairs || c->last_ns < c->first_ns) return 0;
    for (uint64_t t = c->first_ns;; t += PAIR_EVERY_NS) {
        if (t > c->last_ns) t = c->last_ns;
        struct sst_rec_clock k = {{SST_REC_CLOCK, sizeof k}, 0, local_of(c, t), 0};
        k.unix_ns = fh->start_unix_ns + (t - fh->start_mono_ns) + (uint64_t)ntp_ns(c);
        int rc = sst_writer_append(c->w, &k);
        if (rc || t == c->last_ns) return rc;
    }
}

static int open_copy(struct copy *c, const char *src, const char *dst)
{
    int rc = sst_reader_open(src, NULL, &c->r);
    if (rc) return rc;
    const struct sst_file_header *fh = sst_reader_header(c->r);
    struct sst_writer_opts wo = {0};
    wo.features = fh->features, wo.clock = fh->clock, wo.pid = fh->pid;
    wo.start_mono_ns = local_of(c, fh->start_mono_ns);
    wo.start_unix_ns = fh->start_unix_ns + (uint64_t)ntp_ns(c);
    if (sst_zstd_compressor_init(&c->z, 3) == 0) wo.compressor = c->z;
    return sst_writer_open(dst, &wo, &c->w);
}

static int copy_all(struct copy *c)
{
    const struct sst_rec_header *h;
    int got, rc = 0;
    c->first_ns = UINT64_MAX;
    while (!rc && (got = sst_reader_next(c->r, &h)) == 1)
        rc = copy_record(c, h);
    if (!rc && got < 0) rc = got;
    if (!rc) rc = make_pairs(c);
    return rc;
}

/* The END chunk's time: the source's, moved (the records' last when it was not closed). */
static uint64_t end_of(const struct copy *c)
{
    const struct sst_read_status *st = sst_reader_status(c->r);
    return local_of(c, st->closed ? st->end.end_mono_ns : c->last_ns);
}

static int write_copy(const struct smh_opts *o, uint64_t anchor, size_t host, size_t local)
{
    struct copy c = {.o = o, .clk = o->clock ? &o->clock[host] : NULL, .anchor = anchor,
                     .host = host, .local = local};
    c.slow = o->slow_host >= 0 && (size_t)o->slow_host == host;
    c.rng = 0x9e3779b97f4a7c15ull ^ (host * o->ranks_per_host + local + 1) * 0xbf58476d1ce4e5b9ull;
    char dst[4096], name[64];
    hostname(&c, name, sizeof name);
    snprintf(dst, sizeof dst, "%s/%s-r%zu.sstrace", o->out_dir, name,
             host * o->ranks_per_host + local);
    const char *src = o->inputs[local % o->n_inputs];
    int rc = open_copy(&c, src, dst);
    if (!rc) rc = copy_all(&c);
    if (c.w) {
        int cl = sst_writer_close(c.w, end_of(&c));
        rc = rc ? rc : cl;
    }
    if (c.r) sst_reader_close(c.r);
    sst_zstd_compressor_free(&c.z);
    if (rc) fprintf(stderr, "sst-multihost: %s -> %s: %s\n", src, dst, ss_strerror(rc));
    return rc;
}

int smh_write_all(const struct smh_opts *o)
{
    if (!o->n_inputs || !o->hosts || !o->ranks_per_host || o->hosts > SMH_MAX_HOSTS) {
        fprintf(stderr, "sst-multihost: nothing to write (inputs, hosts, ranks per host)\n");
        return SS_EUSAGE;
    }
    if (mkdir(o->out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "sst-multihost: %s: %s\n", o->out_dir, strerror(errno));
        return SS_EIO;
    }
    uint64_t anchor = smh_anchor(o);
    for (size_t h = 0; h < o->hosts; h++)
        for (size_t l = 0; l < o->ranks_per_host; l++) {
            int rc = write_copy(o, anchor, h, l);
            if (rc) return rc;
        }
    return 0;
}
