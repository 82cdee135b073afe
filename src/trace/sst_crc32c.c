/*
 * sst_crc32c.c — CRC32C with the SSE4.2 instruction, and a table fallback.
 *
 * The hardware path runs three independent crc32 streams over three thirds of each large
 * block and merges them, because one stream is bound by the instruction's 3-cycle latency
 * while the CPU can issue one per cycle; merging needs "multiply by x^(8n) mod P", done
 * with a carry-less multiply in software against constants computed once. On CPUs with
 * AVX-512 VPCLMULQDQ, buffers of 512 bytes or more are folded with carry-less multiplies
 * instead (crc_fold below), which is not bound by the one-crc32-per-cycle port.
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
#include <immintrin.h>
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

/* x^nbits mod P. */
static uint32_t x_pow_bits(uint64_t nbits)
{
    uint32_t result = 1u << 31; /* x^0 */
    uint32_t square = 1u << 30; /* x^1 */
    for (; nbits != 0; nbits >>= 1) {
        if (nbits & 1)
            result = gf2_mulmod(result, square);
        square = gf2_mulmod(square, square);
    }
    return result;
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

/*
 * Folding with VPCLMULQDQ (AVX-512), about four times the crc32 instruction's 8 bytes per
 * cycle. A 16-byte lane loaded little-endian is a polynomial A of degree < 128 in the
 * reflected order (integer bit k is x^(127-k)): its low qword H holds x^127..x^64, its high
 * qword L x^63..x^0, so A = H*x^64 + L. Moving A forward by F bits, A*x^F, is congruent
 * mod P to H*(x^(64+F) mod P) + L*(x^F mod P), a polynomial of degree < 96 that fits the
 * lane again. A carry-less multiply of two reflected qwords returns their product times x
 * (its bit k is x^(126-k)), so the constants are x^(63+F) and x^(F-1) mod P, each placed in
 * the top half of a qword (a 32-bit reflected value v becomes v << 32).
 * The running CRC state enters by xoring it into the first 4 bytes (a state s before n
 * bytes contributes s*x^(8n), exactly those bytes' place); at the end the one lane left
 * is itself 16 bytes of message, and the crc32 instruction from state 0 reduces it.
 */
#define FOLD_REGS 4                  /* zmm accumulators: 256 bytes per loop iteration */
#define FOLD_MIN (2 * FOLD_REGS * 64) /* shorter buffers are not worth the set-up */
static int have_vpclmul = -1;
/* fold constants: [0] by 4 registers (2048 bits), [1..3] by 3, 2, 1 registers,
 * [4..6] by 3, 2, 1 lanes (384, 256, 128 bits); each {for H, for L} */
static uint64_t fold_k[7][2];
static pthread_once_t fold_once = PTHREAD_ONCE_INIT;

static void fold_init(void)
{
    static const unsigned bits[7] = {2048, 1536, 1024, 512, 384, 256, 128};
    for (int i = 0; i < 7; i++) {
        fold_k[i][0] = (uint64_t)x_pow_bits(63 + bits[i]) << 32;
        fold_k[i][1] = (uint64_t)x_pow_bits(bits[i] - 1) << 32;
    }
    __builtin_cpu_init();
    have_vpclmul = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
}

#define FOLD_TARGET __attribute__((target("avx512f,vpclmulqdq,sse4.2,pclmul")))

FOLD_TARGET static inline __m512i fold512(__m512i a, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(a, k, 0x00),
                            _mm512_clmulepi64_epi128(a, k, 0x11));
}

FOLD_TARGET static inline __m128i fold128(__m128i a, const uint64_t k[2])
{
    __m128i kk = _mm_set_epi64x((long long)k[1], (long long)k[0]);
    return _mm_xor_si128(_mm_clmulepi64_si128(a, kk, 0x00), _mm_clmulepi64_si128(a, kk, 0x11));
}

FOLD_TARGET static inline __m512i kvec(const uint64_t k[2])
{
    return _mm512_set_epi64((long long)k[1], (long long)k[0], (long long)k[1],
                            (long long)k[0], (long long)k[1], (long long)k[0],
                            (long long)k[1], (long long)k[0]);
}

/* Raw state c (not inverted) over len >= FOLD_MIN bytes; returns the raw state. */
FOLD_TARGET static uint32_t crc_fold(uint32_t c, const uint8_t *p, size_t len)
{
    __m512i acc[FOLD_REGS];
    for (int i = 0; i < FOLD_REGS; i++)
        acc[i] = _mm512_loadu_si512((const void *)(p + 64 * i));
    acc[0] = _mm512_xor_si512(acc[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)c)));
    p += 64 * FOLD_REGS, len -= 64 * FOLD_REGS;
    const __m512i k4 = kvec(fold_k[0]);
    for (; len >= 64 * FOLD_REGS; p += 64 * FOLD_REGS, len -= 64 * FOLD_REGS) {
        for (int i = 0; i < FOLD_REGS; i++)
            acc[i] = _mm512_xor_si512(fold512(acc[i], k4),
                                      _mm512_loadu_si512((const void *)(p + 64 * i)));
    }
    __m512i one = acc[FOLD_REGS - 1];
    for (int i = 0; i < FOLD_REGS - 1; i++)
        one = _mm512_xor_si512(one, fold512(acc[i], kvec(fold_k[1 + i])));
    __m128i lane = _mm512_extracti32x4_epi32(one, 3);
    lane = _mm_xor_si128(lane, fold128(_mm512_extracti32x4_epi32(one, 0), fold_k[4]));
    lane = _mm_xor_si128(lane, fold128(_mm512_extracti32x4_epi32(one, 1), fold_k[5]));
    lane = _mm_xor_si128(lane, fold128(_mm512_extracti32x4_epi32(one, 2), fold_k[6]));
    uint64_t lo = (uint64_t)_mm_cvtsi128_si64(lane), hi = (uint64_t)_mm_extract_epi64(lane, 1);
    uint64_t c64 = _mm_crc32_u64(_mm_crc32_u64(0, lo), hi);
    return crc_hw_serial((uint32_t)c64, p, len);
}

/* The three-stream path alone (tests compare it with the table on any CPU). */
uint32_t sst_crc32c_sse42(uint32_t crc, const void *data, size_t len);
uint32_t sst_crc32c_sse42(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t c = ~crc;
    if (len >= 3 * CRC_LANE) {
        pthread_once(&shift_once, shift_init);
        for (; len >= 3 * CRC_LANE; len -= 3 * CRC_LANE, p += 3 * CRC_LANE)
            c = crc_hw_block3(c, p);
    }
    return ~crc_hw_serial(c, p, len);
}

static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
    if (len >= FOLD_MIN) {
        pthread_once(&fold_once, fold_init);
        if (have_vpclmul)
            return ~crc_fold(~crc, p, len);
    }
    return sst_crc32c_sse42(crc, p, len);
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

uint32_t sst_crc32c_sse42(uint32_t crc, const void *data, size_t len);
uint32_t sst_crc32c_sse42(uint32_t crc, const void *data, size_t len)
{
    return sst_crc32c_sw(crc, data, len); /* no SSE4.2 path on this architecture */
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
