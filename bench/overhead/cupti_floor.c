/*
 * cupti_floor.c — the overhead floor: the cheapest CUPTI client that enables the same
 * activity kinds as stepscope's full mode and throws the records away.
 *
 * Injected with CUDA_INJECTION64_PATH=libcupti_floor.so. bench/overhead/run_overhead.py
 * compares stepscope against it: whatever stepscope costs beyond this floor is its own
 * doing (conversion, buffering, writing), the rest is CUPTI's.
 */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FLOOR_BUF_BYTES (8u << 20)

static unsigned long long floor_records;

static void CUPTIAPI floor_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, FLOOR_BUF_BYTES);
    *size = *buffer ? FLOOR_BUF_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI floor_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                            size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    (void)ctx, (void)stream, (void)size;
    /* Walk the records so the floor pays what any consumer pays to read them. */
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) floor_records++;
    free(buffer);
}

static void floor_at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (getenv("CUPTI_FLOOR_VERBOSE"))
        fprintf(stderr, "cupti_floor: %llu records\n", floor_records);
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER,            CUPTI_ACTIVITY_KIND_MEMORY2,
        CUPTI_ACTIVITY_KIND_OVERHEAD,
    };
    if (cuptiActivityRegisterCallbacks(floor_buffer_requested, floor_buffer_completed) !=
        CUPTI_SUCCESS)
        return 1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) cuptiActivityEnable(kinds[i]);
    atexit(floor_at_exit);
    return 1;
}
