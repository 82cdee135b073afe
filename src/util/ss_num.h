/*
 * ss_num.h — doubles to whole numbers without undefined behaviour (prefix ss_).
 *
 * Converting a double outside the target type's range (or NaN) is undefined in C: figures
 * derived from a hostile trace (a step of 2^64 ns, a rate of 1e-300 Hz) reach such values,
 * and UBSan stops there (fuzz.analyze found such traces). Every conversion of a computed
 * time back to integer ns goes through these: held to the type's range, NaN as 0.
 */
#ifndef SS_NUM_H
#define SS_NUM_H

#include <stdint.h>

/* x as int64, held to [INT64_MIN, INT64_MAX] (9.2e18: the largest round bound below 2^63). */
static inline int64_t ss_i64_clamped(double x)
{
    if (x != x) return 0;
    if (x >= 9.2e18) return INT64_MAX;
    return x <= -9.2e18 ? INT64_MIN : (int64_t)x;
}

/* x as uint64, held to [0, UINT64_MAX] (1.8e19: the largest round bound below 2^64). */
static inline uint64_t ss_u64_clamped(double x)
{
    if (!(x > 0)) return 0; /* NaN too */
    return x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
}

#endif
