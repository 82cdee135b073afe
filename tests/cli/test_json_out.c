/*
 * test_json_out.c — exact output of the CLI's JSON writer and text escaper on edge cases:
 * every kind of invalid UTF-8, terminal-unsafe code points, nesting and its misuse.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "ss_num.h"
#include "text_esc.h"

static int failures;

static void expect_eq(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) == 0) return;
    fprintf(stderr, "FAIL %s:\n  got:  %s\n  want: %s\n", what, got, want);
    failures++;
}

/* The JSON text of one string value holding n bytes of s. */
static void check_json_string(const char *s, size_t n, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json_out j;
    json_init(&j, f, 0);
    json_string_n(&j, s, n);
    fclose(f);
    expect_eq("json string", buf, want);
    free(buf);
}

static void check_text(const char *s, size_t n, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    text_write_escaped(f, s, n, 1);
    fclose(f);
    expect_eq("text escape", buf, want);
    free(buf);
}

#define JS(lit, want) check_json_string(lit, sizeof(lit) - 1, want)
#define TX(lit, want) check_text(lit, sizeof(lit) - 1, want)

static void test_strings(void)
{
    JS("plain", "\"plain\"");
    JS("q\"b\\n\n\r\t\b\f", "\"q\\\"b\\\\n\\n\\r\\t\\b\\f\"");
    JS("nul\0esc\x1b"
       "del\x7f",
       "\"nul\\u0000esc\\u001bdel\\u007f\"");
    JS("\xc2\x85 \xe2\x80\xae \xe2\x80\xa8", "\"\\u0085 \\u202e \\u2028\"");
    JS("\xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80",
       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80\""); /* é € 🚀 */
    JS("\xff", "\"\\ufffd\"");
    JS("\xc0\xaf", "\"\\ufffd\\ufffd\"");                       /* overlong '/' */
    JS("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");            /* overlong, 3 bytes */
    JS("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* UTF-16 surrogate */
    JS("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
    JS("a\xe2\x82", "\"a\\ufffd\\ufffd\"");                     /* cut at the end */
    JS("\xe2\x82"
       "b",
       "\"\\ufffd\\ufffdb\""); /* cut before ASCII */
    TX("q\"\\\n\x1b[31m\xff\xc2\x85\xe2\x80\xae\xc3\xa9",
       "\"q\\\"\\\\\\n\\x1b[31m\\xff\\u{0085}\\u{202e}\xc3\xa9\"");
    char buf[16];
    expect_eq("escape_to cut", text_escape_to(buf, sizeof buf, "abc\ndefghijklmnop"),
              "abc\\ndefghij...");
    expect_eq("escape_to fits", text_escape_to(buf, sizeof buf, "a\x1b"), "a\\x1b");
}

static void test_structure(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json_out j;
    json_init(&j, f, 1);
    json_begin_object(&j);
    json_kv_u64(&j, "n", 18446744073709551615ull);
    json_key(&j, "a");
    json_begin_array(&j);
    json_i64(&j, -9223372036854775807 - 1);
    json_double(&j, 0.1);
    json_double(&j, 1.0 / 0.0);
    json_begin_object(&j);
    json_end_object(&j);
    json_end_array(&j);
    json_kv_bool(&j, "b", 1);
    json_end_object(&j);
    int rc = json_finish(&j);
    fclose(f);
    expect_eq("pretty document", buf,
              "{\n  \"n\": 18446744073709551615,\n  \"a\": [\n    -9223372036854775808,\n"
              "    0.1,\n    null,\n    {}\n  ],\n  \"b\": true\n}\n");
    if (rc != 0) failures++, fprintf(stderr, "FAIL: a well-formed document reported misuse\n");
    free(buf);
}

/* Microseconds from nanoseconds, exactly three decimals, any int64. */
static void test_ns_as_us(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json_out j;
    json_init(&j, f, 0);
    json_begin_array(&j);
    const int64_t v[] = {
        0, 1, 999, 1000, 12345, -1500, -1, 9223372036854775807, -9223372036854775807 - 1};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        json_ns_as_us(&j, v[i]);
    json_end_array(&j);
    json_finish(&j);
    fclose(f);
    expect_eq("ns as us", buf,
              "[0.000,0.001,0.999,1.000,12.345,-1.500,-0.001,9223372036854775.807,"
              "-9223372036854775.808]\n");
    free(buf);
}

static void test_misuse(void)
{
    FILE *f = fopen("/dev/null", "w");
    struct json_out j;
    json_init(&j, f, 0);
    json_begin_object(&j);
    json_key(&j, "k");
    json_key(&j, "k2"); /* a key where a value belongs */
    json_end_object(&j);
    if (json_finish(&j) == 0) failures++, fprintf(stderr, "FAIL: misuse not reported\n");
    json_init(&j, f, 0);
    json_begin_array(&j); /* never closed */
    if (json_finish(&j) == 0) failures++, fprintf(stderr, "FAIL: unclosed array not reported\n");
    json_init(&j, f, 0);
    for (int i = 0; i < JSON_MAX_DEPTH + 5; i++)
        json_begin_array(&j); /* too deep: no overflow */
    if (json_finish(&j) == 0) failures++, fprintf(stderr, "FAIL: depth overflow not reported\n");
    fclose(f);
}

/* ss_num.h: doubles to whole numbers held to the type's range, NaN as 0 (the page's step bins
 * met 1.3e19 ns from a hostile trace). */
static void test_clamped(void)
{
    static const struct {
        double x;
        int64_t i;
        uint64_t u;
    } rows[] = {{0, 0, 0},
                {1.9, 1, 1},
                {-1.9, -1, 0},
                {1.3e19, INT64_MAX, 13000000000000000000ull},
                {-1.3e19, INT64_MIN, 0},
                {1e300, INT64_MAX, UINT64_MAX},
                {NAN, 0, 0}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        if (ss_i64_clamped(rows[k].x) != rows[k].i || ss_u64_clamped(rows[k].x) != rows[k].u)
            failures++, fprintf(stderr, "FAIL: clamped %g\n", rows[k].x);
}

int main(void)
{
    test_clamped();
    test_strings();
    test_structure();
    test_ns_as_us();
    test_misuse();
    if (failures) return 1;
    printf("ok\n");
    return 0;
}
