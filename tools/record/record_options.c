/*
 * record_options.c — record's options from the settings table: help, getopt's tables, checks
 * and the variables they set (record_options.h). The collector repeats the checks (it is also
 * run without record); failing early, before the program starts, is kinder.
 */
#include "record_options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#define VERB "record"
#define HELP_COLUMN 25 /* where the options' descriptions start */
#define HELP_WIDTH 80

static int is_option(size_t i)
{
    return sst_settings[i].option != NULL;
}

/* ---- help -------------------------------------------------------------------------------- */

/* text from the description column, wrapped at HELP_WIDTH; the first line after what the
 * caller printed. */
static void help_wrap(FILE *f, const char *text, int first)
{
    const int width = HELP_WIDTH - HELP_COLUMN;
    for (const char *p = text; *p; first = 0) {
        int n = (int)strlen(p);
        if (n > width) { /* break at the last space that fits, else at the first after it */
            n = width;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0) n = (int)strcspn(p, " ");
        }
        fprintf(f, "%*s%.*s\n", first ? 0 : HELP_COLUMN, "", n, p);
        p += n;
        p += *p == ' ';
    }
}

/* One option's help: "  -o, --output DIR       the output folder..." and its further lines:
 * the words to pick from, then the help with its default. */
static void usage_option(FILE *f, enum sst_setting_id id)
{
    const struct sst_setting *x = &sst_settings[id];
    char name[64], lead[256], text[1024];
    snprintf(name, sizeof name, "--%s%s%s", x->option, x->arg ? " " : "", x->arg ? x->arg : "");
    if (x->short_name)
        fprintf(f, "  -%c, %-17s  ", x->short_name, name);
    else
        fprintf(f, "      %-17s  ", name);
    sst_setting_lead(id, lead, sizeof lead);
    sst_setting_describe(id, text, sizeof text);
    if (lead[0]) fprintf(f, "%s\n", lead);
    help_wrap(f, text, !lead[0]);
}

void record_usage(FILE *f)
{
    fprintf(f, "usage: stepscope record [OPTIONS] [--] PROGRAM [ARGS...]\n"
               "\n"
               "Runs PROGRAM with the stepscope collector injected and writes one trace per\n"
               "process into the output folder. Exits with PROGRAM's exit status; with 3 when\n"
               "PROGRAM succeeded but GPU activity could not be recorded (CUPTI unavailable or\n"
               "held by another tool; CUDA cannot start: no NVIDIA driver, one older than CUDA\n"
               "13, no device), and with 1, PROGRAM not run, when the collector cannot\n"
               "be loaded (the cause is said). The options end at PROGRAM (or at '--'). A\n"
               "first Ctrl-C or SIGTERM is passed to PROGRAM; a second within 3 s of record\n"
               "saying it still runs sends SIGKILL. Each option sets the variable its man page\n"
               "names (stepscope-record(1), which lists the others).\n"
               "\n");
    for (size_t i = 0; i < SST_N_SETTINGS; i++)
        if (is_option(i)) usage_option(f, (enum sst_setting_id)i);
}

/* ---- parsing and checks ------------------------------------------------------------------ */

/* Every given argument through its row's grammar, then what only rows together can say. */
static int check_opts(const struct record_opts *o)
{
    struct sst_value v;
    char must[300];
    for (size_t i = 0; i < SST_N_SETTINGS; i++) {
        const struct sst_setting *x = &sst_settings[i];
        if (!o->v[i] || !x->arg || sst_setting_parse((enum sst_setting_id)i, o->v[i], &v) >= 0)
            continue;
        sst_setting_must((enum sst_setting_id)i, must, sizeof must);
        return cli_usage_error(VERB, "--%s must be %s, not '%s'", x->option, must, o->v[i]);
    }
    if (o->v[SST_SET_HOST_SAMPLES] && o->v[SST_SET_NO_PYTHON_SHIM]) /* the samples are the shim's */
        return cli_usage_error(VERB, "--host-samples needs the Python shim (no --no-python-shim)");
    return CLI_EXIT_OK;
}

/* getopt's val of a row: its letter, else 256 + its index. */
static int option_val(size_t i)
{
    return sst_settings[i].short_name ? sst_settings[i].short_name : 256 + (int)i;
}

/* The row of getopt's answer c, or -1 (an unknown option, already said). */
static int option_of(int c)
{
    for (size_t i = 0; i < SST_N_SETTINGS; i++)
        if (is_option(i) && option_val(i) == c) return (int)i;
    return -1;
}

/* getopt's tables from the rows: longopts (SST_N_SETTINGS + 1) and "+o:qh". */
static void getopt_tables(struct option *longopts, char *shortopts, size_t cap)
{
    size_t n = 0, k = 0;
    shortopts[n++] = '+'; /* options end at the first operand: the program */
    for (size_t i = 0; i < SST_N_SETTINGS; i++) {
        const struct sst_setting *x = &sst_settings[i];
        if (!is_option(i)) continue;
        longopts[k++] = (struct option){x->option, x->arg ? required_argument : no_argument, NULL,
                                        option_val(i)};
        if (x->short_name && n + 3 < cap) shortopts[n++] = (char)x->short_name;
        if (x->short_name && x->arg && n + 2 < cap) shortopts[n++] = ':';
    }
    longopts[k] = (struct option){NULL, 0, NULL, 0};
    shortopts[n] = '\0';
}

/* One option of record into o: 0, -1 after --help, or an exit status. */
static int record_option(int c, struct record_opts *o)
{
    int i = option_of(c);
    if (i < 0) return CLI_EXIT_USAGE;
    if (i == SST_SET_HELP) {
        record_usage(stdout);
        return cli_finish_stdout(VERB) == 0 ? -1 : CLI_EXIT_FAIL;
    }
    o->v[i] = sst_settings[i].arg ? optarg : "1";
    return 0;
}

int record_parse_args(int argc, char **argv, struct record_opts *o, int *prog_at)
{
    struct option longopts[SST_N_SETTINGS + 1];
    char shortopts[2 * SST_N_SETTINGS + 2];
    getopt_tables(longopts, shortopts, sizeof shortopts);
    /* options end at "--" or at the first operand (the program), as nsys profile's do */
    int dd = 1;
    while (dd < argc && strcmp(argv[dd], "--") != 0)
        dd++;
    cli_opt_reset();
    int c;
    while ((c = cli_getopt(VERB, dd, argv, shortopts, longopts)) != -1) {
        int rc = record_option(c, o);
        if (rc) return rc;
    }
    if (optind < dd) { /* the program, without "--" */
        *prog_at = optind;
        return check_opts(o);
    }
    if (dd >= argc) return cli_usage_error(VERB, "missing the program to run");
    if (dd + 1 >= argc) return cli_usage_error(VERB, "no program after '--'");
    *prog_at = dd + 1;
    return check_opts(o);
}

/* ---- the program's environment ----------------------------------------------------------- */

int record_set_variables(const struct record_opts *o)
{
    int rc = 0;
    for (size_t i = 0; i < SST_N_SETTINGS; i++) {
        const struct sst_setting *x = &sst_settings[i];
        const char *value = o->v[i] ? o->v[i] : x->rec;
        if (is_option(i) && x->env && value) rc |= setenv(x->env, value, 1);
    }
    return rc;
}
