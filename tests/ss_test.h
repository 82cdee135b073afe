/*
 * ss_test.h — the test harness: CHECK macros that print file:line and count a failure, and
 * helpers for temporary files. Each test is its own executable (one process, ctest TIMEOUT);
 * main() ends with `return ss_test_result();`.
 */
#ifndef SS_TEST_H
#define SS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ss_test_failures;

#define SS_FAIL_AT(...)                                                                        \
    do {                                                                                       \
        fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);                                \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                   \
        ss_test_failures++;                                                                    \
    } while (0)

/* CHECK(cond): counts a failure and goes on. REQUIRE(cond): stops the test. */
#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond))                                                                           \
            SS_FAIL_AT("%s", #cond);                                                           \
    } while (0)

#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            SS_FAIL_AT("%s (required: stopping)", #cond);                                      \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                                         \
    do {                                                                                       \
        long long ss_a_ = (long long)(a), ss_b_ = (long long)(b);                              \
        if (ss_a_ != ss_b_)                                                                    \
            SS_FAIL_AT("%s == %s (%lld != %lld)", #a, #b, ss_a_, ss_b_);                       \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                     \
    do {                                                                                       \
        uint64_t ss_a_ = (uint64_t)(a), ss_b_ = (uint64_t)(b);                                 \
        if (ss_a_ != ss_b_)                                                                    \
            SS_FAIL_AT("%s == %s (%" PRIu64 " != %" PRIu64 ")", #a, #b, ss_a_, ss_b_);         \
    } while (0)

#define CHECK_STR(a, b)                                                                        \
    do {                                                                                       \
        const char *ss_a_ = (a), *ss_b_ = (b);                                                 \
        if (!ss_a_ || !ss_b_ || strcmp(ss_a_, ss_b_) != 0)                                    \
            SS_FAIL_AT("%s == %s (\"%s\" != \"%s\")", #a, #b, ss_a_ ? ss_a_ : "(null)",        \
                       ss_b_ ? ss_b_ : "(null)");                                              \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                            \
    do {                                                                                       \
        const char *ss_h_ = (hay);                                                             \
        if (!ss_h_ || !strstr(ss_h_, (needle)))                                                \
            SS_FAIL_AT("\"%s\" contains \"%s\"", ss_h_ ? ss_h_ : "(null)", (needle));          \
    } while (0)

/* A path in a private temporary directory (the directory is removed by ss_test_cleanup).
 * Returns static storage overwritten by the next call. */
static char ss_test_dir[256];
static inline const char *ss_test_path(const char *name)
{
    static char path[512];
    if (!ss_test_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(ss_test_dir, sizeof ss_test_dir, "%s/sstest.XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(ss_test_dir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    snprintf(path, sizeof path, "%s/%s", ss_test_dir, name);
    return path;
}

static inline void ss_test_cleanup(void)
{
    if (!ss_test_dir[0])
        return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ss_test_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", ss_test_dir);
}

/* Prints the verdict, removes temporary files, gives main's exit status. */
static inline int ss_test_result(void)
{
    ss_test_cleanup();
    if (ss_test_failures) {
        fprintf(stderr, "%d check(s) failed\n", ss_test_failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}

#endif
