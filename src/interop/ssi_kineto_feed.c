/*
 * ssi_kineto_feed.c — the Kineto import's input read on a second thread: while the reader
 * (ssi_kineto_lex.c) parses one piece, the next is read — the kernel's copy out of the page
 * cache for a plain file (a tenth of the import on one core), zlib's inflating for a .json.gz.
 *
 * Two buffers take turns. Each piece lands KI_FEED_HEAD bytes into its buffer, so that the
 * reader's unread tail (the token cut by the previous piece's end) can be put in front of it:
 * nothing else is copied (ki_lex_adopt). A buffer goes back to the thread only when the parser
 * has moved on from it. Memory: the two buffers, whatever the input.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ssi_kineto_internal.h"

struct ki_feed {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gzFile gz;
    size_t size;           /* bytes read into a buffer at most */
    unsigned char *mem[2]; /* KI_FEED_HEAD + size + KI_LEX_PAD bytes each */
    int n[2];              /* gzread's count, once full */
    uint64_t zoff[2];      /* gzoffset after that read (progress line) */
    int full[2];           /* read, and not given back by the parser yet */
    int stop;              /* the parser wants no more */
    int take;              /* the buffer the parser takes next */
};

/* The thread: fills each buffer in turn once it is free; stops after the end or an error
 * (gzread's count <= 0) or when told. */
static void *feed_main(void *arg)
{
    struct ki_feed *f = arg;
    for (int i = 0;; i ^= 1) {
        pthread_mutex_lock(&f->mu);
        while (f->full[i] && !f->stop)
            pthread_cond_wait(&f->cv, &f->mu);
        int stop = f->stop;
        pthread_mutex_unlock(&f->mu);
        if (stop) break;
        int n = gzread(f->gz, f->mem[i] + KI_FEED_HEAD, (unsigned)f->size);
        uint64_t zoff = (uint64_t)gzoffset(f->gz);
        pthread_mutex_lock(&f->mu);
        f->n[i] = n, f->zoff[i] = zoff, f->full[i] = 1;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        if (n <= 0) break;
    }
    return NULL;
}

static void feed_free(struct ki_feed *f)
{
    free(f->mem[0]);
    free(f->mem[1]);
    free(f);
}

int ki_feed_start(struct ki_feed **out, gzFile gz, size_t size)
{
    *out = NULL;
    struct ki_feed *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->gz = gz, f->size = size;
    for (int i = 0; i < 2; i++)
        f->mem[i] = calloc(1, KI_FEED_HEAD + size + KI_LEX_PAD); /* padding zeroed: read only */
    if (!f->mem[0] || !f->mem[1] || pthread_mutex_init(&f->mu, NULL) != 0) {
        feed_free(f);
        return -1;
    }
    if (pthread_cond_init(&f->cv, NULL) != 0) {
        pthread_mutex_destroy(&f->mu);
        feed_free(f);
        return -1;
    }
    if (pthread_create(&f->th, NULL, feed_main, f) != 0) {
        pthread_cond_destroy(&f->cv);
        pthread_mutex_destroy(&f->mu);
        feed_free(f);
        return -1;
    }
    *out = f;
    return 0;
}

int ki_feed_next(struct ki_feed *f, unsigned char **mem, uint64_t *zoff)
{
    int i = f->take;
    pthread_mutex_lock(&f->mu);
    while (!f->full[i])
        pthread_cond_wait(&f->cv, &f->mu);
    int n = f->n[i];
    *zoff = f->zoff[i];
    pthread_mutex_unlock(&f->mu);
    f->take ^= 1;
    *mem = f->mem[i];
    return n;
}

void ki_feed_done(struct ki_feed *f, const unsigned char *mem)
{
    pthread_mutex_lock(&f->mu);
    f->full[mem == f->mem[1]] = 0;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

void ki_feed_stop(struct ki_feed *f)
{
    if (!f) return;
    pthread_mutex_lock(&f->mu);
    f->stop = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->th, NULL);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    feed_free(f);
}
