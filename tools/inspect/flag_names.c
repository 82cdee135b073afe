/* flag_names.c — see flag_names.h. */
#include "flag_names.h"

#include <stdio.h>
#include <string.h>

#include "trace/sst_format.h"

struct flag_name {
    unsigned bit;
    const char *name;
};

/* Joins the names of the set bits with '|', then any unknown bits in hex. */
static const char *format_flags(char *buf, size_t cap, unsigned flags,
                                const struct flag_name *names, size_t n)
{
    size_t len = 0;
    unsigned rest = flags;
    buf[0] = '\0';
    if (flags == 0) {
        snprintf(buf, cap, "none");
        return buf;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(flags & names[i].bit)) continue;
        rest &= ~names[i].bit;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "|" : "", names[i].name);
        if (w < 0 || (size_t)w >= cap - len) return buf; /* cut; cap is ample in practice */
        len += (size_t)w;
    }
    if (rest) snprintf(buf + len, cap - len, "%s0x%x", len ? "|" : "", rest);
    return buf;
}

#define FORMAT(buf, cap, flags, table)                                                             \
    format_flags(buf, cap, flags, table, sizeof(table) / sizeof(table[0]))

const char *rn_kernel_flags(char *buf, size_t cap, unsigned flags)
{
    static const struct flag_name t[] = {{SST_KF_GRAPH, "graph"},
                                         {SST_KF_DRIVER_LAUNCH, "driver_launch"},
                                         {SST_KF_COOPERATIVE, "cooperative"}};
    return FORMAT(buf, cap, flags, t);
}

const char *rn_copy_flags(char *buf, size_t cap, unsigned flags)
{
    static const struct flag_name t[] = {{SST_CF_ASYNC, "async"}};
    return FORMAT(buf, cap, flags, t);
}

const char *rn_features(char *buf, size_t cap, unsigned flags)
{
    static const struct flag_name t[] = {{SST_FEAT_CUPTI, "cupti"},
                                         {SST_FEAT_NVTX, "nvtx"},
                                         {SST_FEAT_HOST_SAMPLES, "host_samples"},
                                         {SST_FEAT_ZSTD, "zstd"},
                                         {SST_FEAT_LIGHT_MODE, "light_mode"},
                                         {SST_FEAT_SYNTHETIC, "synthetic"}};
    return FORMAT(buf, cap, flags, t);
}

const char *rn_capture_what(char *buf, size_t cap, unsigned flags)
{
    static const struct flag_name t[] = {{SST_CAPTURE_GPU, "gpu"},
                                         {SST_CAPTURE_NVTX, "nvtx"},
                                         {SST_CAPTURE_HOST, "host_samples"},
                                         {SST_CAPTURE_PY_STACKS, "py_stacks"},
                                         {SST_CAPTURE_LAUNCHES, "launches"}};
    return FORMAT(buf, cap, flags, t);
}

const char *rn_enum(char *buf, size_t cap, const char *name, unsigned v)
{
    if (name) return name;
    snprintf(buf, cap, "unknown(%u)", v);
    return buf;
}
