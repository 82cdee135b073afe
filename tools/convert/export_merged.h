/*
 * export_merged.h — `stepscope export DIR`: the traces of a folder (the ranks of a job, their
 * launcher) in one Perfetto JSON document or one nsys SQLite database, every rank of every host
 * on one timeline
 * (export_merged.c; the clocks from src/analysis/ssa_align.c).
 */
#ifndef EXPORT_MERGED_H
#define EXPORT_MERGED_H

struct sst_window;
struct ssi_exporter;

/* Writes the folder's .sstrace files to out (cli_write_output's flags) in fmt: Perfetto or
 * nsys-sqlite (ssi_export_perfetto, ssi_export_nsys_sqlite); the whole run, or (Perfetto) the
 * window win (--steps or --time as export parses them, win_arg as given; NULL or
 * SST_WINDOW_ALL: the whole run) on the common timeline. Returns a CLI exit status after
 * saying what went wrong. */
int export_merged(const char *verb, const struct ssi_exporter *fmt, const char *dir,
                  const char *out, unsigned out_flags, int accept_damage,
                  const struct sst_window *win, const char *win_arg);

#endif
