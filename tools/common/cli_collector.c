/*
 * cli_collector.c — whether the collector can load here, and if not, why (issue #29).
 *
 * The CUDA driver loads CUDA_INJECTION64_PATH with dlopen and, when that fails (libcupti.so.13
 * missing, a CUPTI of another CUDA major), goes on without a word: `record` then found no trace
 * and blamed the program ("made no CUDA call"). So `record` and `doctor` load the collector
 * first, in a child process (nothing of it stays in ours), and turn the loader's message into
 * the cause: the library that is missing, where it was looked for (LD_LIBRARY_PATH, the
 * collector's RUNPATH, the system's), and a CUPTI of another CUDA version found there.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

/* The directory holding the running stepscope executable. */
static int exe_dir(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return -1;
    *slash = '\0';
    return 0;
}

/* Where an installed stepscope keeps the collector and the shim, from bin/ (tools/install/). */
#ifndef STEPSCOPE_PKGLIB_REL
#define STEPSCOPE_PKGLIB_REL "../lib/stepscope"
#endif

/* name in the installed layout (STEPSCOPE_PKGLIB_REL from this executable's folder: a copy
 * installed anywhere, also the pip wheel's), else beside the executable (the build tree).
 * 0 with the resolved path in out, or -1 when neither exists. */
int cli_find_companion(const char *name, char *out, size_t cap)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    if (exe_dir(dir, sizeof dir) != 0) return -1;
    const char *under[] = {"/" STEPSCOPE_PKGLIB_REL "/", "/"};
    for (size_t i = 0; i < sizeof under / sizeof under[0]; i++) {
        snprintf(path, sizeof path, "%s%s%s", dir, under[i], name);
        char *r = realpath(path, NULL); /* bin/../lib/... shown as lib/... */
        int fits = r && strlen(r) < cap;
        if (fits) snprintf(out, cap, "%s", r);
        free(r);
        if (fits) return 0;
    }
    return -1;
}

int cli_find_collector(char *out, size_t cap)
{
    struct sst_value env;
    char path[PATH_MAX + 32];
    if (cli_setting(SST_SET_LIB, &env) > 0)
        snprintf(path, sizeof path, "%s", env.text);
    else if (cli_find_companion("libstepscope.so", path, sizeof path) != 0)
        return -1;
    char *r = realpath(path, NULL);
    int ok = r && access(r, R_OK) == 0 && strlen(r) < cap;
    if (ok) snprintf(out, cap, "%s", r);
    free(r);
    return ok ? 0 : -1;
}

/* The collector's DT_RUNPATH (or DT_RPATH) into buf, "" when it has none or is no ELF64. */
static void elf_runpath(const char *lib, char *buf, size_t cap)
{
    buf[0] = '\0';
    int fd = open(lib, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        if (fd >= 0) close(fd);
        return;
    }
    const unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return;
    const Elf64_Ehdr *eh = (const void *)m;
    size_t size = (size_t)st.st_size;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size) {
        const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum && !buf[0]; i++) {
            if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum) continue;
            const Elf64_Shdr *strs = &sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size)
                continue;
            const Elf64_Dyn *d = (const void *)(m + sh[i].sh_offset);
            for (size_t k = 0; k < sh[i].sh_size / sizeof *d && d[k].d_tag != DT_NULL; k++)
                if ((d[k].d_tag == DT_RUNPATH || d[k].d_tag == DT_RPATH) &&
                    d[k].d_un.d_val < strs->sh_size)
                    snprintf(buf, cap, "%.*s", (int)(strs->sh_size - d[k].d_un.d_val),
                             (const char *)m + strs->sh_offset + d[k].d_un.d_val);
        }
    }
    munmap((void *)m, size);
}

/* The CUPTI the collector links (CUDA 13's): a file of that name found on the path is no
 * "other version", whatever else kept it from loading. */
#define BUILT_CUPTI "libcupti.so.13"

/* Another CUDA major's CUPTI in one of the colon-separated dirs (a name into buf), or "". */
static void other_cupti(const char *dirs, char *buf, size_t cap)
{
    buf[0] = '\0';
    char list[4096];
    snprintf(list, sizeof list, "%s", dirs);
    for (char *save = NULL, *d = strtok_r(list, ":", &save); d && !buf[0];
         d = strtok_r(NULL, ":", &save)) {
        DIR *dir = opendir(d);
        for (struct dirent *de; dir && (de = readdir(dir)) && !buf[0];)
            if (strncmp(de->d_name, "libcupti.so.", 12) == 0 &&
                strncmp(de->d_name, BUILT_CUPTI, strlen(BUILT_CUPTI)) != 0)
                snprintf(buf, cap, "%s/%s", d, de->d_name);
        if (dir) closedir(dir);
    }
}

/* dl_iterate_phdr's visitor: the first loaded object named libcupti.so.* (its path into *data). */
static int find_cupti(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    if (!base || strncmp(base + 1, "libcupti.so", 11) != 0) return 0;
    *(const char **)data = info->dlpi_name;
    return 1;
}

/* In a child: dlopen the collector now, with everything it needs; through fd, the loader's
 * error, or on success the path of the CUPTI it brought in (which one LD_LIBRARY_PATH, the
 * RUNPATH and the system's path chose). */
static void try_load(const char *lib, int fd)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    const char *said = "";
    if (!h) said = dlerror();
    else dl_iterate_phdr(find_cupti, &said);
    ssize_t w = write(fd, said ? said : "", strlen(said ? said : ""));
    (void)w;
    _exit(h ? 0 : 1);
}

/* What a child that loaded lib said (the loader's error, or the CUPTI it loaded) into err;
 * 0 when it loaded. */
static int load_in_child(const char *lib, char *err, size_t cap)
{
    int p[2];
    err[0] = '\0';
    if (pipe2(p, O_CLOEXEC) != 0) return 0; /* cannot tell: let the run go */
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        try_load(lib, p[1]);
    }
    close(p[1]);
    ssize_t n = pid > 0 ? read(p[0], err, cap - 1) : 0;
    err[n > 0 ? n : 0] = '\0';
    close(p[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return pid > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) ? -1 : 0;
}

int cli_collector_check(const char *lib, char *why, size_t cap)
{
    char err[1024], runpath[2048], dirs[4096], other[1024];
    if (load_in_child(lib, err, sizeof err) == 0) {
        snprintf(why, cap, "%s", err);
        return 0;
    }
    elf_runpath(lib, runpath, sizeof runpath);
    const char *llp = getenv("LD_LIBRARY_PATH");
    snprintf(dirs, sizeof dirs, "%s:%s", llp ? llp : "", runpath);
    other_cupti(dirs, other, sizeof other);
    int n = snprintf(why, cap, "the collector %s cannot be loaded: %s (searched: LD_LIBRARY_PATH=%s, "
                     "its RUNPATH %s, then the system's)",
                     lib, err[0] ? err : "unknown loader error", llp && *llp ? llp : "(unset)",
                     runpath[0] ? runpath : "(none)");
    if (other[0] && strstr(err, "libcupti") && n > 0 && (size_t)n < cap)
        snprintf(why + n, cap - (size_t)n, "; found %s: a CUPTI of another CUDA version than the "
                 "one stepscope was built with (CUDA 13)", other);
    return -1;
}
