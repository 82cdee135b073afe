/*
 * record_job.h — `stepscope record` runs the program the way a shell runs a foreground job:
 * in a process group of its own, holding the terminal when record held it, with the signals
 * record receives forwarded once and Ctrl-Z stops mirrored (tools/record_job.c says why).
 */
#ifndef RECORD_JOB_H
#define RECORD_JOB_H

#include <sys/types.h>

/* Runs argv (argv[0] looked up on PATH) and returns once the program has ended: its wait
 * status, or -1 after a one-line error. *child is the program's pid (0 if it never started).
 * On return record's signal mask, SIGCHLD disposition and the terminal's foreground process
 * group are back as they were before the call. */
int record_job_run(char **argv, pid_t *child);

#endif
