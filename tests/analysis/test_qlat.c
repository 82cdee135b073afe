/*
 * test_qlat.c — the launch-to-kernel join of src/analysis/ssa_qlat.c: every pair found in a
 * small trace, whatever the order the two sides come in; a bounded, unbiased sample in a
 * large one, also when the prompt kernels recur with the step's period (a sample by the id
 * itself would keep the same call of every step); the cap's halving when pass 1's count was
 * short.
 */
#include "analysis/ssa_internal.h"
#include "ss_test.h"

/* n launches 1 ms apart; kernel i starts 10 us after its call when prompt(i), else 5 ms
 * after; the kernels' side first when kernels_first. */
static void feed(struct ssa_qlat *q, uint32_t n, int (*prompt)(uint32_t), int kernels_first)
{
    for (int side = 0; side < 2; side++) {
        int kernel = kernels_first ? side == 0 : side == 1;
        for (uint32_t i = 1; i <= n; i++) {
            uint64_t call = (uint64_t)i * 1000000u;
            uint64_t t = kernel ? call + (prompt(i) ? 10000u : 5000000u) : call;
            CHECK_EQ(ssa_qlat_note(q, kernel, i, t), 0);
        }
    }
}

static int every_fourth(uint32_t i)
{
    return i % 4 == 0;
}

static int every_64th(uint32_t i)
{
    return i % 64 == 0;
}

static void test_small(int kernels_first)
{
    struct ssa_qlat q;
    ssa_qlat_init(&q, 1000);
    CHECK_EQ(q.mask, 0u);
    feed(&q, 1000, every_fourth, kernels_first);
    uint64_t matched, prompt;
    ssa_qlat_finish(&q, &matched, &prompt);
    CHECK_EQ(matched, 1000u);
    CHECK_EQ(prompt, 250u);
    CHECK(q.launch.v == NULL && q.kernel.v == NULL);
}

/* 2 M kernels: a sample of about 8-16 thousand, its prompt share 1/64 within 30 %. */
static void test_sampled(void)
{
    struct ssa_qlat q;
    ssa_qlat_init(&q, 2000000);
    CHECK(q.mask != 0);
    feed(&q, 2000000, every_64th, 0);
    uint64_t matched, prompt;
    ssa_qlat_finish(&q, &matched, &prompt);
    printf("  sampled: %llu matched, %llu prompt\n", (unsigned long long)matched,
           (unsigned long long)prompt);
    CHECK(matched >= 4000 && matched <= 20000);
    double share = (double)prompt / (double)matched;
    CHECK(share > 0.7 / 64 && share < 1.3 / 64);
}

/* Pass 1 counted no kernel (mask 0): the cap halves the sample as the sides fill, both alike. */
static void test_cap(void)
{
    struct ssa_qlat q;
    ssa_qlat_init(&q, 0);
    feed(&q, 600000, every_fourth, 1);
    CHECK(q.mask != 0);
    CHECK(q.kernel.n <= (1u << 17) && q.launch.n <= (1u << 17));
    uint64_t matched, prompt;
    ssa_qlat_finish(&q, &matched, &prompt);
    CHECK(matched > 30000);
    double share = (double)prompt / (double)matched;
    CHECK(share > 0.22 && share < 0.28);
}

int main(void)
{
    test_small(0);
    test_small(1);
    test_sampled();
    test_cap();
    return ss_test_result();
}
