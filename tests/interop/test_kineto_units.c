/*
 * test_kineto_units.c — the Kineto importer's small pieces: the exact decimal parser of
 * timestamps, Kineto's names for copies, memsets, syncs and categories, API names -> cbids,
 * annotation names -> what they become, thread names; the format sniffing of a head.
 */
#include "interop/ssi.h"
#include "interop/ssi_kineto_internal.h"
#include "ss_test.h"

static int64_t scaled(const char *s, int scale, int *ok)
{
    int64_t v = 0;
    *ok = ki_parse_scaled(s, strlen(s), scale, &v) == 0;
    return v;
}

#define CHECK_SCALED(text, scale, want)                                                            \
    do {                                                                                           \
        int ok_;                                                                                   \
        int64_t v_ = scaled(text, scale, &ok_);                                                    \
        CHECK(ok_);                                                                                \
        CHECK_EQ(v_, want);                                                                        \
    } while (0)

#define CHECK_ABSURD(text, scale)                                                                  \
    do {                                                                                           \
        int ok_;                                                                                   \
        (void)scaled(text, scale, &ok_);                                                           \
        CHECK(!ok_);                                                                               \
    } while (0)

static void test_numbers(void)
{
    /* Kineto's "{}.{:03}" microseconds: exactly the ns it had, no double on the way */
    CHECK_SCALED("5126574162425.156", 3, INT64_C(5126574162425156));
    CHECK_SCALED("5126574162543.801", 3, INT64_C(5126574162543801));
    CHECK_SCALED("20712.857", 3, 20712857);
    CHECK_SCALED("1790857026000000000", 0, INT64_C(1790857026000000000));
    CHECK_SCALED("0", 3, 0);
    CHECK_SCALED("-0", 3, 0);
    CHECK_SCALED("-1.25", 3, -1250);
    CHECK_SCALED("1e3", 3, 1000000);
    CHECK_SCALED("1.23456e2", 3, 123456);
    CHECK_SCALED("1E-3", 3, 1);
    CHECK_SCALED("5e-4", 3, 1); /* half a ns rounds up */
    CHECK_SCALED("4.99e-4", 3, 0);
    CHECK_SCALED("1.5", 0, 2);
    CHECK_SCALED("2.4999", 0, 2);
    CHECK_SCALED("0.000000000000000000001", 3, 0);
    CHECK_SCALED("1.12345678901234567890123", 3, 1123); /* digits past 19 are dropped */
    CHECK_SCALED("12345678901234567890", -3, INT64_C(12345678901234568)); /* 20 digits */
    CHECK_SCALED("4611686018427387904", 0, INT64_C(4611686018427387904)); /* 2^62 */
    CHECK_ABSURD("4611686018427387905", 0);
    CHECK_ABSURD("1e300", 3);
    CHECK_ABSURD("-1e300", 3);
    CHECK_ABSURD("123456789012345678901234567890", 0);
    CHECK_ABSURD("1e99999999999999999999", 0); /* exponent clamped, still absurd */
    CHECK_SCALED("1e-99999999999999999999", 0, 0);
}

static void test_copies(void)
{
    uint8_t k, s, d;
    static const char *names[] = {"Memcpy HtoD (Pageable -> Device)",
                                  "Memcpy DtoH (Device -> Pinned)",
                                  "Memcpy PtoP (Device -> Device)",
                                  "Memcpy AtoD (Array -> Device)",
                                  "Memcpy HtoD (Managed Static -> Device Static)",
                                  "Memcpy HtoD (Pageable",
                                  "Memcpy X",
                                  "memcpy HtoD (Pageable -> Device)",
                                  "Memcpy HtoD (Force Int -> Unrecognized)"};
    static const uint8_t want[][3] = {
        {SST_COPY_H2D, SST_MEM_PAGEABLE, SST_MEM_DEVICE},
        {SST_COPY_D2H, SST_MEM_DEVICE, SST_MEM_PINNED},
        {SST_COPY_P2P, SST_MEM_DEVICE, SST_MEM_DEVICE},
        {SST_COPY_OTHER, SST_MEM_ARRAY, SST_MEM_DEVICE},
        {SST_COPY_H2D, SST_MEM_MANAGED_STATIC, SST_MEM_DEVICE_STATIC},
        {SST_COPY_H2D, SST_MEM_UNKNOWN, SST_MEM_UNKNOWN},
        {SST_COPY_UNKNOWN, SST_MEM_UNKNOWN, SST_MEM_UNKNOWN},
        {SST_COPY_UNKNOWN, SST_MEM_UNKNOWN, SST_MEM_UNKNOWN},
        {SST_COPY_H2D, SST_MEM_UNKNOWN, SST_MEM_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ki_memcpy_kinds(names[i], strlen(names[i]), &k, &s, &d);
        CHECK_EQ(k, want[i][0]);
        CHECK_EQ(s, want[i][1]);
        CHECK_EQ(d, want[i][2]);
    }
    CHECK_EQ(ki_memset_kind("Memset (Device)", 15), SST_MEM_DEVICE);
    CHECK_EQ(ki_memset_kind("Memset (Managed)", 16), SST_MEM_MANAGED);
    CHECK_EQ(ki_memset_kind("Memset", 6), SST_MEM_UNKNOWN);
    CHECK_EQ(ki_sync_kind("Stream Sync", 11), SST_SYNC_STREAM);
    CHECK_EQ(ki_sync_kind("Context Sync", 12), SST_SYNC_CONTEXT);
    CHECK_EQ(ki_sync_kind("Event Sync", 10), SST_SYNC_EVENT);
    CHECK_EQ(ki_sync_kind("Stream Wait Event", 17), SST_SYNC_STREAM_WAIT_EVENT);
    CHECK_EQ(ki_sync_kind("Unknown Sync", 12), SST_SYNC_UNKNOWN);
}

static void test_names(void)
{
    CHECK_EQ(ki_cat_of("kernel", 6), KC_KERNEL);
    CHECK_EQ(ki_cat_of("gpu_memcpy", 10), KC_MEMCPY);
    CHECK_EQ(ki_cat_of("cuda_driver", 11), KC_DRIVER);
    CHECK_EQ(ki_cat_of("ac2g", 4), KC_KNOWN_SKIPPED);
    CHECK_EQ(ki_cat_of("kernelx", 7), KC_OTHER);
    CHECK_EQ(ki_cat_of("", 0), KC_OTHER);
    /* the names Kineto gives API calls: CUPTI's without the _vNNNN suffix */
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaLaunchKernel", 16), 211);
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaMemcpyAsync", 15), 41);
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaStreamSynchronize", 21), 131);
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaLaunchKernel_ptsz", 21), 214);
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaMalloc", 10), 20);
    CHECK_EQ(ki_cbid_of(SST_API_DRIVER, "cuLaunchKernel", 14), 307);
    CHECK_EQ(ki_cbid_of(SST_API_DRIVER, "cuLaunchKernelEx", 16), 652);
    CHECK_EQ(ki_cbid_of(SST_API_DRIVER, "cuMemcpyHtoDAsync_v2", 20), 277);  /* _v2 stays */
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cuLaunchKernel", 14), 0);         /* wrong domain */
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaLaunchKernel_v7000", 22), 0); /* Kineto strips it */
    CHECK_EQ(ki_cbid_of(SST_API_RUNTIME, "cudaNoSuchCall", 14), 0);

    static const char step[] = "ProfilerStep#12",
                      data[] = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
    CHECK_EQ(ki_range_kind(KC_USER_ANNOTATION, step, strlen(step)), KR_STEP);
    CHECK_EQ(ki_range_kind(KC_CPU_OP, step, strlen(step)), KR_STEP); /* older torch: cpu_op */
    CHECK_EQ(ki_range_kind(KC_USER_ANNOTATION, data, strlen(data)), KR_DATA);
    CHECK_EQ(ki_range_kind(KC_USER_ANNOTATION, "forward", 7), KR_RANGE);
    CHECK_EQ(ki_range_kind(KC_CPU_OP, "Optimizer.step#SGD.step", 23), KR_RANGE);
    CHECK_EQ(ki_range_kind(KC_CPU_OP, "aten::mm", 8), KR_SKIP);
    CHECK_EQ(ki_range_kind(KC_PYTHON, "train.py(10): main", 18), KR_SKIP);

    const char *n;
    size_t len;
    ki_thread_name("thread 24110 (pt_autograd_0)", 28, &n, &len);
    CHECK(len == 13 && memcmp(n, "pt_autograd_0", 13) == 0);
    ki_thread_name("python3", 7, &n, &len);
    CHECK(len == 7 && memcmp(n, "python3", 7) == 0);
    ki_thread_name("thread 1 ()", 11, &n, &len); /* empty inside: kept whole */
    CHECK_EQ(len, 11);
}

#define DETECT(head) ssi_detect_bytes(head, sizeof head - 1) /* a literal, without its NUL */
#define IMPORTER(head) ssi_importer_of(head, sizeof head - 1)

/* Heads of real captures pass; random bytes that merely start like JSON or gzip do not (they
 * sent an endless stream into the spool: `import /dev/urandom` hung ~1 run in 300). */
static void test_detect(void)
{
    CHECK_EQ(DETECT("{\n  \"schemaVersion\": 1,"), SSI_FMT_FOREIGN);
    CHECK(IMPORTER("{\n  \"schemaVersion\": 1,") == &ssi_import_kineto);
    CHECK(IMPORTER("\xef\xbb\xbf [{\"ph\": \"X\"}]") == &ssi_import_kineto);
    CHECK(IMPORTER("[]") == &ssi_import_kineto);
    CHECK(IMPORTER("{\t}") == &ssi_import_kineto);
    CHECK(IMPORTER("{") == &ssi_import_kineto); /* a head that short says no more */
    CHECK(IMPORTER("{\"name\": \"caf\xc3\xa9\"") == &ssi_import_kineto);
    CHECK(IMPORTER("SQLite format 3\0\x10\0") == &ssi_import_nsys);
    CHECK_EQ(DETECT("{\"displayTimeUnit\":\"ns\",\"traceEvents\":["), SSI_FMT_OWN_JSON);
    CHECK_EQ(DETECT("{x\"a\": 1}"), SSI_FMT_UNKNOWN);
    CHECK_EQ(DETECT("[\x01"), SSI_FMT_UNKNOWN);
    CHECK_EQ(DETECT("{\"a\x02\": 1}"), SSI_FMT_UNKNOWN);
    CHECK_EQ(DETECT(" \n{ \"k\"\x7f\x00"), SSI_FMT_UNKNOWN);
    CHECK_EQ(DETECT("\x1f\x8b\x08\x00\x00\x00"), SSI_FMT_COMPRESSED);
    CHECK_EQ(DETECT("\x1f\x8b"), SSI_FMT_COMPRESSED);
    CHECK_EQ(DETECT("\x1f\x8b\x07\x00"), SSI_FMT_UNKNOWN); /* method 7: not deflate */
    CHECK_EQ(DETECT("\x1f\x8b\x08\x20"), SSI_FMT_UNKNOWN); /* reserved flag bit */
    CHECK_EQ(DETECT("\xfd" "7zXZ\x00\x00"), SSI_FMT_COMPRESSED);
    CHECK_EQ(DETECT("\x28\xb5\x2f\xfd\x00"), SSI_FMT_COMPRESSED);
}

/* The names an output drops come from the importers' rows (and the native suffix). */
static void test_suffixes(void)
{
    char buf[256];
    CHECK_EQ(ssi_input_suffix_len("run.pt.trace.json.gz"), 17);
    CHECK_EQ(ssi_input_suffix_len("run.json"), 5);
    CHECK_EQ(ssi_input_suffix_len("run.sqlite"), 7);
    CHECK_EQ(ssi_input_suffix_len("run.sstrace"), 8);
    CHECK_EQ(ssi_input_suffix_len(".json"), 0); /* a name that is all suffix keeps it */
    CHECK_EQ(ssi_input_suffix_len("run.csv"), 0);
    CHECK_STR(ssi_formats_read(buf, sizeof buf, 1),
              "stepscope trace, torch.profiler JSON or nsys SQLite export");
    CHECK_STR(ssi_formats_read(buf, sizeof buf, 0), "torch.profiler JSON or nsys SQLite export");
}

int main(void)
{
    test_detect();
    test_suffixes();
    test_numbers();
    test_copies();
    test_names();
    return ss_test_result();
}
