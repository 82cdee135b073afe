/*
 * Runs the public markers (include/stepscope/stepscope.h, compiled as C11) and checks what an
 * NVTX tool receives, through tests/markers/fake_inject.so, which logs into $FAKE_INJECT_LOG.
 *
 *   markers_c_test none     NVTX_INJECTION64_PATH unset: the markers run and nothing is logged
 *   markers_c_test events   under the fake injection: the exact event sequence, then 4 threads
 *                           racing on the first use of a fresh translation unit's cache
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepscope/stepscope.h"
#include "markers_test_tu2.h"

static const char *expected_events =
    "init\n"
    "domain stepscope\n"
    "string stepscope step\n"
    "string stepscope data\n"
    "category stepscope 1 api\n"
    "category stepscope 2 pyshim\n"
    "push stepscope cat=1 reg:step payload=u64:0\n"
    "push stepscope cat=1 reg:data payload=none\n"
    "pop stepscope\n"
    "push stepscope cat=1 ascii:forward payload=none\n"
    "mark stepscope cat=1 ascii:loss payload=none\n"
    "pop stepscope\n"
    "pop stepscope\n"
    "push stepscope cat=1 reg:step payload=u64:1\n"
    "push stepscope cat=1 reg:data payload=none\n"
    "pop stepscope\n"
    "push stepscope cat=1 ascii:forward payload=none\n"
    "mark stepscope cat=1 ascii:loss payload=none\n"
    "pop stepscope\n"
    "pop stepscope\n"
    "push stepscope cat=1 reg:step payload=u64:18446744073709551615\n"
    "push stepscope cat=1 ascii: payload=none\n"
    "pop stepscope\n"
    "pop stepscope\n";

static void training_loop(void)
{
    for (uint64_t step = 0; step < 2; step++) {
        stepscope_step_begin(step);
        stepscope_data_begin();
        stepscope_data_end();
        stepscope_range_push("forward");
        stepscope_mark("loss");
        stepscope_range_pop();
        stepscope_step_end();
    }
    stepscope_step_begin(UINT64_MAX);
    stepscope_range_push(NULL);
    stepscope_range_pop();
    stepscope_step_end();
}

/* Reads the whole log; returns NULL (and "" in *why) when it does not exist. Caller frees. */
static char *read_log(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

static size_t count_lines(const char *text, const char *line)
{
    size_t count = 0, len = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p += len)
        if ((p == text || p[-1] == '\n') && p[len] == '\n') count++;
    return count;
}

static void *racer(void *arg)
{
    tu2_step((uint64_t)(uintptr_t)arg);
    return NULL;
}

static int check_threads(const char *log_path)
{
    pthread_t threads[4];
    for (uintptr_t i = 0; i < 4; i++)
        if (pthread_create(&threads[i], NULL, racer, (void *)(100 + i)) != 0)
            return fprintf(stderr, "pthread_create failed\n"), 1;
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    char *log = read_log(log_path);
    int bad = !log;
    char line[96];
    for (int i = 0; log && i < 4; i++) {
        snprintf(line, sizeof(line), "push stepscope cat=1 reg:step payload=u64:%d", 100 + i);
        if (count_lines(log, line) != 1)
            bad = fprintf(stderr, "FAIL: expected one '%s'\n", line) > 0;
    }
    if (log && count_lines(log, "pop stepscope") != 8 + 4)
        bad = fprintf(stderr, "FAIL: expected 12 pops\n") > 0;
    if (log && count_lines(log, "domain stepscope") < 2)
        bad = fprintf(stderr, "FAIL: the second unit did not create its domain\n") > 0;
    free(log);
    return bad;
}

int main(int argc, char **argv)
{
    const char *log_path = getenv("FAKE_INJECT_LOG");
    if (argc != 2 || !log_path)
        return fprintf(stderr, "usage: FAKE_INJECT_LOG=PATH %s none|events\n", argv[0]), 2;
    unlink(log_path);
    if (strcmp(argv[1], "none") == 0)
        unsetenv("NVTX_INJECTION64_PATH"); /* before the first NVTX call, which reads it */
    training_loop();
    char *log = read_log(log_path);
    if (strcmp(argv[1], "none") == 0) {
        if (log)
            fprintf(stderr, "FAIL: NVTX events reached a tool without injection:\n%s", log);
        else
            printf("ok: no injection, no events\n");
        free(log);
        return log ? 1 : 0;
    }
    if (!log || strcmp(log, expected_events) != 0) {
        fprintf(stderr, "FAIL: events differ.\n--- expected\n%s--- got\n%s", expected_events,
                log ? log : "(no log file)\n");
        free(log);
        return 1;
    }
    free(log);
    if (check_threads(log_path)) return 1;
    printf("ok: events as expected\n");
    return 0;
}
