/*
 * sst_crc32c.c — CRC32C with the SSE4.2 instruction, and a table fallback.
 *
 * The hardware path runs three independent crc32 streams over three thirds of each large
 * block and merges them, because one stream is bound by the instruction's 3-cycle latency
 * while the CPU can issue one per cycle; merging needs "multiply by x^(8n) mod P", done
 * with a carry-less multiply in software against constants computed once.
 */
#include "sst_crc32c.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u /* reflected Castagnoli polynomial */

static uint32_t crc_table[256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t sst_crc32c_sw(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&crc_table_once, crc_table_init);
    const uint8_t *p = data;
    crc = ~crc;
    while (len--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define SST_HAVE_HW_CRC 1

/* Product of two polynomials modulo P in the reflected domain (bit 31 is x^0). */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
        if (a & bit)
            product ^= b;
        b = (b & 1) ? (b >> 1) ^ CRC32C_POLY : b >> 1;
    }
    return product;
}

/* x^(8*nbytes) mod P: the operator that appends nbytes of zeros to a raw CRC state. */
static uint32_t x_pow_bytes(size_t nbytes)
{
    uint32_t result = 1u << 31; /* x^0 */
    uint32_t square = 1u << 23; /* x^8: one byte */
    for (; nbytes != 0; nbytes >>= 1) {
        if (nbytes & 1)
            result = gf2_mulmod(result, square);
        square = gf2_mulmod(square, square);
    }
    return result;
}

#define CRC_LANE 4096 /* bytes per stream in one block (multiple of 8); large, so the merge
                       * (two 32-step multiplies) costs little next to 1536 crc32 steps */
static uint32_t shift_lane, shift_2lanes;
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

static void shift_init(void)
{
    shift_lane = x_pow_bytes(CRC_LANE);
    shift_2lanes = x_pow_bytes(2 * CRC_LANE);
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8); /* unaligned-safe; compiles to one load */
    return v;
}

__attribute__((target("sse4.2"))) static uint32_t crc_hw_serial(uint32_t c, const uint8_t *p,
                                                                 size_t len)
{
    uint64_t c64 = c;
    for (; len >= 8; len -= 8, p += 8)
        c64 = _mm_crc32_u64(c64, load64(p));
    c = (uint32_t)c64;
    for (; len; len--)
        c = _mm_crc32_u8(c, *p++);
    return c;
}

/* Three streams over a..b..c, merged: state(a||b||c) = shift2(a) ^ shift1(b) ^ c. */
__attribute__((target("sse4.2"))) static uint32_t crc_hw_block3(uint32_t c, const uint8_t *p)
{
    uint64_t ca = c, cb = 0, cc = 0;
    for (size_t i = 0; i < CRC_LANE; i += 8) {
        ca = _mm_crc32_u64(ca, load64(p + i));
        cb = _mm_crc32_u64(cb, load64(p + CRC_LANE + i));
        cc = _mm_crc32_u64(cc, load64(p + 2 * CRC_LANE + i));
    }
    return gf2_mulmod((uint32_t)ca, shift_2lanes) ^ gf2_mulmod((uint32_t)cb, shift_lane) ^
           (uint32_t)cc;
}

static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
    uint32_t c = ~crc;
    if (len >= 3 * CRC_LANE) {
        pthread_once(&shift_once, shift_init);
        for (; len >= 3 * CRC_LANE; len -= 3 * CRC_LANE, p += 3 * CRC_LANE)
            c = crc_hw_block3(c, p);
    }
    return ~crc_hw_serial(c, p, len);
}

int sst_crc32c_hw_available(void)
{
    static int cached = -1; /* benign race: every thread computes the same value */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("sse4.2") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#else
int sst_crc32c_hw_available(void)
{
    return 0;
}
#endif

uint32_t sst_crc32c(uint32_t crc, const void *data, size_t len)
{
#ifdef SST_HAVE_HW_CRC
    if (sst_crc32c_hw_available())
        return crc_hw(crc, data, len);
#endif
    return sst_crc32c_sw(crc, data, len);
}
