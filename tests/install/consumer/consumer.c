/* consumer.c — 6 steps of ~3 ms, each with a data-loading range, marked through the installed
 * <stepscope/stepscope.h> (built by find_package and by pkg-config in install_test.sh). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <stepscope/stepscope.h>

static void busy_ms(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

int main(void)
{
    for (uint64_t i = 0; i < 6; i++) {
        stepscope_step_begin(i);
        stepscope_data_begin();
        busy_ms(2);
        stepscope_data_end();
        busy_ms(1);
        stepscope_step_end();
    }
    puts("consumer: 6 steps");
    return 0;
}
