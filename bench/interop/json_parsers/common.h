/* common.h — the JSON parser probes' shared part: the whole file in memory (plus padding),
 * a monotonic clock. Each probe times the parse of a document already in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static char *load(const char *p, size_t *n, size_t pad) {
    FILE *f = fopen(p, "rb"); fseek(f, 0, SEEK_END); *n = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
    char *b = (char *)calloc(1, *n + pad + 1); if (fread(b, 1, *n, f) != *n) exit(1); fclose(f); return b; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
