/*
 * flag_names.h — bit sets of the trace format as text ("graph|driver_launch"), and enum
 * values this version does not know.
 *
 * sst_names.h names single enum values; these name combinations of bits. Each formatter
 * writes into buf (always NUL-terminated) and returns it; bits this version does not know
 * are shown as one hex remainder ("graph|0x40") so nothing is silently hidden. 0 is "none".
 */
#ifndef FLAG_NAMES_H
#define FLAG_NAMES_H

#include <stddef.h>

const char *rn_kernel_flags(char *buf, size_t cap, unsigned flags); /* enum sst_kernel_flag */
const char *rn_copy_flags(char *buf, size_t cap, unsigned flags);   /* enum sst_copy_flag */
const char *rn_features(char *buf, size_t cap, unsigned flags);     /* enum sst_feature */
const char *rn_capture_what(char *buf, size_t cap, unsigned flags); /* CAPTURE .what bits */

/* An enum value as `info` and `dump` show it: its name (from sst_names.h, NULL when this
 * version does not know the value), or "unknown(N)" written into buf. */
const char *rn_enum(char *buf, size_t cap, const char *name, unsigned v);

#endif
