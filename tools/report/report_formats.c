/*
 * report_formats.c — the table of report formats, generated from REPORT_FORMATS (report.h):
 * what `report -f` and `diff -f` look up, the names their usage errors list, the usage text
 * with the --format help both print, and the analysis mode each format needs.
 */
#include <string.h>

#include "report.h"

const struct report_format report_formats[REPORT_FORMAT_COUNT] = {
#define REPORT_X_ROW(ID, name, flags, verbose_flags, help, diff_help)                              \
    [REPORT_##ID] = {#name, flags, verbose_flags, help, diff_help, &report_writer_##name},
    REPORT_FORMATS(REPORT_X_ROW)
#undef REPORT_X_ROW
};

const struct report_format *report_format_find(const char *name)
{
    for (size_t i = 0; i < REPORT_FORMAT_COUNT; i++)
        if (strcmp(name, report_formats[i].name) == 0) return &report_formats[i];
    return NULL;
}

/* Appends s to buf (cut at cap). */
static void append(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < cap) snprintf(buf + n, cap - n, "%s", s);
}

void report_format_names(char *buf, size_t cap, const char *sep, const char *last)
{
    buf[0] = '\0';
    for (size_t i = 0; i < REPORT_FORMAT_COUNT; i++) {
        if (i) append(buf, cap, i + 1 == REPORT_FORMAT_COUNT ? last : sep);
        append(buf, cap, report_formats[i].name);
    }
}

#define HELP_LEAD "  -f, --format FMT   "
#define HELP_INDENT 21 /* the column the options' descriptions start at */
#define HELP_COLS 82   /* the widest line of the help texts */

/* Prints one word of the help, on a new line when it would pass HELP_COLS. */
static void help_word(FILE *f, const char *w, size_t len, size_t *col)
{
    if (*col > HELP_INDENT && *col + 1 + len > HELP_COLS) {
        fprintf(f, "\n%*s", HELP_INDENT, "");
        *col = HELP_INDENT;
    } else if (*col > HELP_INDENT) {
        fputc(' ', f);
        (*col)++;
    }
    fwrite(w, 1, len, f);
    *col += len;
}

/* Every format's help words ("text (default), json (...) or html (...)"), word-wrapped. */
static void format_help(FILE *f, int diff)
{
    size_t col = HELP_INDENT;
    fputs(HELP_LEAD, f);
    for (size_t i = 0; i < REPORT_FORMAT_COUNT; i++) {
        char words[512];
        snprintf(words, sizeof words, "%s%s",
                 diff ? report_formats[i].diff_help : report_formats[i].help,
                 i + 2 < REPORT_FORMAT_COUNT ? "," : i + 2 == REPORT_FORMAT_COUNT ? " or" : "");
        for (const char *p = words; *p;) {
            size_t len = strcspn(p, " ");
            if (len) help_word(f, p, len, &col);
            p += len + (p[len] == ' ');
        }
    }
    fputc('\n', f);
}

void report_usage_print(FILE *f, const struct report_usage *u)
{
    char names[64];
    report_format_names(names, sizeof names, "|", "|");
    fprintf(f, "usage: stepscope %s [--format %s] %s\n", u->operands, names, u->more);
    fputs(u->about, f);
    format_help(f, u->diff);
    fputs(u->options, f);
}

unsigned report_ssa_flags(const struct report_opts *o)
{
    const struct report_format *fmt = &report_formats[o->format];
    return o->verbose ? fmt->verbose_flags : fmt->flags;
}
