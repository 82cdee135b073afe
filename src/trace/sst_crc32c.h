/*
 * sst_crc32c.h — CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of the
 * trace format's file header and chunks.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at run time) and a
 * table otherwise; both give the same result. Thread-safe.
 */
#ifndef SST_CRC32C_H
#define SST_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC32C: pass 0 to start, and the previous result to extend it over more
 * data. sst_crc32c(0, "123456789", 9) == 0xE3069283. */
uint32_t sst_crc32c(uint32_t crc, const void *data, size_t len);

/* The table implementation alone, for tests that compare it with the hardware path. */
uint32_t sst_crc32c_sw(uint32_t crc, const void *data, size_t len);

/* 1 when sst_crc32c uses the SSE4.2 instruction on this CPU. */
int sst_crc32c_hw_available(void);

#endif
