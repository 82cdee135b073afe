/*
 * cmd.h — what the stepscope verbs share: their entry points and small CLI helpers.
 *
 * One verb per file (tools/<family>/cmd_<verb>.c), each with its own usage text and --help,
 * all listed in the verb table in tools/stepscope.c. A verb is called with argv[0] set to its
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
#include "trace/sst_settings.h"

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
 * follow operands; "--" ends the options; shortopts starting with '+' end them at the first
 * operand instead (a program and its arguments follow). */
void cli_opt_reset(void);
int cli_getopt(const char *verb, int argc, char **argv, const char *shortopts,
               const struct option *longopts);

/* --format for the verbs that write text or JSON (info, dump, doctor): sets *json. 0, or
 * CLI_EXIT_USAGE after the usage line. */
int cli_parse_text_json(const char *verb, const char *arg, int *json);

/* A setting from the environment (src/trace/sst_settings.h, the table every part of stepscope
 * reads) into *v: 1 when given, 0 when unset or empty (v: the default), -1 when it is not a
 * value (v: the default, after one line on stderr, once per setting). */
int cli_setting(enum sst_setting_id id, struct sst_value *v);

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
    int fd;                /* the input, opened once, until the reader takes it (-1 after) */
    char *spool_path;      /* a stream input (stdin, a pipe, a FIFO) copied to a file */
    int spool_is_temp;
};

/* Opens path, turning every failure into one cli_error line ("is a directory" for
 * directories, the importer's or the reader's detail otherwise). Returns 0 (t->r is the
 * reader, t->local_path the file it reads) or -1. */
int cli_trace_open(struct cli_trace *t, const char *verb, const char *path,
                   sst_problem_fn on_problem, void *problem_ctx);
/* As cli_trace_open, with the reader's records of impossible times handed out too (still
 * counted as damage): dump shows what the file holds. */
int cli_trace_open_all(struct cli_trace *t, const char *verb, const char *path,
                       sst_problem_fn on_problem, void *problem_ctx);

/* A stream input ("-" for stdin, a pipe, a FIFO, a character device) as a file the readers
 * can map: *out_path is path itself for a regular file (or "/dev/stdin" when stdin is one),
 * else a temporary copy (*is_temp = 1) made once the first bytes announced a known format.
 * A FIFO without a writer, a terminal, or bytes of no known format are refused at once.
 * 0, or -1 after one cli_error line. Release with cli_input_release. (cli_input.c) */
int cli_input_spool(const char *verb, const char *path, char **out_path, int *is_temp);
void cli_input_release(char *path, int is_temp);

/* The output of a verb that converts one input (export, import), after its options: *out is
 * -o's argument, or NULL. Without -o the output goes next to the input, named after it (its path
 * without its trace suffix: .sstrace, .json, .json.gz, .pt.trace.json(.gz), .sqlite) with
 * suffix, into buf; never over an existing file unless --force (*flags gets
 * SS_OUT_NO_CLOBBER). 0, or CLI_EXIT_USAGE after the usage line (an empty -o; an input with no
 * name to build on: "-", a stream). */
int cli_output_beside(const char *verb, const char *in, const char *suffix, const char **out,
                      unsigned *flags, char *buf, size_t cap);

/* name in the installed layout (the collector's folder from this executable's) or beside the
 * executable (the build tree), resolved into out: 0, or -1. (cli_collector.c) */
int cli_find_companion(const char *name, char *out, size_t cap);
/* The collector: $STEPSCOPE_LIB, else libstepscope.so found as cli_find_companion finds it;
 * 0 with its real path in out, or -1. */
int cli_find_collector(char *out, size_t cap);

/* Whether the collector at lib loads here, tried in a child process: 0 with the path of the
 * CUPTI it loaded in why ("" when none was seen), or -1 with the cause in why (the library the
 * loader missed, where it looked, another CUDA's CUPTI found there). (cli_collector.c) */
int cli_collector_check(const char *lib, char *why, size_t cap);

/* The one line a verb says about a damaged input (d->any; cli_damage.c): an error ending with
 * `refused` (what the verb does instead, and that --accept-damage goes on) that makes the verb
 * exit CLI_EXIT_FAIL, or with accept a warning, and CLI_EXIT_OK. Nothing for a whole input. */
#define CLI_ACCEPT_DAMAGE_HELP                                                                 \
    "      --accept-damage  go on with an input that is damaged, truncated, inconsistent or\n" \
    "                     dropped records (said once on stderr either way)\n"
int cli_damage_said(const char *verb, const char *path, const struct sst_damage *d, int accept,
                    const char *refused);

/* Closes the reader and removes a temporary import; safe on a trace that failed to open. */
void cli_trace_close(struct cli_trace *t);

/* ---- output ---- */

/* Flushes stdout and reports a write error (disk full, closed pipe) as one line.
 * Returns CLI_EXIT_OK or CLI_EXIT_FAIL. */
int cli_finish_stdout(const char *verb);

/* Writes FILE without ever losing what was at that path (src/util/ss_out.h: a temporary
 * file renamed into place when complete; symlinks followed; streams such as "-", devices and
 * FIFOs written directly once the content exists; read-only files refused unless
 * SS_OUT_FORCE in flags; with SS_OUT_NO_CLOBBER, existing files too). write(f, ctx) writes
 * the content and returns 0, or -1 after reporting its own error (then nothing is put in
 * place). Write errors (disk full) are one cli_error line naming `what`. On success says
 * "wrote PATH (SIZE)" on stderr unless cli_quiet. Returns CLI_EXIT_OK or CLI_EXIT_FAIL; no
 * temporary file stays behind, also when SIGINT/SIGTERM/SIGHUP ends the process. */
int cli_write_output(const char *verb, const char *file, const char *what, unsigned flags,
                     int (*write)(FILE *f, void *ctx), void *ctx);

/* As cli_write_output, for writers that want a path (SQLite, the interop writers): write
 * gets the temporary file's path (an empty 0600 file) and fills it. */
typedef int (*cli_path_writer)(const char *path, void *ctx);
int cli_write_path(const char *verb, const char *file, const char *what, unsigned flags,
                   cli_path_writer write, void *ctx);

/* 1 when rc (an ss_error) is a failure of writing whatever the file (a full disk: SS_ENOSPC;
 * past `ulimit -f`: SS_EFBIG): the message names the output or the temporary file's folder,
 * not the input being read. */
int cli_output_error(int rc);

/* Set by -q: cli_write_output says nothing on success. */
extern int cli_quiet;

/* CLI_EXIT_USAGE after one line when out (symlinks followed) is the same file (device and
 * inode) as one of the n inputs, else CLI_EXIT_OK. Call before reading anything. */
int cli_refuse_same_file(const char *verb, const char *out, const char *const *inputs, size_t n);

/* A progress line on stderr (a terminal only, not with -q; STEPSCOPE_PROGRESS=1 forces it)
 * while single-threaded reading runs: "what path [####....] 45 %  1.2 GiB  310 MiB/s".
 * cli_progress_end clears it. (cli_progress.c) */
void cli_progress_begin(const char *what, const char *path);
void cli_progress_end(void);

/* Formats a duration in ns for people: "850ns", "12.3us", "4.56ms", "1.234s". */
const char *cli_fmt_duration(char *buf, size_t cap, uint64_t ns);

/* Formats a byte count: "512 B", "3.8 KiB", "12.3 MiB", "139.8 GiB". */
const char *cli_fmt_bytes(char *buf, size_t cap, uint64_t bytes);

#endif
