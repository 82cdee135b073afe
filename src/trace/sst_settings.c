/* sst_settings.c — the settings table's rows and their one grammar; see sst_settings.h. Pure:
 * no environment, no output (the collector, record and the generator of the shim's rows read
 * every value through sst_setting_parse, so they cannot disagree on one). */
#include "sst_settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sst_window.h"

const struct sst_setting sst_settings[SST_N_SETTINGS] = {
#define SST_X_ROW(ID, opt, sh, arg, type, values, dflt, rec, flags, help)                          \
    [SST_SET_##ID] = {((flags)&SST_S_NO_VAR) ? NULL : "STEPSCOPE_" #ID,                            \
                      #ID,                                                                         \
                      opt,                                                                         \
                      sh,                                                                          \
                      arg,                                                                         \
                      type,                                                                        \
                      values,                                                                      \
                      dflt,                                                                        \
                      rec,                                                                         \
                      flags,                                                                       \
                      help},
    SST_SETTINGS(SST_X_ROW)
#undef SST_X_ROW
};

/* ---- numbers and the alternatives of values ---------------------------------------------- */

/* Whole numbers only: digits, nothing before or after (strtoull would take " 1", "-1", "1x"). */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf) return -1;
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)s[i])) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, 10);
    if (errno) return -1;
    *out = v;
    return 0;
}

/* The n-th alternative of values: *p, *len; 0, or -1 past the last. */
static int alt_at(const char *values, int n, const char **p, size_t *len)
{
    const char *s = values;
    for (int i = 0; i < n; i++) {
        s = strchr(s, '|');
        if (!s) return -1;
        s++;
    }
    if (!*values) return -1;
    *p = s;
    *len = strcspn(s, "|");
    return 0;
}

/* "A-B" as a range of whole numbers: 1 with *lo, *hi. */
static int alt_range(const char *p, size_t len, uint64_t *lo, uint64_t *hi)
{
    const char *dash = memchr(p, '-', len);
    return dash && parse_u64(p, (size_t)(dash - p), lo) == 0 &&
           parse_u64(dash + 1, len - (size_t)(dash - p) - 1, hi) == 0;
}

int sst_setting_alt(enum sst_setting_id id, int n, char *buf, size_t cap)
{
    const char *p;
    size_t len;
    if (alt_at(sst_settings[id].values, n, &p, &len) != 0) return -1;
    snprintf(buf, cap, "%.*s", (int)len, p);
    return 0;
}

/* ---- one parser per type ----------------------------------------------------------------- */

/* CHOICE: a word of values (word = its index) or a number inside one of its ranges. */
static int parse_choice(const char *values, const char *s, struct sst_value *v)
{
    const char *p;
    size_t len;
    uint64_t n = 0, lo, hi;
    int is_num = parse_u64(s, strlen(s), &n) == 0;
    for (int i = 0; alt_at(values, i, &p, &len) == 0; i++) {
        if (alt_range(p, len, &lo, &hi)) {
            if (is_num && n >= lo && n <= hi) return v->num = n, v->word = -1, 0;
        } else if (strlen(s) == len && strncmp(s, p, len) == 0) {
            return v->word = i, 0;
        }
    }
    return -1;
}

/* SIZE: "65536", "512K", "64M", "1G", "64MB", "64MiB"; never 0, never past 64 bits. */
static int parse_size(const char *s, struct sst_value *v)
{
    size_t digits = strspn(s, "0123456789");
    uint64_t n;
    if (parse_u64(s, digits, &n) != 0 || n == 0) return -1;
    const char *end = s + digits;
    unsigned shift = 0;
    if (*end && strchr("kKmMgG", *end)) {
        shift = strchr("kK", *end) ? 10 : strchr("mM", *end) ? 20 : 30;
        if (n > (~0ull >> shift)) return -1; /* more bytes than 64 bits hold */
        end++;
    }
    if (strcmp(end, "iB") == 0)
        end += 2;
    else if (strcmp(end, "B") == 0)
        end++;
    if (*end) return -1;
    v->num = n << shift;
    return 0;
}

/* LIST: words of values, comma-separated, each one known. */
static int parse_list(const char *values, const char *s, struct sst_value *v)
{
    uint64_t bits = 0;
    for (const char *p = s;; p++) {
        size_t len = strcspn(p, ",");
        char item[64];
        struct sst_value one;
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : 0), p);
        if (!item[0] || parse_choice(values, item, &one) != 0 || one.word < 0) return -1;
        bits |= 1ull << one.word;
        p += len;
        if (!*p) break;
    }
    v->num = bits;
    return 0;
}

/* STEP_PID: "8:4242", STEP inside values' range, PID a whole number. */
static int parse_step_pid(const char *values, const char *s, struct sst_value *v)
{
    const char *colon = strchr(s, ':');
    struct sst_value step;
    char head[32];
    if (!colon || (size_t)(colon - s) >= sizeof head) return -1;
    snprintf(head, sizeof head, "%.*s", (int)(colon - s), s);
    if (parse_choice(values, head, &step) != 0 || step.word >= 0) return -1;
    if (parse_u64(colon + 1, strlen(colon + 1), &v->pid) != 0) return -1;
    v->num = step.num;
    return 0;
}

/* WINDOW: the capture grammar; word: the index of its form in values (auto, all, steps,
 * seconds: the order of enum sst_window_kind). */
static int parse_window(const char *s, struct sst_value *v)
{
    struct sst_window w;
    if (sst_window_parse(s, &w) != 0) return -1;
    v->word = w.kind;
    return 0;
}

static int parse_as(const struct sst_setting *x, const char *s, struct sst_value *v)
{
    switch (x->type) {
    case SST_T_TEXT:
        return 0;
    case SST_T_SWITCH:
        if (strcmp(s, "0") != 0 && strcmp(s, "1") != 0) return -1;
        return v->num = (uint64_t)(*s == '1'), 0;
    case SST_T_CHOICE:
        return parse_choice(x->values, s, v);
    case SST_T_SIZE:
        return parse_size(s, v);
    case SST_T_WINDOW:
        return parse_window(s, v);
    case SST_T_LIST:
        return parse_list(x->values, s, v);
    case SST_T_STEP_PID:
        return parse_step_pid(x->values, s, v);
    }
    return -1;
}

int sst_setting_parse(enum sst_setting_id id, const char *text, struct sst_value *v)
{
    const struct sst_setting *x = &sst_settings[id];
    *v = (struct sst_value){x->dflt, 0, -1, 0};
    if (*x->dflt) parse_as(x, x->dflt, v); /* defaults are values (test settings.agree) */
    if (!text || !*text) return 0;
    struct sst_value got = {text, 0, -1, 0};
    if (parse_as(x, text, &got) != 0) return -1;
    *v = got;
    return 1;
}

/* ---- words for people -------------------------------------------------------------------- */

/* "a, b or c" of the alternatives of values, ranges said as "a number from A to B". */
static void must_choice(const char *values, const char *last_sep, char *buf, size_t cap)
{
    const char *p;
    size_t len, used = 0;
    uint64_t lo, hi;
    int n = 0;
    while (alt_at(values, n, &p, &len) == 0)
        n++;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; i++) {
        const char *sep = i == 0 ? "" : i == n - 1 ? last_sep : ", ";
        alt_at(values, i, &p, &len);
        if (alt_range(p, len, &lo, &hi))
            used += (size_t)snprintf(buf + used, cap - used, "%sa number from %llu to %llu", sep,
                                     (unsigned long long)lo, (unsigned long long)hi);
        else
            used += (size_t)snprintf(buf + used, cap - used, "%s%.*s", sep, (int)len, p);
    }
}

void sst_setting_must(enum sst_setting_id id, char *buf, size_t cap)
{
    const struct sst_setting *x = &sst_settings[id];
    char alts[256];
    must_choice(x->values, " or ", alts, sizeof alts);
    switch (x->type) {
    case SST_T_TEXT:
        snprintf(buf, cap, "any text");
        break;
    case SST_T_SWITCH:
        snprintf(buf, cap, "0 or 1");
        break;
    case SST_T_SIZE:
        snprintf(buf, cap, "a size such as 64M");
        break;
    case SST_T_LIST:
        must_choice(x->values, " and ", alts, sizeof alts);
        snprintf(buf, cap, "a comma-separated list of %s", alts);
        break;
    case SST_T_STEP_PID:
        snprintf(buf, cap, "STEP:PID, STEP %s", alts);
        break;
    default:
        snprintf(buf, cap, "%s", alts);
    }
}

void sst_setting_problem(enum sst_setting_id id, const char *text, char *buf, size_t cap)
{
    char must[300];
    sst_setting_must(id, must, sizeof must);
    snprintf(buf, cap, "%s must be %s, not '%.200s': using the default", sst_settings[id].env, must,
             text);
}

/* The words of a LIST value: "sync,memory", in values' order; "none" for none. */
static void format_list(const char *values, uint64_t bits, char *buf, size_t cap)
{
    const char *p;
    size_t len, used = 0;
    buf[0] = '\0';
    for (int i = 0; alt_at(values, i, &p, &len) == 0 && used < cap; i++)
        if (bits >> i & 1)
            used +=
                (size_t)snprintf(buf + used, cap - used, "%s%.*s", used ? "," : "", (int)len, p);
    if (!buf[0]) snprintf(buf, cap, "none");
}

void sst_setting_format(enum sst_setting_id id, const struct sst_value *v, char *buf, size_t cap)
{
    const struct sst_setting *x = &sst_settings[id];
    if (x->type == SST_T_LIST)
        format_list(x->values, v->num, buf, cap);
    else if (x->type == SST_T_CHOICE && v->word >= 0)
        sst_setting_alt(id, v->word, buf, cap);
    else if (x->type == SST_T_CHOICE || x->type == SST_T_SIZE || x->type == SST_T_SWITCH)
        snprintf(buf, cap, "%llu", (unsigned long long)v->num);
    else
        snprintf(buf, cap, "%s", v->text ? v->text : "");
}

void sst_setting_env_key(enum sst_setting_id id, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "collector.%s", sst_settings[id].id);
    for (int i = (int)sizeof "collector." - 1; i < n && (size_t)i < cap; i++)
        buf[i] = (char)tolower((unsigned char)buf[i]);
}

/* ---- help -------------------------------------------------------------------------------- */

void sst_setting_lead(enum sst_setting_id id, char *buf, size_t cap)
{
    const struct sst_setting *x = &sst_settings[id];
    const char *p;
    size_t len, used = 0;
    uint64_t lo, hi;
    int words = 0;
    buf[0] = '\0';
    if (x->type != SST_T_CHOICE && x->type != SST_T_WINDOW && x->type != SST_T_LIST) return;
    for (int i = 0; alt_at(x->values, i, &p, &len) == 0; i++)
        words += !alt_range(p, len, &lo, &hi);
    for (int i = 0; words && alt_at(x->values, i, &p, &len) == 0 && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%.*s", i ? " | " : "", (int)len, p);
}

void sst_setting_describe(enum sst_setting_id id, char *buf, size_t cap)
{
    const struct sst_setting *x = &sst_settings[id];
    const char *shown = x->rec ? x->rec : x->dflt;
    if (x->type == SST_T_SWITCH || x->type == SST_T_TEXT || !*shown)
        snprintf(buf, cap, "%s", x->help);
    else
        snprintf(buf, cap, "%s (default %s)", x->help, shown);
}
