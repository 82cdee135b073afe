/*
 * replay_main.c — runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer.
 *
 *   fuzz_replay_TARGET FILE_OR_DIR...
 *
 * The normal and sanitizer builds (gcc, no libFuzzer) link every target with this main, so
 * the seed corpora and every input that once crashed (tests/fuzz/regress/TARGET/) are
 * replayed by ctest in every build, including the ASan+UBSan suite of CI. Folders are read
 * one level deep, in name order. Exits 0 when every input ran (a crash ends the process).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (!buf) return -1;
    /* an exact-size copy, as libFuzzer passes it: ASan sees a read one past the end */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) return -1;
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char **v = realloc(names, (n + 1) * sizeof *names);
        if (!v) break;
        names = v;
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        rc |= run_file(path);
        ++*count;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: missing\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            rc |= run_dir(argv[i], &count) != 0;
        } else {
            rc |= run_file(argv[i]) != 0;
            count++;
        }
    }
    printf("replay: %d inputs ran\n", count);
    return rc;
}
