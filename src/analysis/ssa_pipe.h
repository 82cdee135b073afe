/*
 * ssa_pipe.h — one worker thread that runs jobs in the order they are handed to it, each job
 * a fixed-size slot of a ring the caller fills (issue #44: pass 2's sweep of each closed step
 * runs on the second core while the first goes on reading records).
 *
 * The caller (one thread) fills the next free slots (ssa_pipe_slot, ssa_pipe_fill), hands them
 * over (ssa_pipe_push: one publication for all of them), and takes the jobs back done, oldest
 * first (ssa_pipe_done, ssa_pipe_retire): a slot belongs to the worker from its push until it
 * is done, and to the caller before and after. Nothing else is shared, so what the worker
 * touches of a job needs no other lock.
 */
#ifndef SSA_PIPE_H
#define SSA_PIPE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

typedef void (*ssa_pipe_fn)(void *ctx, void *job);

/* One side's counter of jobs (pushed: the caller's; swept: the worker's) and whether the
 * other side sleeps waiting for it to move. */
struct ssa_pipe_ctr {
    _Atomic size_t n;
    atomic_int sleeping;
    pthread_cond_t cv;
};

/* Each side writes its own cache line (its counter; the caller its counts of jobs filled and
 * retired too) and only reads the other's: a line both wrote would move between the cores at
 * every job. */
struct ssa_pipe {
    unsigned char *slots; /* 64-byte aligned: a job of a multiple of 64 bytes starts a line */
    size_t job_size, n_slots;
    atomic_int quit;
    pthread_mutex_t mu;
    pthread_t th;
    ssa_pipe_fn fn;
    void *ctx;
    _Alignas(64) struct ssa_pipe_ctr pushed;
    size_t filled;  /* the caller's only: slots filled after the pushed ones, not pushed yet */
    size_t retired; /* the caller's only: jobs taken back */
    _Alignas(64) struct ssa_pipe_ctr swept;
};

/* Starts the worker, which calls fn(ctx, job) for each job pushed; n_slots jobs of job_size
 * bytes at most in flight. 0, or SS_ENOMEM / SS_EIO (no thread: p is left unstarted). */
int ssa_pipe_start(struct ssa_pipe *p, size_t job_size, size_t n_slots, ssa_pipe_fn fn,
                   void *ctx);

/* The next free slot to fill, or NULL when every slot is filled, in flight or done but not
 * retired. */
void *ssa_pipe_slot(struct ssa_pipe *p);

/* The slot ssa_pipe_slot returned is filled: the worker gets it at the next ssa_pipe_push. */
void ssa_pipe_fill(struct ssa_pipe *p);

/* Hands every filled slot to the worker. A push is a full barrier (the worker may sleep: see
 * ssa_pipe.c), so a caller with several jobs at once fills them all and pushes once. */
void ssa_pipe_push(struct ssa_pipe *p);

/* The oldest job not retired once it is done, or NULL: none pushed, or (wait 0) not done yet.
 * Waits only for pushed jobs. */
void *ssa_pipe_done(struct ssa_pipe *p, int wait);

/* Gives the slot ssa_pipe_done returned back to the ring. */
void ssa_pipe_retire(struct ssa_pipe *p);

/* Stops the worker once every pushed job is done (retire them first or after: their slots
 * are freed here; slots filled and not pushed are dropped). */
void ssa_pipe_stop(struct ssa_pipe *p);

#endif
