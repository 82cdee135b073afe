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
        SS_FAIL_AT("'%s': rc %d kind %d %" PRIu64 "-%" PRIu64 ", want kind %d %" PRIu64
                   "-%" PRIu64, spec, rc, w.kind, w.from, w.to, kind, from, to);
}

static void check_refused(const char *spec)
{
    struct sst_window w = {SST_WINDOW_STEPS, 1, 2};
    int rc = sst_window_parse(spec, &w);
    if (rc != SS_EINVAL || w.kind != SST_WINDOW_ALL)
        SS_FAIL_AT("'%s' accepted (rc %d kind %d)", spec, rc, w.kind);
}

int main(void)
{
    check_one("auto", SST_WINDOW_AUTO, 0, 0);
    check_one("all", SST_WINDOW_ALL, 0, 0);
    check_one("steps:100-150", SST_WINDOW_STEPS, 100, 150);
    check_one("steps:0-0", SST_WINDOW_STEPS, 0, 0);
    check_one("seconds:2-5", SST_WINDOW_SECONDS, 2000000000ull, 5000000000ull);
    check_one("seconds:0.5-1.25", SST_WINDOW_SECONDS, 500000000ull, 1250000000ull);
    /* the CLI refused these and the collector took them, or the other way round: now all */
    const char *refused[] = {"", "Auto", "steps:1.5-3", "steps:3-1", "steps:-1-3", "steps:1-",
                             "steps:1-2x", "steps:1e30-1e31", "seconds:1-1", "seconds:-1-2",
                             "seconds:1-1e9", "seconds:1-2 ", "steps 1-2", "bogus"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        check_refused(refused[i]);
    return ss_test_result();
}
