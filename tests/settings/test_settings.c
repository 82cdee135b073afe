/*
 * test_settings.c — the settings table (src/trace/sst_settings.h) is whole and its grammar is
 * the one each reader had: every default and record value a value; options named once; the
 * words the collector's enums number in the order they number them; each type's edges.
 */
#include "collect/ssc_config.h"
#include "ss_test.h"
#include "trace/sst_settings.h"
#include "trace/sst_window.h"

static int parse(enum sst_setting_id id, const char *text, struct sst_value *v)
{
    return sst_setting_parse(id, text, v);
}

/* Every row: its default and record value are values; an option has a long name and, unless a
 * switch, an ARG; a row without a variable is an option; help says something. */
static void rows_whole(void)
{
    struct sst_value v;
    for (int id = 0; id < SST_N_SETTINGS; id++) {
        const struct sst_setting *x = &sst_settings[id];
        if (x->dflt[0] && parse((enum sst_setting_id)id, x->dflt, &v) != 1)
            SS_FAIL_AT("%s: default '%s' is no value of its own", x->id, x->dflt);
        if (x->rec && parse((enum sst_setting_id)id, x->rec, &v) != 1)
            SS_FAIL_AT("%s: record value '%s' is no value", x->id, x->rec);
        if (x->rec && !x->option) SS_FAIL_AT("%s: a record value without an option", x->id);
        if (!x->env && !x->option) SS_FAIL_AT("%s: neither a variable nor an option", x->id);
        if (x->option && (x->type == SST_T_SWITCH) != (x->arg == NULL))
            SS_FAIL_AT("%s: a switch takes no argument, anything else one", x->id);
        if (!x->help[0]) SS_FAIL_AT("%s: no help", x->id);
        for (int j = 0; j < id; j++) {
            const struct sst_setting *y = &sst_settings[j];
            if (x->option && y->option && strcmp(x->option, y->option) == 0)
                SS_FAIL_AT("--%s twice", x->option);
            if (x->short_name && x->short_name == y->short_name)
                SS_FAIL_AT("-%c twice", x->short_name);
        }
    }
}

/* The collector numbers MODE's words (enum ssc_mode) and the window's forms (enum
 * sst_window_kind) by their place in values. */
static void word_order(void)
{
    struct sst_value v;
    CHECK_EQ(parse(SST_SET_MODE, "full", &v), 1);
    CHECK_EQ(v.word, SSC_MODE_FULL);
    CHECK_EQ(parse(SST_SET_MODE, "light", &v), 1);
    CHECK_EQ(v.word, SSC_MODE_LIGHT);
    const char *forms[] = {[SST_WINDOW_AUTO] = "auto",
                           [SST_WINDOW_ALL] = "all",
                           [SST_WINDOW_STEPS] = "steps:1-2",
                           [SST_WINDOW_SECONDS] = "seconds:1-2",
                           [SST_WINDOW_EVERY] = "every:10m,steps:5"};
    for (int k = 0; k < 5; k++) {
        CHECK_EQ(parse(SST_SET_CAPTURE, forms[k], &v), 1);
        CHECK_EQ(v.word, k);
    }
}

/* One type's edges: what each reader took before the table, where they agreed. */
struct probe {
    enum sst_setting_id id;
    const char *text;
    int rc;
    uint64_t num;
};

static const struct probe k_probes[] = {
    {SST_SET_SAMPLE_HZ, "0", 1, 0},
    {SST_SET_SAMPLE_HZ, "1000", 1, 1000},
    {SST_SET_SAMPLE_HZ, "1001", -1, 10},
    {SST_SET_SAMPLE_HZ, " 5", -1, 10},
    {SST_SET_SAMPLE_HZ, "5x", -1, 10},
    {SST_SET_SAMPLE_HZ, "-1", -1, 10},
    {SST_SET_SAMPLE_HZ, "", 0, 10},
    {SST_SET_SAMPLE_HZ, NULL, 0, 10},
    {SST_SET_LAUNCH_SAMPLE, "0", -1, 8},
    {SST_SET_LAUNCH_SAMPLE, "2", 1, 2},
    {SST_SET_MEMORY_CAP, "64M", 1, 64ull << 20},
    {SST_SET_MEMORY_CAP, "1GiB", 1, 1ull << 30},
    {SST_SET_MEMORY_CAP, "512kB", 1, 512ull << 10},
    {SST_SET_MEMORY_CAP, "65536", 1, 65536},
    {SST_SET_MEMORY_CAP, "0", -1, 64ull << 20},
    {SST_SET_MEMORY_CAP, "64i", -1, 64ull << 20}, /* the collector took it, record did not */
    {SST_SET_MEMORY_CAP, "17179869184G", -1, 64ull << 20}, /* 2^64 bytes must not wrap */
    {SST_SET_MEMORY_CAP, "-5M", -1, 64ull << 20},
    {SST_SET_QUIET, "1", 1, 1},
    {SST_SET_QUIET, "yes", -1, 0},
    {SST_SET_CUPTI_DETACH, "0", 1, 0},
    {SST_SET_CUPTI_DETACH, "", 0, 1},
    {SST_SET_CUPTI_EXTRA, "sync,overhead", 1, 5},
    {SST_SET_CUPTI_EXTRA, "sync,", -1, 0},
    {SST_SET_CUPTI_EXTRA, "kernel", -1, 0},
    {SST_SET_AUTO_FROM, "8:4242", 1, 8},
    {SST_SET_AUTO_FROM, "1001:1", -1, 0},
    {SST_SET_AUTO_FROM, "8", -1, 0},
    {SST_SET_AUTO_FROM, "8:x", -1, 0},
    {SST_SET_HOST_SAMPLES, "off", 1, 0},
    {SST_SET_HOST_SAMPLES, "0", -1, 100},
    {SST_SET_HOST_SAMPLES, "2.5", -1, 100},
};

static void grammar(void)
{
    for (size_t i = 0; i < sizeof k_probes / sizeof k_probes[0]; i++) {
        const struct probe *p = &k_probes[i];
        struct sst_value v;
        int rc = parse(p->id, p->text, &v);
        if (rc != p->rc || v.num != p->num)
            SS_FAIL_AT("%s '%s': rc %d num %llu, not %d %llu", sst_settings[p->id].id,
                       p->text ? p->text : "(unset)", rc, (unsigned long long)v.num, p->rc,
                       (unsigned long long)p->num);
    }
}

/* The words people read: record's error, every reader's problem line, the ENV record's. */
static void words(void)
{
    char buf[512];
    struct sst_value v;
    sst_setting_must(SST_SET_MODE, buf, sizeof buf);
    CHECK_STR(buf, "full or light");
    sst_setting_must(SST_SET_CAPTURE, buf, sizeof buf);
    CHECK_STR(buf, "auto, all, steps:A-B, seconds:A-B, every:N[,steps:L] or every:T[,steps:L]");
    sst_setting_must(SST_SET_HOST_SAMPLES, buf, sizeof buf);
    CHECK_STR(buf, "off or a number from 1 to 1000");
    sst_setting_problem(SST_SET_MEMORY_CAP, "lots", buf, sizeof buf);
    CHECK_STR(buf, "STEPSCOPE_MEMORY_CAP must be a size such as 64M, not 'lots': using the "
                   "default");
    sst_setting_env_key(SST_SET_LAUNCH_SAMPLE, buf, sizeof buf);
    CHECK_STR(buf, "collector.launch_sample");
    parse(SST_SET_CUPTI_EXTRA, NULL, &v);
    sst_setting_format(SST_SET_CUPTI_EXTRA, &v, buf, sizeof buf);
    CHECK_STR(buf, "none");
    parse(SST_SET_MEMORY_CAP, "32M", &v);
    sst_setting_format(SST_SET_MEMORY_CAP, &v, buf, sizeof buf);
    CHECK_STR(buf, "33554432");
    sst_setting_lead(SST_SET_SAMPLE_HZ, buf, sizeof buf);
    CHECK_STR(buf, "");
    sst_setting_lead(SST_SET_HOST_SAMPLES, buf, sizeof buf);
    CHECK_STR(buf, "off | 1-1000");
}

int main(void)
{
    rows_whole();
    word_order();
    grammar();
    words();
    return ss_test_result();
}
