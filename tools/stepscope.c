/*
 * stepscope.c — the command-line entry point: finds the verb and hands it the arguments.
 *
 * Each verb lives in its own file (tools/<family>/cmd_<verb>.c: report/, record/, inspect/,
 * convert/, doctor/) and appears once in the table below; adding a verb is one new file, its
 * declaration in common/cmd.h and one line here. `stepscope --help` lists the table, so
 * it never advertises a verb that is not built.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "text_esc.h"
#include "trace/sst_format.h"
#include "util/ss_out.h"

#ifndef STEPSCOPE_VERSION
#error "STEPSCOPE_VERSION must be defined by the build (tools/CMakeLists.txt)"
#endif

struct cli_verb {
    const char *name;
    const char *summary; /* one line for `stepscope --help` */
    int (*run)(int argc, char **argv);
};

static const struct cli_verb verbs[] = {
    {"record", "run a program with the collector injected; one trace per process", cmd_record},
    {"report", "where each training step's time goes: GPU busy by kernel class, GPU idle by cause", cmd_report},
    {"diff", "compare two traces: step time speed-up, per category and per finding", cmd_diff},
    {"info", "summarise a trace: format, processes, devices, record counts, damage", cmd_info},
    {"dump", "print every record of a trace, one per line (text or JSON Lines)", cmd_dump},
    {"export", "write a trace for Perfetto UI / chrome://tracing (Chrome Trace Event JSON)",
     cmd_export},
    {"import", "convert a torch.profiler (Kineto) JSON trace or nsys SQLite export to a trace",
     cmd_import},
    {"doctor", "check this machine for training: driver, CUDA, cuDNN, torch, limits, storage",
     cmd_doctor},
};
#define N_VERBS (sizeof verbs / sizeof verbs[0])

static void print_usage(FILE *f)
{
    fprintf(f, "usage: stepscope VERB [OPTIONS] [ARGS]\n"
               "       stepscope -h|--help | -V|--version\n"
               "\n"
               "verbs:\n");
    for (size_t i = 0; i < N_VERBS; i++) fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(f, "\n'stepscope VERB --help' describes a verb's options.\n");
}

static const struct cli_verb *find_verb(const char *name)
{
    for (size_t i = 0; i < N_VERBS; i++)
        if (strcmp(verbs[i].name, name) == 0) return &verbs[i];
    return NULL;
}

/* `stepscope help [VERB]`: the same text as --help, for people who type it that way. */
static int run_help(int argc, char **argv)
{
    if (argc < 3) {
        print_usage(stdout);
        return cli_finish_stdout("help");
    }
    const struct cli_verb *v = find_verb(argv[2]);
    if (!v) return cli_usage_error("help", "no verb named '%s'", argv[2]);
    char *sub[] = {argv[2], "--help", NULL};
    return v->run(2, sub);
}

static int unknown_verb(const char *arg)
{
    char shown[128];
    text_escape_to(shown, sizeof shown, arg);
    fprintf(stderr, "stepscope: unknown verb '%s' (try 'stepscope --help' for the list)\n",
            shown);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    ss_out_catch_xfsz(); /* past `ulimit -f`: an error line and the temporary file removed */
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_usage(stdout);
        return cli_finish_stdout("help");
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf("stepscope %s (trace format v%d)\n", STEPSCOPE_VERSION, SST_FORMAT_VERSION);
        return cli_finish_stdout("version");
    }
    if (strcmp(first, "help") == 0) return run_help(argc, argv);
    const struct cli_verb *v = find_verb(first);
    if (!v) return unknown_verb(first);
    return v->run(argc - 1, argv + 1); /* the verb sees itself as argv[0] */
}
