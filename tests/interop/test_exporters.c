/* test_exporters — every row of the export table (ssi.h: SSI_EXPORTERS) is whole and works:
 * a unique name that ssi_exporter_find finds, a suffix, help, one writer; over a complete
 * trace it writes a non-empty output with no warning. A new format is tested here without
 * touching this file (its content is for its own tests).
 *   test_exporters TRACE WORKDIR */
#include <sys/stat.h>

#include "analysis/ssa.h"
#include "interop/ssi.h"
#include "ss_test.h"
#include "trace/sst_reader.h"

static void check_row(const struct ssi_exporter *e, size_t i)
{
    CHECK(e->name && e->name[0] && ssi_exporter_find(e->name) == e);
    CHECK(e->suffix && e->suffix[0] == '.');
    CHECK(e->help && e->help[0] && e->help[strlen(e->help) - 1] != '\n');
    CHECK((e->to_stream != NULL) != (e->to_path != NULL));
    for (size_t k = 0; k < i; k++)
        if (strcmp(ssi_exporters[k]->suffix, e->suffix) == 0)
            SS_FAIL_AT("%s and %s share the suffix %s", ssi_exporters[k]->name, e->name, e->suffix);
}

/* Exports r with e to out; returns its size, -1 after a failure. */
static long export_one(const struct ssi_exporter *e, struct sst_reader *r, const char *trace,
                       const char *out)
{
    struct ssa_result *res = NULL;
    struct ssa_opts o = {0};
    if (e->needs_analysis) REQUIRE(ssa_analyze_reader(r, trace, &o, 0, &res) == 0);
    struct ssi_export_in in = {r, res, trace, 0, NULL, NULL, NULL};
    char msg[512] = "";
    FILE *f = fopen(out, "w");
    REQUIRE(f != NULL);
    int rc = e->to_stream ? e->to_stream(&in, f, msg, sizeof msg) : 0;
    REQUIRE(fclose(f) == 0);
    if (e->to_path) rc = e->to_path(&in, out, msg, sizeof msg);
    ssa_result_free(res);
    if (rc != 0 || msg[0]) {
        SS_FAIL_AT("%s: rc %d: %s", e->name, rc, msg);
        return -1;
    }
    struct stat st;
    return stat(out, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 3);
    struct sst_reader *r;
    REQUIRE(sst_reader_open_ex(argv[1], NULL, SST_READ_MAP, &r) == 0);
    size_t n = 0;
    for (; ssi_exporters[n]; n++) {
        const struct ssi_exporter *e = ssi_exporters[n];
        check_row(e, n);
        char out[4096];
        snprintf(out, sizeof out, "%s/out%s", argv[2], e->suffix);
        long size = export_one(e, r, argv[1], out);
        if (size <= 0) SS_FAIL_AT("%s wrote %ld bytes", e->name, size);
        printf("%-12s %8ld bytes\n", e->name, size);
    }
    CHECK(n >= 3);
    CHECK(ssi_exporter_find("no-such-format") == NULL);
    CHECK(ssi_exporter_find("perfetto") == ssi_exporters[0]); /* the default */
    sst_reader_close(r);
    return ss_test_result();
}
