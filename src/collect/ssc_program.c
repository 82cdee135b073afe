/*
 * ssc_program.c — what kind of program this is, for the report to write its advice in the
 * program's terms (issue #21): a Python interpreter, a C++ program over libtorch's C++ API, a
 * C program over its C ABI, or a CUDA program without libtorch. Read from what is loaded in
 * the process and from the executable's own DT_NEEDED list, once, on the writer thread at
 * the end of the recording (libtorch is loaded late, by `import torch`). Reads only this
 * process's own mappings: nothing is loaded, nothing is written.
 */
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "collect/ssc_core.h"

struct prog_scan {
    int python, torch, exe_seen;
    const ElfW(Dyn) *exe_dyn; /* the executable's dynamic section, NULL: static */
    ElfW(Addr) exe_base;
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void note_exe(struct prog_scan *p, const struct dl_phdr_info *info)
{
    p->exe_seen = 1;
    p->exe_base = info->dlpi_addr;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            p->exe_dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct prog_scan *p = arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (!p->exe_seen && !*name) { /* the first object without a name: the executable */
        note_exe(p, info);
        return 0;
    }
    const char *base = base_name(name);
    if (starts(base, "libtorch_python") || starts(base, "libpython")) p->python = 1;
    if (starts(base, "libtorch_cpu") || starts(base, "libtorch_cuda") || starts(base, "libc10"))
        p->torch = 1;
    return 0;
}

/* Whether a dynamic string table holds a C++ (mangled, "_Z") name: the executable imports or
 * exports a C++ function. A C program over libtorch's C ABI calls only aoti_torch_* names. */
static int strtab_has_mangled(const char *strtab, size_t size)
{
    for (size_t i = 0; i + 1 < size; i++)
        if ((i == 0 || strtab[i - 1] == '\0') && strtab[i] == '_' && strtab[i + 1] == 'Z')
            return 1;
    return 0;
}

/* Whether the executable itself is C++: it needs libstdc++, or its dynamic symbols have C++
 * names (train_cxx, linked by libtorch's CMake config with --as-needed, needs libstdc++ only
 * through libtorch: it was taken for C). glibc relocates DT_STRTAB in place on
 * most targets; a value below the load base is still an offset. */
static int exe_needs_cxx(const struct prog_scan *p)
{
    if (!p->exe_dyn) return 0;
    const char *strtab = NULL;
    size_t strsz = 0;
    for (const ElfW(Dyn) *d = p->exe_dyn; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB)
            strtab = (const char *)(d->d_un.d_ptr < p->exe_base ? p->exe_base + d->d_un.d_ptr
                                                                : d->d_un.d_ptr);
        if (d->d_tag == DT_STRSZ) strsz = d->d_un.d_val;
    }
    for (const ElfW(Dyn) *d = p->exe_dyn; strtab && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED && strstr(strtab + d->d_un.d_val, "libstdc++")) return 1;
    return strtab && strtab_has_mangled(strtab, strsz);
}

/* The executable is a Python interpreter (python3, python3.12, ...). */
static int exe_is_python(void)
{
    char path[512];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = '\0';
    return starts(base_name(path), "python");
}

const char *ssc_program_kind(void)
{
    struct prog_scan p;
    memset(&p, 0, sizeof p);
    dl_iterate_phdr(scan_object, &p);
    if (p.python || exe_is_python()) return "python";
    if (!p.torch) return "cuda";
    return exe_needs_cxx(&p) ? "cxx" : "c";
}
