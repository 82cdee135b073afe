/*
 * table_checks.h — what analysis.test_tables reads (the docs, the tests of tests/analysis/),
 * and its check of a finding rule, shared with the test that follows the recipe "Add a finding
 * rule" (recipe_rule.c): the same check must then catch a rule whose docs row is missing.
 */
#ifndef TABLE_CHECKS_H
#define TABLE_CHECKS_H

#include <dirent.h>

#include "ss_test.h"

#define FILE_MAX (1u << 22)

/* path's text (NUL-terminated, malloc'ed: the caller frees), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(FILE_MAX + 1) : NULL;
    size_t n = buf ? fread(buf, 1, FILE_MAX, f) : 0;
    if (f) fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* 1 when text holds before + word + after. */
static int holds(const char *text, const char *before, const char *word, const char *after)
{
    char needle[256];
    snprintf(needle, sizeof needle, "%s%s%s", before, word, after);
    return text && strstr(text, needle) != NULL;
}

/* Every .c file of tests/analysis/, one after the other in one buffer (the caller frees). */
static char *analysis_tests(const char *root)
{
    char dir[1100], path[2048];
    snprintf(dir, sizeof dir, "%.1000s/tests/analysis", root);
    DIR *d = opendir(dir);
    char *all = calloc(1, 1);
    size_t len = 0;
    for (struct dirent *e; d && all && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *one = slurp(path);
        size_t k = one ? strlen(one) : 0;
        char *grown = realloc(all, len + k + 1);
        if (grown) memcpy(grown + len, one ? one : "", k + 1), all = grown, len += k;
        free(one);
    }
    if (d) closedir(d);
    return all;
}

/* The gaps of finding rule id, each said on stderr as a failure when say: its row in
 * docs/report-json.md's what-if table ("| `id` |"), a test of tests/analysis/ that names it
 * ("id" in quotes). How many. */
static int rule_gaps(const char *id, const char *report_json, const char *tests, int say)
{
    int gaps = 0;
    if (!holds(report_json, "| `", id, "` |")) {
        if (say) SS_FAIL_AT("finding %s has no row in docs/report-json.md's what-if table", id);
        gaps++;
    }
    if (!holds(tests, "\"", id, "\"")) {
        if (say) SS_FAIL_AT("finding %s is named by no test in tests/analysis/", id);
        gaps++;
    }
    return gaps;
}

#endif
