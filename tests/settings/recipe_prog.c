/*
 * recipe_prog.c — step 2 of the recipe "Add a record option or a setting" (docs/design.md): the
 * row's use (use_knob below, as a collector file would), and a stand-in for the parts that take
 * the row without a change of theirs, each through the same code as the product, compiled with
 * the recipe's row (recipe_row.h):
 *
 *   recipe_prog record --help | record OPTIONS -- PROGRAM   record's options (record_options.c):
 *                                                          help, checks, the variables it sets
 *   recipe_prog collector                                  the collector's configuration and its
 *                                                          ENV record (ssc_config.c), the use
 *   recipe_prog gen man|python|rows|parse                  tools/install/settings_gen.c
 *
 * The shell completion reads `recipe_prog record --help` as it reads stepscope's (recipe.sh).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "collect/ssc_config.h"
#include "record_options.h"

int settings_gen_main(int argc, char **argv);

/* ---- the use (step 2) -------------------------------------------------------------------- */

static void use_knob(void)
{
    const struct sst_value *knob = ssc_setting(SST_SET_RECIPE_KNOB);
    printf("the knob is at %s\n", knob->text);
}

/* ---- what record_options.c needs of tools/common (cli_util.c, which needs the rest of it) - */

int cli_usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "stepscope %s: ", verb);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try 'stepscope %s --help')\n", verb);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

void cli_opt_reset(void)
{
    optind = 0;
}

int cli_getopt(const char *verb, int argc, char **argv, const char *shortopts,
               const struct option *longopts)
{
    int c = getopt_long(argc, argv, shortopts, longopts, NULL);
    return c == '?' ? cli_usage_error(verb, "unknown option"), '?' : c;
}

int cli_finish_stdout(const char *verb)
{
    (void)verb;
    return fflush(stdout) == 0 ? 0 : -1;
}

/* ---- the stand-ins ------------------------------------------------------------------------ */

static void print_kv(const char *key, const char *value)
{
    printf("%s=%s\n", key, value);
}

static int record(int argc, char **argv)
{
    struct record_opts o = {0};
    int prog_at = 0, rc = record_parse_args(argc, argv, &o, &prog_at);
    if (rc != CLI_EXIT_OK) return rc < 0 ? CLI_EXIT_OK : rc;
    if (record_set_variables(&o) != 0) return CLI_EXIT_FAIL;
    for (int id = 0; id < SST_N_SETTINGS; id++)
        if (sst_settings[id].env && getenv(sst_settings[id].env))
            printf("%s=%s\n", sst_settings[id].env, getenv(sst_settings[id].env));
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "record") == 0) return record(argc - 1, argv + 1);
    if (strcmp(cmd, "gen") == 0) return settings_gen_main(argc - 1, argv + 1);
    if (strcmp(cmd, "collector") == 0) {
        ssc_config_read();
        ssc_config_env(SST_S_ENV, print_kv);
        use_knob();
        return 0;
    }
    fprintf(stderr, "usage: recipe_prog record ...|collector|gen ...\n");
    return 2;
}
