/*
 * settings_gen.c — what the settings table (src/trace/sst_settings.h) gives beyond C, written
 * at build time:
 *
 *   settings_gen man < PAGE.scd > OUT.scd   the page with its "; settings: ..." lines replaced
 *                                           by record's OPTIONS or ENVIRONMENT entries
 *   settings_gen python [FILE]              the shim's rows (python/stepscope/_settings_rows.py;
 *                                           `cmake --build build --target settings_py`)
 *   settings_gen rows                       every row as a JSON line (test settings.agree)
 *   settings_gen parse < ID<TAB>TEXT lines  how the one grammar reads each text (the same test
 *                                           runs the shim's parser over the same lines)
 *
 * The completion needs nothing from here: it reads record's --help.
 */
#include <stdio.h>
#include <string.h>

#include "trace/sst_settings.h"

#define SETTINGS_H "src/trace/sst_settings.h"

static const char *const k_types[] = {
    [SST_T_TEXT] = "text",         [SST_T_SWITCH] = "switch", [SST_T_CHOICE] = "choice",
    [SST_T_SIZE] = "size",         [SST_T_WINDOW] = "window", [SST_T_LIST] = "list",
    [SST_T_STEP_PID] = "step_pid",
};

static int is_user_variable(const struct sst_setting *x)
{
    return !(x->flags & (SST_S_INTERNAL | SST_S_TEST | SST_S_NO_VAR));
}

/* ---- the man page ---------------------------------------------------------------------------- */

/* text for scdoc: its markup characters escaped. */
static void scd_text(FILE *f, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == '*' || *p == '_' || *p == '\\') fputc('\\', f);
        fputc(*p, f);
    }
}

/* "*full* | *light*: " when the row has words to pick from. */
static void scd_lead(FILE *f, enum sst_setting_id id)
{
    char word[64];
    int n = 0;
    char lead[256];
    sst_setting_lead(id, lead, sizeof lead);
    if (!lead[0]) return;
    for (; sst_setting_alt(id, n, word, sizeof word) == 0; n++) {
        fprintf(f, "%s*", n ? " | " : "");
        scd_text(f, word);
        fputc('*', f);
    }
    fprintf(f, ": ");
}

/* One entry's text line: the words, the help with its default, the variable. */
static void scd_entry_text(FILE *f, enum sst_setting_id id, int name_variable)
{
    const struct sst_setting *x = &sst_settings[id];
    char text[1024];
    sst_setting_describe(id, text, sizeof text);
    fputc('\t', f);
    scd_lead(f, id);
    scd_text(f, text);
    fputc('.', f);
    if (name_variable && x->env) {
        fprintf(f, " Sets *");
        scd_text(f, x->env);
        fprintf(f, "*%s.", x->arg ? "" : " to 1");
    }
    fprintf(f, "\n\n");
}

static void man_options(FILE *f)
{
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        const struct sst_setting *x = &sst_settings[id];
        if (!x->option) continue;
        if (x->short_name) fprintf(f, "*-%c*, ", x->short_name);
        fprintf(f, "*--%s*", x->option);
        if (x->arg) fprintf(f, " _%s_", x->arg);
        fprintf(f, "\n");
        scd_entry_text(f, (enum sst_setting_id)id, 1);
    }
}

/* The variables record, the collector and the shim read that no option sets. */
static void man_environment(FILE *f)
{
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        const struct sst_setting *x = &sst_settings[id];
        unsigned readers = SST_S_COLLECTOR | SST_S_SHIM | SST_S_RECORD;
        if (x->option || !is_user_variable(x) || !(x->flags & readers)) continue;
        fprintf(f, "*");
        scd_text(f, x->env);
        fprintf(f, "*\n");
        scd_entry_text(f, (enum sst_setting_id)id, 0);
    }
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int gen_man(FILE *in, FILE *out)
{
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        if (starts(line, "; settings: record options"))
            man_options(out);
        else if (starts(line, "; settings: record environment"))
            man_environment(out);
        else
            fputs(line, out);
    }
    return ferror(in) || ferror(out);
}

/* ---- the shim's rows ---------------------------------------------------------------------------
 */

static void py_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static int gen_python(FILE *f)
{
    fprintf(
        f,
        "# Generated from %s by tools/install/settings_gen.c: do not edit;\n"
        "# after a change of the table, `cmake --build build --target settings_py` (test\n"
        "# settings.agree checks it).\n"
        "\"\"\"The rows of stepscope's settings table that the Python shim reads (_settings.py "
        "reads\nthem): name -> (variable, type, values, default, what a value must be).\"\"\"\n\n"
        "ROWS = {\n",
        SETTINGS_H);
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        const struct sst_setting *x = &sst_settings[id];
        char must[300];
        if (!(x->flags & SST_S_SHIM)) continue;
        sst_setting_must((enum sst_setting_id)id, must, sizeof must);
        fprintf(f, "    \"%s\": (", x->id);
        py_str(f, x->env);
        fprintf(f, ", \"%s\", ", k_types[x->type]);
        py_str(f, x->values);
        fprintf(f, ", ");
        py_str(f, x->dflt);
        fprintf(f, ",\n        ");
        py_str(f, must);
        fprintf(f, "),\n");
    }
    fprintf(f, "}\n");
    return ferror(f);
}

/* ---- for the tests ------------------------------------------------------------------------------
 */

static void json_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, ",\"%s\":", key);
    if (!s) {
        fprintf(f, "null");
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', f);
        if ((unsigned char)*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static int gen_rows(FILE *f)
{
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        const struct sst_setting *x = &sst_settings[id];
        char must[300], lead[256], text[1024], key[96] = "";
        sst_setting_must((enum sst_setting_id)id, must, sizeof must);
        sst_setting_lead((enum sst_setting_id)id, lead, sizeof lead);
        sst_setting_describe((enum sst_setting_id)id, text, sizeof text);
        if (x->flags & (SST_S_ENV | SST_S_ENV_CUDA))
            sst_setting_env_key((enum sst_setting_id)id, key, sizeof key);
        fprintf(f, "{\"id\":\"%s\",\"short\":\"%c\",\"flags\":%u", x->id,
                x->short_name ? x->short_name : ' ', x->flags);
        json_str(f, "env", x->env);
        json_str(f, "option", x->option);
        json_str(f, "arg", x->arg);
        json_str(f, "type", k_types[x->type]);
        json_str(f, "values", x->values);
        json_str(f, "default", x->dflt);
        json_str(f, "record", x->rec);
        json_str(f, "help", x->help);
        json_str(f, "must", must);
        json_str(f, "lead", lead);
        json_str(f, "describe", text);
        json_str(f, "env_key", key[0] ? key : NULL);
        fprintf(f, "}\n");
    }
    return ferror(f);
}

static int id_of(const char *name)
{
    for (int id = 0; id < SST_N_SETTINGS; id++)
        if (strcmp(sst_settings[id].id, name) == 0) return id;
    return -1;
}

/* "ID<TAB>TEXT" -> "ID<TAB>TEXT<TAB>rc<TAB>word<TAB>num<TAB>pid<TAB>as the ENV says it<TAB>
 * the problem every reader says, if any". */
static int gen_parse(FILE *in, FILE *out)
{
    char line[4096], shown[4096], problem[1024];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        int id = id_of(line);
        if (id < 0) return fprintf(stderr, "settings_gen: no row %s\n", line), 1;
        struct sst_value v;
        int rc = sst_setting_parse((enum sst_setting_id)id, tab + 1, &v);
        sst_setting_format((enum sst_setting_id)id, &v, shown, sizeof shown);
        problem[0] = '\0';
        if (rc < 0) sst_setting_problem((enum sst_setting_id)id, tab + 1, problem, sizeof problem);
        fprintf(out, "%s\t%s\t%d\t%d\t%llu\t%llu\t%s\t%s\n", line, tab + 1, rc, v.word,
                (unsigned long long)v.num, (unsigned long long)v.pid, shown, problem);
    }
    return ferror(out);
}

int settings_gen_main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "man") == 0) return gen_man(stdin, stdout);
    if (strcmp(cmd, "rows") == 0) return gen_rows(stdout);
    if (strcmp(cmd, "parse") == 0) return gen_parse(stdin, stdout);
    if (strcmp(cmd, "python") == 0) {
        FILE *f = argc > 2 ? fopen(argv[2], "w") : stdout;
        if (!f) return perror(argv[2]), 1;
        int rc = gen_python(f);
        return (f != stdout && fclose(f) != 0) || rc;
    }
    fprintf(stderr, "usage: settings_gen man|python [FILE]|rows|parse\n");
    return 2;
}

#ifndef SETTINGS_GEN_NO_MAIN
int main(int argc, char **argv)
{
    return settings_gen_main(argc, argv);
}
#endif
