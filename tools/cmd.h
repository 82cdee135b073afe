/*
 * cmd.h — what the stepscope verbs share: their entry points and small CLI helpers.
 *
 * One verb per file (tools/cmd_<verb>.c), each with its own usage text and --help, all
 * listed in the verb table in tools/stepscope.c. A verb is called with argv[0] set to its
 * own name and returns the process exit status:
 *   CLI_EXIT_OK (0)    done (a truncated trace that could be read still counts as done)
 *   CLI_EXIT_FAIL (1)  an input could not be read, or output could not be written
 *   CLI_EXIT_USAGE (2) bad flags or arguments
 * Errors are one line on stderr: "stepscope VERB: FILE: what went wrong".
 */
#ifndef CMD_H
#define CMD_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/sst_reader.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* ---- verbs (one file each) ---- */
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

/* ---- messages ---- */

/* "stepscope VERB: FILE: message" on stderr; file may be NULL. The file name is escaped
 * (a hostile name cannot inject terminal escapes into the message). */
void cli_error(const char *verb, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A usage error: the message plus "Try 'stepscope VERB --help'." Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- options ---- */

/* getopt_long with stepscope's error messages. Call cli_opt_reset once before the loop;
 * shortopts must not start with ':' (the helper adds it). Returns the option, -1 when the
 * options are done (optind is the first operand), or '?' after it printed a usage error
 * (the verb then returns CLI_EXIT_USAGE). GNU argument permutation applies, so options may
 * follow operands; "--" ends the options. */
void cli_opt_reset(void);
int cli_getopt(const char *verb, int argc, char **argv, const char *shortopts,
               const struct option *longopts);

/* Parses a whole decimal number (no sign, no trailing junk, no overflow). 0 or -1. */
int cli_parse_u64(const char *s, uint64_t *out);

/* ---- traces ---- */

/* An open trace as the verbs use it. Problems the reader finds while opening (a cut
 * header...) are kept for the one error line instead of being printed on their own; after
 * a successful open they go to the verb's callback. Lives on the verb's stack. A foreign
 * capture (torch.profiler JSON, nsys SQLite: src/interop/ssi.h) is imported into a temporary
 * trace, local_path, which the reader reads and cli_trace_close removes. */
struct cli_trace {
    struct sst_reader *r;
    const char *verb, *path;
    sst_problem_fn on_problem; /* the verb's, for problems after opening; may be NULL */
    void *problem_ctx;
    int opened;
    char open_detail[256]; /* the reader's last message while opening */
    char *local_path;      /* the file read: a copy of path, or the imported trace */
    int local_is_temp;     /* local_path is a temporary import (removed at close) */
};

/* Opens path, turning every failure into one cli_error line ("is a directory" for
 * directories, the importer's or the reader's detail otherwise). Returns 0 (t->r is the
 * reader, t->local_path the file it reads) or -1. */
int cli_trace_open(struct cli_trace *t, const char *verb, const char *path,
                   sst_problem_fn on_problem, void *problem_ctx);

/* Closes the reader and removes a temporary import; safe on a trace that failed to open. */
void cli_trace_close(struct cli_trace *t);

/* ---- output ---- */

/* Flushes stdout and reports a write error (disk full, closed pipe) as one line.
 * Returns CLI_EXIT_OK or CLI_EXIT_FAIL. */
int cli_finish_stdout(const char *verb);

/* Writes FILE through FILE.tmp and a rename, so a reader never sees a partial file: write(f,
 * ctx) writes the content and returns 0, or -1 after reporting its own error (then nothing
 * is renamed). Write errors (disk full) are one cli_error line naming `what`. Returns
 * CLI_EXIT_OK or CLI_EXIT_FAIL; the .tmp never stays behind. */
int cli_write_atomic(const char *verb, const char *file, const char *what,
                     int (*write)(FILE *f, void *ctx), void *ctx);

/* Formats a duration in ns for people: "850ns", "12.3us", "4.56ms", "1.234s". */
const char *cli_fmt_duration(char *buf, size_t cap, uint64_t ns);

/* Formats a byte count: "512 B", "3.8 KiB", "12.3 MiB", "139.8 GiB". */
const char *cli_fmt_bytes(char *buf, size_t cap, uint64_t bytes);

#endif
