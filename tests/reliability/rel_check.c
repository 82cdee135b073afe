/*
 * rel_check.c — one line of facts per trace in a folder, for run_fault.sh to judge:
 *
 *   rel_check DIR
 *   FILE closed=0|1 truncated=0|1 bad_chunks=N malformed=N records=N dropped=N pid=N ppid=N
 *        first_ns=N last_nvtx_ns=N last_nvtx_unix_ns=N kernels=N last_kernel_unix_ns=N threads=N
 *        undefined_refs=N push.NAME=N ...
 *
 * push.NAME counts NVTX pushes by message (messages of up to 24 plain characters; longer ones
 * are counted together as push.*long*); threads counts distinct tids that pushed; dropped is
 * the sum of DROPPED records; last_nvtx_unix_ns is the last push or pop in CLOCK_REALTIME ns
 * (through the header's start_mono_ns / start_unix_ns pair), last_kernel_unix_ns the end of
 * the last kernel (the GPU rows, gpu_faults.sh). Exits 1 when a trace cannot be opened at all.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sst_reader.h"

#define MAX_NAMES 32
#define MAX_TIDS 1024

struct facts {
    struct {
        char name[32];
        unsigned long long n;
    } push[MAX_NAMES];
    int npush;
    unsigned long long long_pushes, dropped, undefined, last_nvtx, first, kernels, last_kernel;
    uint32_t tids[MAX_TIDS];
    int ntids;
    uint32_t pid, ppid;
};

static void count_push(struct facts *f, const char *msg)
{
    size_t len = msg ? strlen(msg) : 0;
    int plain = len > 0 && len <= 24;
    for (size_t i = 0; plain && i < len; i++)
        plain = msg[i] > ' ' && msg[i] < 127 && msg[i] != '=';
    if (!plain) {
        f->long_pushes++;
        return;
    }
    for (int i = 0; i < f->npush; i++)
        if (!strcmp(f->push[i].name, msg)) {
            f->push[i].n++;
            return;
        }
    if (f->npush < MAX_NAMES) {
        snprintf(f->push[f->npush].name, sizeof f->push[0].name, "%s", msg);
        f->push[f->npush++].n = 1;
    }
}

static void add_tid(struct facts *f, uint32_t tid)
{
    for (int i = 0; i < f->ntids; i++)
        if (f->tids[i] == tid) return;
    if (f->ntids < MAX_TIDS) f->tids[f->ntids++] = tid;
}

static void on_record(struct sst_reader *r, struct facts *f, const struct sst_rec_header *h)
{
    if (h->type == SST_REC_NVTX_POP) {
        const struct sst_rec_nvtx *n = (const void *)h;
        if (n->ts_ns > f->last_nvtx) f->last_nvtx = n->ts_ns;
    } else if (h->type == SST_REC_NVTX_PUSH) {
        const struct sst_rec_nvtx *n = (const void *)h;
        const char *msg = n->message ? sst_reader_string(r, n->message, NULL) : NULL;
        if (n->message && !msg) f->undefined++;
        count_push(f, msg);
        add_tid(f, n->tid);
        if (n->ts_ns > f->last_nvtx) f->last_nvtx = n->ts_ns;
        if (!f->first || n->ts_ns < f->first) f->first = n->ts_ns;
    } else if (h->type == SST_REC_KERNEL) {
        const struct sst_rec_kernel *k = (const void *)h;
        f->kernels++;
        if (k->end_ns > f->last_kernel) f->last_kernel = k->end_ns;
    } else if (h->type == SST_REC_DROPPED) {
        f->dropped += ((const struct sst_rec_dropped *)(const void *)h)->count;
    } else if (h->type == SST_REC_PROCESS) {
        const struct sst_rec_process *p = (const void *)h;
        f->pid = p->pid, f->ppid = p->ppid;
    }
}

static int check_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct sst_reader *r;
    int rc = sst_reader_open(path, NULL, &r);
    if (rc != 0) {
        printf("%s unreadable=%d\n", name, rc);
        return 1;
    }
    struct facts *f = calloc(1, sizeof *f);
    if (!f) return 1;
    const struct sst_rec_header *h;
    while (sst_reader_next(r, &h) == 1)
        on_record(r, f, h);
    const struct sst_read_status *st = sst_reader_status(r);
    const struct sst_file_header *fh = sst_reader_header(r);
    unsigned long long last_unix =
        f->last_nvtx ? fh->start_unix_ns + (f->last_nvtx - fh->start_mono_ns) : 0;
    unsigned long long last_kunix =
        f->last_kernel ? fh->start_unix_ns + (f->last_kernel - fh->start_mono_ns) : 0;
    printf("%s closed=%d truncated=%d bad_chunks=%u malformed=%llu records=%llu dropped=%llu "
           "pid=%u ppid=%u first_ns=%llu last_nvtx_ns=%llu last_nvtx_unix_ns=%llu kernels=%llu "
           "last_kernel_unix_ns=%llu threads=%d undefined_refs=%llu",
           name, st->closed, st->truncated, st->bad_chunks, (unsigned long long)st->malformed,
           (unsigned long long)st->records, f->dropped, f->pid, f->ppid, f->first, f->last_nvtx,
           last_unix, f->kernels, last_kunix, f->ntids, f->undefined);
    for (int i = 0; i < f->npush; i++)
        printf(" push.%s=%llu", f->push[i].name, f->push[i].n);
    if (f->long_pushes) printf(" push.*long*=%llu", f->long_pushes);
    printf("\n");
    free(f);
    sst_reader_close(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rel_check DIR\n");
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 1;
    }
    int bad = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 8 && !strcmp(de->d_name + n - 8, ".sstrace"))
            bad |= check_file(argv[1], de->d_name);
    }
    closedir(d);
    return bad;
}
