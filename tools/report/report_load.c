/*
 * report_load.c — what report, diff and record share: opening and analysing one trace
 * (report_load) and the step options of both verbs.
 */
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ssa.h"
#include "cmd.h"
#include "report.h"
#include "util/ss_error.h"

int report_load(const char *verb, const char *path, const struct ssa_opts *opts, unsigned flags,
                struct ssa_result **out)
{
    struct cli_trace t; /* opened first for the CLI's one-line errors (directories...) */
    if (cli_trace_open(&t, verb, path, NULL, NULL) != 0) return -1;
    /* a foreign capture is analysed in its import, kept until the analysis is done */
    /* the report names what the user gave, not a temporary import or copy */
    /* only a trace read from its own path is aligned with the other ranks: an import or a
     * stream's copy never was (ssa_align_job read each rank again from its path) */
    if (!t.local_path || strcmp(t.local_path, path) != 0) flags &= ~SSA_ALIGN_KEEP;
    int rc = ssa_analyze_reader(t.r, path, opts, flags, out);
    cli_trace_close(&t);
    if (rc) {
        cli_error(verb, path, "%s", ss_strerror(rc));
        return -1;
    }
    return 0;
}

int report_say_incomplete(const char *verb, const char *path, const struct ssa_result *r,
                          int accept)
{
    return cli_damage_said(verb, path, &r->damage, accept,
                           "the numbers are of what could be read (--accept-damage to accept "
                           "them)");
}

static int parse_rec_cost(const char *verb, const char *arg, struct ssa_opts *o)
{
    char *end;
    errno = 0;
    double us = strtod(arg, &end);
    if (end == arg || *end || errno || !(us >= 0 && us <= 1e6))
        return cli_usage_error(verb, "--recording-cost-us wants microseconds from 0, not '%s'",
                               arg);
    o->rec_cost_given = 1, o->rec_cost_us = us;
    return 0;
}

int report_step_option(const char *verb, int c, const char *arg, struct ssa_opts *o)
{
    uint64_t n;
    regex_t re;
    switch (c) {
    case 'W':
        o->no_warmup = 1;
        return 0;
    case 'R':
        return parse_rec_cost(verb, arg, o);
    case 'w':
        if (cli_parse_u64(arg, &n) != 0 || n > (uint64_t)SIZE_MAX / 2)
            return cli_usage_error(verb, "--warmup wants a step count, not '%s'", arg);
        o->warmup_fixed = 1, o->warmup_steps = (size_t)n;
        return 0;
    default: /* 'm' */
        if (!*arg || !strcmp(arg, "re:")) return cli_usage_error(verb, "empty --step-marker");
        if (strncmp(arg, "re:", 3) == 0) {
            if (regcomp(&re, arg + 3, REG_EXTENDED | REG_NOSUB) != 0)
                return cli_usage_error(verb, "--step-marker: '%s' is not a valid extended regex",
                                       arg + 3);
            regfree(&re);
        }
        o->step_marker = arg;
        return 0;
    }
}

