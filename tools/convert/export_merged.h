/*
 * export_merged.h — `stepscope export DIR`: the traces of a folder (the ranks of a job, their
 * launcher) in one Perfetto JSON document, every rank of every host on one timeline
 * (export_merged.c; the clocks from src/analysis/ssa_align.c).
 */
#ifndef EXPORT_MERGED_H
#define EXPORT_MERGED_H

/* Writes the folder's .sstrace files to out (cli_write_output's flags). Returns a CLI exit
 * status after saying what went wrong. */
int export_merged(const char *verb, const char *dir, const char *out, unsigned out_flags,
                  int accept_damage);

#endif
