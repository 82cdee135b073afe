/*
 * record_options.h — the options of `stepscope record`, every one a row of the settings table
 * (src/trace/sst_settings.h: those with an option): its --help, getopt's tables, the checks
 * made before the program starts and the STEPSCOPE_* variables the collector and the Python
 * shim read their settings from (record_options.c). A row with an option needs nothing here.
 */
#ifndef RECORD_OPTIONS_H
#define RECORD_OPTIONS_H

#include <stdio.h>

#include "trace/sst_settings.h"

/* What was given: each row's argument ("1" for a switch), NULL when not given. */
struct record_opts {
    const char *v[SST_N_SETTINGS];
};

/* Parses the options before "--" or the program (GNU permutation must not reach the
 * program's arguments) into o and checks them. Returns CLI_EXIT_OK with *prog_at set, -1
 * after --help, or an exit status after one line. */
int record_parse_args(int argc, char **argv, struct record_opts *o, int *prog_at);

/* record's --help. */
void record_usage(FILE *f);

/* Each option row's variable: the option's value, else the row's record value, else left as
 * it is. 0, or -1 (errno) when one cannot be set. */
int record_set_variables(const struct record_opts *o);

#endif
