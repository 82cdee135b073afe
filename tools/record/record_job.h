/*
 * record_job.h — `stepscope record` runs the program the way a shell runs a foreground job:
 * in a process group of its own, holding the terminal when record held it, with the signals
 * record receives forwarded once and Ctrl-Z stops mirrored (tools/record/record_job.c says why).
 */
#ifndef RECORD_JOB_H
#define RECORD_JOB_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Runs argv (argv[0] looked up on PATH) and returns once the program has ended: its wait
 * status, or -1 after a one-line error. *child is the program's pid (0 if it never started).
 * On return record's signal mask, SIGCHLD disposition and the terminal's foreground process
 * group are back as they were before the call. */
int record_job_run(char **argv, pid_t *child);

/* The .sstrace names a folder held before a `record` run (cmd_record.c). */
struct trace_names {
    char **v;
    size_t n, cap;
};
/* 1 when name is a trace that was not among `before` (written by this run). */
int record_trace_is_new(const struct trace_names *before, const char *name);

/* Why CUDA cannot start here, asked of the driver as the program would (record_driver.c): no
 * libcuda.so.1, a driver older than CUDA 13, or a cuInit that fails. 1 with the cause in out
 * (one clause for a message), 0 with out empty when CUDA starts or the driver cannot be asked. */
int record_driver_problem(char *out, size_t cap);

/* End of `stepscope record`: the text report of the trace of the process it started (the
 * file of this run whose PROCESS pid is child, else this run's largest .sstrace in dir) on f.
 * Never fails the run: a problem is one line on f. (record_report.c) */
void report_after_record(FILE *f, const char *dir, pid_t child, const struct trace_names *before);

#endif
