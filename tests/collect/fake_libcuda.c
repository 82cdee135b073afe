/*
 * fake_libcuda.c — a stand-in libcuda.so.1 for record's driver check (issue #41), found first
 * through LD_LIBRARY_PATH: cuDriverGetVersion answers $FAKE_CUDA_VERSION (e.g. 12040: a driver
 * for CUDA 12.4, too old for CUPTI 13), cuInit answers $FAKE_CUINIT (e.g. 100,
 * CUDA_ERROR_NO_DEVICE). Every other entry point is missing: a CUDA runtime that loads it fails
 * its calls, as with a broken driver.
 */
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

EXPORT int cuDriverGetVersion(int *v)
{
    *v = env_int("FAKE_CUDA_VERSION", 13000);
    return 0;
}

EXPORT int cuInit(unsigned flags)
{
    (void)flags;
    return env_int("FAKE_CUINIT", 0);
}

EXPORT int cuGetErrorName(int err, const char **s)
{
    *s = err == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
