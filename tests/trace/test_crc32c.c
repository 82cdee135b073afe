/* test_crc32c — CRC32C against published vectors, hardware path against the table. */
#include "trace_util.h"

static void known_vectors(void)
{
    uint8_t buf[32];
    CHECK_EQ(sst_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(sst_crc32c_sw(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(sst_crc32c(0, "", 0), 0);
    memset(buf, 0, sizeof buf); /* RFC 3720 B.4 vectors */
    CHECK_EQ(sst_crc32c(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, sizeof buf);
    CHECK_EQ(sst_crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    CHECK_EQ(sst_crc32c(0, buf, 32), 0x46DD794Eu);
}

/* Lengths around the interleaved-block boundaries (3 x 4096 bytes), every alignment, whole
 * and in pieces. */
static void hw_matches_table(void)
{
    size_t n = 60000;
    uint8_t *buf = malloc(n + 16);
    REQUIRE(buf);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n + 16; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
    size_t lens[] = {0,     1,     7,     8,     9,     63,    3072,  12287,
                     12288, 12289, 12295, 24575, 24576, 36864, 40001, 60000};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t align = 0; align < 8; align++) {
            const uint8_t *p = buf + align;
            uint32_t want = sst_crc32c_sw(0, p, lens[li]);
            CHECK_EQ(sst_crc32c(0, p, lens[li]), want);
            size_t cut = lens[li] / 3;
            CHECK_EQ(sst_crc32c(sst_crc32c(0, p, cut), p + cut, lens[li] - cut), want);
        }
    }
    free(buf);
}

/* The three-stream SSE4.2 path alone (defined in sst_crc32c.c for this test): on a CPU
 * with VPCLMULQDQ sst_crc32c folds instead, so this keeps the other path tested too. */
uint32_t sst_crc32c_sse42(uint32_t crc, const void *data, size_t len);

/* Random lengths (most around the 512-byte folding threshold and the 256-byte fold step,
 * some up to 2 MiB), random alignments (0..63) and random split points, against the table. */
static void random_buffers(void)
{
    size_t n = (2u << 20) + 64;
    uint8_t *buf = malloc(n);
    REQUIRE(buf);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)(x >> 24);
    }
    for (int t = 0; t < 3000; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = t % 10 == 0 ? (size_t)(x % (2u << 20)) : (size_t)(x % 4096);
        size_t align = (size_t)(x >> 32) % 64;
        const uint8_t *p = buf + align;
        uint32_t seed = t % 3 == 0 ? 0 : (uint32_t)(x >> 16);
        uint32_t want = sst_crc32c_sw(seed, p, len);
        CHECK_EQ(sst_crc32c(seed, p, len), want);
        if (sst_crc32c_hw_available())
            CHECK_EQ(sst_crc32c_sse42(seed, p, len), want);
        size_t cut = len ? (size_t)(x >> 40) % len : 0;
        CHECK_EQ(sst_crc32c(sst_crc32c(seed, p, cut), p + cut, len - cut), want);
    }
    free(buf);
}

int main(void)
{
    printf("crc32c: hardware path %s\n", sst_crc32c_hw_available() ? "in use" : "not available");
    known_vectors();
    hw_matches_table();
    random_buffers();
    return ss_test_result();
}
