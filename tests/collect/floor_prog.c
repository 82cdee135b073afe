/*
 * floor_prog.c — drives bench/overhead/cupti_floor.c (libcupti_floor.so) against the fake
 * libcupti, as bench/overhead/models.py drives it on the GPU machine: CUPTI_FLOOR_ALTERNATE=1
 * must switch the launch callbacks off in windows 1, 3, ... and on in 2, 4, ..., a window being
 * a cudaDeviceSynchronize, launches, and another synchronize. Prints one line per window:
 * "window K callbacks N" (the callbacks the fake made for it). usage: floor_prog FLOOR_LIB
 */
#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>

#define WINDOWS 6
#define LAUNCHES 10

unsigned long long fake_cupti_fired(void); /* fake_cupti.c */
uint32_t fake_cupti_call(int domain, uint32_t cbid, uint32_t inner_cbid, int result);

static void sync_call(void)
{
    fake_cupti_call(CUPTI_CB_DOMAIN_RUNTIME_API,
                    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 0, 0);
}

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (!init || init() != 1) {
        fprintf(stderr, "floor_prog: cannot start %s\n", argc > 1 ? argv[1] : "(none)");
        return 1;
    }
    for (int w = 1; w <= WINDOWS; w++) {
        sync_call();
        unsigned long long before = fake_cupti_fired();
        for (int i = 0; i < LAUNCHES; i++)
            fake_cupti_call(CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0);
        printf("window %d callbacks %llu\n", w, fake_cupti_fired() - before);
        sync_call();
    }
    return 0;
}
