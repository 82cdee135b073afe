/*
 * ss_out.h — writing an output file without ever losing what was at its path (prefix ss_out_).
 *
 * A recording cannot be made again, so every file the CLI writes goes through here:
 *   - a regular file (or nothing) at the path: the output is written to a temporary file in
 *     the same folder and renamed over the path only when complete; a file that is replaced
 *     keeps its mode and owner; a new file is 0600;
 *   - a symlink is followed to its target (the link itself stays);
 *   - "-", /dev/stdout, /dev/fd/N, a character device, a FIFO or a socket is a stream: the
 *     output is written whole to a temporary file under $TMPDIR, then copied into the stream
 *     (never renamed over it); a FIFO with no reader is refused at once instead of blocking;
 *   - a read-only file is refused unless SS_OUT_FORCE; with SS_OUT_NO_CLOBBER an existing file
 *     is refused unless SS_OUT_FORCE;
 *   - a folder in which no temporary file can be made (not writable) but whose file is
 *     writable: the file is overwritten in place, once the whole output exists.
 * Temporary files are tracked (ss_tmp_track) and removed when SIGINT, SIGTERM or SIGHUP ends
 * the process, so an interrupted export leaves nothing behind. What SIGKILL leaves is swept:
 * every temporary name carries its process's pid ("stepscope-in-pid4242-Ab3xYz" under $TMPDIR,
 * ".OUT.stepscope-pid4242-Ab3xYz" beside an output), and the first temporary file a process
 * makes in a folder removes there the ones whose process is gone (ss_tmp.c).
 */
#ifndef SS_OUT_H
#define SS_OUT_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

enum ss_out_flag {
    SS_OUT_FORCE = 1u << 0,      /* replace a read-only or (with NO_CLOBBER) existing file */
    SS_OUT_NO_CLOBBER = 1u << 1, /* refuse an existing file unless FORCE */
};

struct ss_out {
    char path[PATH_MAX]; /* the target: symlinks followed; shown in messages */
    char tmp[PATH_MAX];  /* the file to write (exists, empty, 0600 after ss_out_begin) */
    int stream_fd;       /* >= 0: a stream the finished tmp is copied into at commit */
    int in_place;        /* copy tmp over path at commit (the folder is not writable) */
    int replaces;        /* an existing regular file is replaced: old holds its mode */
    int slot;            /* ss_tmp_track's slot of tmp, -1 when none */
    struct stat old;
};

/* Prepares writing `path`. On success o->tmp is a new empty file for the caller to write
 * (open it by name, or use the descriptor returned: >= 0, the caller closes it). Returns a
 * negative ss_error and one line in err (without the path) on failure; nothing is created. */
int ss_out_begin(struct ss_out *o, const char *path, unsigned flags, char *err, size_t cap);

/* Puts the finished o->tmp in place (rename, or copy into the stream / over the file).
 * 0, or a negative ss_error with the reason (strerror's words) in err. The temporary file is
 * gone either way. */
int ss_out_commit(struct ss_out *o, char *err, size_t cap);

/* Drops the output: removes o->tmp, closes the stream. Safe after a failed begin. */
void ss_out_abort(struct ss_out *o);

/* 1 when the file at out (symlinks followed) is the very file at in (device and inode),
 * 0 otherwise (including when either does not exist). */
int ss_out_same_file(const char *out, const char *in);

/* mkstemp(pattern), the new file removed when SIGINT, SIGTERM or SIGHUP ends the process
 * (the handlers are installed only where the signal has its default action, then the signal
 * is raised again); the signals are blocked between the two, so none can leave the file
 * behind. Returns the descriptor (the caller closes it) or -1 with errno; *slot (may be NULL)
 * gets a slot for ss_tmp_untrack, or -1 when every slot is taken (the file is then not
 * tracked). */
int ss_tmp_mkstemp(char *pattern, int *slot);
/* A new empty file $TMPDIR/<prefix>-XXXXXX ($TMPDIR unset or empty: /tmp), made and tracked
 * by ss_tmp_mkstemp: its descriptor (the caller closes it) with its path in *path (owned: the
 * caller frees it), or -1 with errno and *path NULL. */
int ss_tmp_new(const char *prefix, char **path);
void ss_tmp_untrack(int slot);
/* Untracks the slot that holds path, if any. */
void ss_tmp_untrack_path(const char *path);

/* Makes a write past RLIMIT_FSIZE (`ulimit -f`) fail with EFBIG, said and cleaned up like a
 * full disk, instead of SIGXFSZ killing the process; left alone when SIGXFSZ is ignored or
 * handled already. Call once at the start of the CLI (not in the collector). */
void ss_out_catch_xfsz(void);

/* ---- temporary names (ss_tmp.c) ---- */

/* $TMPDIR, or /tmp when it is unset or empty (static or the environment's; not owned). */
const char *ss_tmp_dir(void);
/* A mkstemp template "DIR/PREFIX-pidPID-XXXXXX" into buf: 0, or -1 with ENAMETOOLONG. */
int ss_tmp_template(char *buf, size_t cap, const char *dir, const char *prefix);
/* The template of a temporary file beside path: "DIR/.NAME.stepscope-pidPID-XXXXXX", NAME
 * shortened to a prefix and "~HASH" (8 hex digits of the whole name) where the result would
 * pass the folder's NAME_MAX — every name the folder takes gets a temporary name there.
 * 0, or -1 with ENAMETOOLONG (past PATH_MAX). */
int ss_tmp_template_beside(char *buf, size_t cap, const char *path);
/* 1 with the pid in *pid when name (no folder) is a temporary name of stepscope's, else 0. */
int ss_tmp_owner(const char *name, long *pid);
/* Removes from dir stepscope's temporary files whose process is gone: regular files only
 * (links are never followed nor removed), the user's own, unchanged for 60 s (a process of
 * another pid namespace may share the folder). How many were removed. */
int ss_tmp_sweep(const char *dir);
/* ss_tmp_sweep of the folder of a path or template, once per folder per process. */
void ss_tmp_sweep_once(const char *path);

#endif
