/*
 * test_window.c — the capture window's grammar (src/trace/sst_window.h), the one parser that
 * `record --capture`, the collector (STEPSCOPE_CAPTURE) and the analysis (ENV
 * collector.capture) share: what each form means, and what all three refuse alike.
 */
#include "ss_test.h"
#include "trace/sst_window.h"
#include "util/ss_error.h"

static void check_one(const char *spec, int kind, uint64_t from, uint64_t to)
{
    struct sst_window w;
    int rc = sst_window_parse(spec, &w);
    if (rc != 0 || w.kind != kind || w.from != from || w.to != to)
        SS_FAIL_AT("'%s': rc %d kind %d %" PRIu64 "-%" PRIu64 ", want kind %d %" PRIu64 "-%" PRIu64,
                   spec, rc, w.kind, w.from, w.to, kind, from, to);
}

static void check_refused(const char *spec)
{
    struct sst_window w = {SST_WINDOW_STEPS, 1, 2, 0, 0, 0};
    int rc = sst_window_parse(spec, &w);
    if (rc != SS_EINVAL || w.kind != SST_WINDOW_ALL)
        SS_FAIL_AT("'%s' accepted (rc %d kind %d)", spec, rc, w.kind);
}

/* every:P[,steps:L]: period in steps (period_steps) or ns (period_ns), length (0: not given),
 * and the spec the collector writes back (ENV collector.window), read again alike. */
static void check_every(const char *spec, uint64_t steps, uint64_t ns, uint64_t len,
                        const char *canonical)
{
    struct sst_window w, again;
    char buf[64];
    int rc = sst_window_parse(spec, &w);
    if (rc != 0 || w.kind != SST_WINDOW_EVERY || w.period_steps != steps || w.period_ns != ns ||
        w.len != len)
        SS_FAIL_AT("'%s': rc %d kind %d every %" PRIu64 " steps %" PRIu64 " ns len %" PRIu64, spec,
                   rc, w.kind, w.period_steps, w.period_ns, w.len);
    sst_window_format(&w, buf, sizeof buf);
    CHECK_STR(buf, canonical);
    if (sst_window_parse(buf, &again) != 0 || again.kind != w.kind ||
        again.period_steps != w.period_steps || again.period_ns != w.period_ns ||
        again.len != w.len)
        SS_FAIL_AT("'%s' does not read back as '%s'", buf, spec);
}

static void every_forms(void)
{
    check_every("every:2000", 2000, 0, 0, "every:2000");
    check_every("every:2000,steps:50", 2000, 0, 50, "every:2000,steps:50");
    check_every("every:2,steps:1", 2, 0, 1, "every:2,steps:1");
    check_every("every:30s", 0, 30000000000ull, 0, "every:30s");
    check_every("every:10m,steps:50", 0, 600000000000ull, 50, "every:600s,steps:50");
    check_every("every:1.5h", 0, 5400000000000ull, 0, "every:5400s");
    check_every("every:0.1s,steps:5", 0, 100000000ull, 5, "every:0.1s,steps:5");
    check_every("every:0.25s", 0, 250000000ull, 0, "every:0.25s");
    /* no period (or one step), a step period that is no whole number, a time below the
     * writer's 0.1-s round or past 1e9 s, units other than s, m and h, windows as long as their
     * period (that is `all`), lengths out of STEPSCOPE_AUTO_STEPS' range, and forms that
     * sscanf alone would take (signs, spaces, exponents, hex, inf) */
    const char *refused[] = {"every:",
                             "every:0",
                             "every:1",
                             "every:1.5",
                             "every:-5",
                             "every: 5",
                             "every:5 ",
                             "every:1e3",
                             "every:0x10",
                             "every:inf",
                             "every:.5s",
                             "every:0.05s",
                             "every:1e9s",
                             "every:300000000h",
                             "every:5d",
                             "every:5ms",
                             "every:s",
                             "every:10,steps:10",
                             "every:10,steps:11",
                             "every:10,steps:0",
                             "every:10m,steps:0",
                             "every:10m,steps:1.5",
                             "every:10m,steps:100000001",
                             "every:10,steps:",
                             "every:10,steps:2-3",
                             "every:10,seconds:1",
                             "every:10,",
                             "every:10,steps:5,steps:5",
                             "every:10;steps:5",
                             "Every:10",
                             "every10",
                             "every"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        check_refused(refused[i]);
}

/* Every form writes back as it reads (steps, seconds too: the collector's ENV record). */
static void format_others(void)
{
    const char *forms[] = {"auto", "all", "steps:8-107", "seconds:0.5-2"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        struct sst_window w;
        char buf[64];
        CHECK_EQ(sst_window_parse(forms[i], &w), 0);
        sst_window_format(&w, buf, sizeof buf);
        CHECK_STR(buf, forms[i]);
    }
}

int main(void)
{
    every_forms();
    format_others();
    check_one("auto", SST_WINDOW_AUTO, 0, 0);
    check_one("all", SST_WINDOW_ALL, 0, 0);
    check_one("steps:100-150", SST_WINDOW_STEPS, 100, 150);
    check_one("steps:0-0", SST_WINDOW_STEPS, 0, 0);
    check_one("seconds:2-5", SST_WINDOW_SECONDS, 2000000000ull, 5000000000ull);
    check_one("seconds:0.5-1.25", SST_WINDOW_SECONDS, 500000000ull, 1250000000ull);
    /* the CLI refused these and the collector took them, or the other way round: now all */
    const char *refused[] = {"",
                             "Auto",
                             "steps:1.5-3",
                             "steps:3-1",
                             "steps:-1-3",
                             "steps:1-",
                             "steps:1-2x",
                             "steps:1e30-1e31",
                             "seconds:1-1",
                             "seconds:-1-2",
                             "seconds:1-1e9",
                             "seconds:1-2 ",
                             "steps 1-2",
                             "bogus"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        check_refused(refused[i]);
    return ss_test_result();
}
