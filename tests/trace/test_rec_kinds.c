/* test_rec_kinds [TRACE_FORMAT_MD] — the kinds' table (SST_REC_TYPES) gives every record kind
 * from 1 to the last a name, a minimum size past the header, and its time; a hole in the
 * numbering, a repeated name or a kind whose time is not where the table says fails here. With
 * the spec's path, its table of record types must say the same numbers, names and sizes. */
#include "trace/sst_names.h"
#include "trace_util.h"

#include <stddef.h>

static void names_and_sizes(void)
{
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++) {
        const char *n = sst_rec_type_name(t);
        size_t min = sst_rec_min_size(t);
        if (!n) SS_FAIL_AT("record kind %u has no name (a hole in SST_REC_TYPES)", (unsigned)t);
        if (n && sst_rec_type_from_name(n) != t) SS_FAIL_AT("name '%s' is not unique", n);
        if (min <= sizeof(struct sst_rec_header) || min % SST_REC_ALIGN)
            SS_FAIL_AT("record kind %u: minimum size %zu", (unsigned)t, min);
    }
    /* outside the table: no name, only the header known (readers skip such records by size) */
    CHECK(sst_rec_type_name(0) == NULL && sst_rec_type_name(SST_REC_TYPE_LIMIT) == NULL);
    CHECK_EQ(sst_rec_min_size(0), sizeof(struct sst_rec_header));
    CHECK_EQ(sst_rec_min_size(SST_REC_TYPE_LIMIT), sizeof(struct sst_rec_header));
    CHECK_EQ(sst_rec_min_size(SST_REC_KERNEL), sizeof(struct sst_rec_kernel));
    CHECK_EQ(sst_rec_min_size(SST_REC_NVTX_MARK), sizeof(struct sst_rec_nvtx));
    CHECK_EQ(sst_rec_min_size(SST_REC_PY_STACK), sizeof(struct sst_rec_py_stack));
}

/* A record of kind t, min size, whose every 8-byte word at offset o (from 8) holds 1000 + o. */
static void patterned(uint64_t *rec, uint16_t t)
{
    size_t size = sst_rec_min_size(t);
    for (size_t o = 8; o + 8 <= size; o += 8)
        rec[o / 8] = 1000 + o;
    struct sst_rec_header h = {t, (uint16_t)size};
    memcpy(rec, &h, sizeof h);
}

/* The time of every kind read back at the offsets its struct declares. */
static void times(void)
{
    uint64_t rec[SST_REC_MAX / 8];
    uint64_t t0 = 0, t1 = 0;
    static const struct {
        uint16_t type;
        size_t start, end; /* 0: no time */
    } want[] = {
        {SST_REC_KERNEL, offsetof(struct sst_rec_kernel, start_ns),
         offsetof(struct sst_rec_kernel, end_ns)},
        {SST_REC_GRAPH, offsetof(struct sst_rec_graph, start_ns),
         offsetof(struct sst_rec_graph, end_ns)},
        {SST_REC_NVTX_END, offsetof(struct sst_rec_nvtx, ts_ns), offsetof(struct sst_rec_nvtx, ts_ns)},
        {SST_REC_PY_SAMPLE, offsetof(struct sst_rec_py_sample, ts_ns),
         offsetof(struct sst_rec_py_sample, ts_ns)},
        {SST_REC_PROCESS, offsetof(struct sst_rec_process, start_ns),
         offsetof(struct sst_rec_process, start_ns)},
        {SST_REC_STRING, 0, 0},
        {SST_REC_ENV, 0, 0},
        {SST_REC_PY_FRAME, 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        patterned(rec, want[i].type);
        int has = sst_rec_time_range((const struct sst_rec_header *)rec, &t0, &t1);
        CHECK_EQ(has, want[i].start != 0);
        if (has && (t0 != 1000 + want[i].start || t1 != 1000 + want[i].end))
            SS_FAIL_AT("kind %u: time %" PRIu64 "..%" PRIu64, (unsigned)want[i].type, t0, t1);
    }
    /* a damaged record that ends before it starts still gives an ordered range */
    struct sst_rec_api a = {.h = {SST_REC_API, sizeof a}, .start_ns = 90, .end_ns = 40};
    CHECK(sst_rec_time_range(&a.h, &t0, &t1) == 1 && t0 == 40 && t1 == 90);
    /* a process that does not know its start has no time */
    struct sst_rec_process p = {.h = {SST_REC_PROCESS, sizeof p}};
    CHECK_EQ(sst_rec_time_range(&p.h, &t0, &t1), 0);
    struct sst_rec_header unknown = {SST_REC_TYPE_LIMIT, 8};
    CHECK_EQ(sst_rec_time_range(&unknown, &t0, &t1), 0);
}

/* The spec's table of record types (under "| type | name | size", rows "| 6 | `kernel` | 72 |
 * ...") against the kinds' table, both ways. */
static void spec_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    REQUIRE(f != NULL);
    int seen[SST_REC_TYPE_LIMIT] = {0}, in_table = 0;
    char line[1024], name[64];
    unsigned type, size;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "| type | name | size |", 22) == 0) in_table = 1;
        if (line[0] != '|') in_table = 0;
        if (!in_table || sscanf(line, "| %u | `%63[^`]` | %u", &type, name, &size) != 3) continue;
        const char *want = type < SST_REC_TYPE_LIMIT ? sst_rec_type_name((uint16_t)type) : NULL;
        if (!want || strcmp(want, name) != 0 || size != sst_rec_min_size((uint16_t)type))
            SS_FAIL_AT("%s: row %u `%s` %u does not match the table (%s, %zu)", path, type, name,
                       size, want ? want : "no such kind", sst_rec_min_size((uint16_t)type));
        else
            seen[type] = 1;
    }
    fclose(f);
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++)
        if (!seen[t]) SS_FAIL_AT("%s has no row for record kind %u", path, (unsigned)t);
}

int main(int argc, char **argv)
{
    names_and_sizes();
    times();
    if (argc > 1) spec_rows(argv[1]);
    return ss_test_result();
}
