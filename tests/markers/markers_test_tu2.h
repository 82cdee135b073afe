/* A second translation unit (markers_test_tu2.c): its own lazily created handles. */
#ifndef MARKERS_TEST_TU2_H
#define MARKERS_TEST_TU2_H
#include <stdint.h>
void tu2_step(uint64_t step);
#endif
