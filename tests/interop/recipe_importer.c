/*
 * recipe_importer.c — docs/design.md's recipe "Add an importer", followed by a test: the file
 * of step 1 for a format of the test's own, a CSV of kernels (a header line
 * "kernel,start_ns,end_ns", then one kernel a line), as a new importer's src/interop/ssi_NAME.c
 * holds it: the import, the sniff and the row ssi_import_recipe. Step 2, the row's X in
 * SSI_IMPORTERS, is tests/interop/CMakeLists.txt's SSI_TEST_IMPORTERS(X)=X(recipe) on this
 * copy of the CLI (stepscope-recipe-importer, the CLI's sources as tests/fuzz builds them, with
 * src/interop/ssi_import.c built again with the row); recipe_importer.py checks what follows
 * from the row and step 3 (docs/interop.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interop/ssi.h"
#include "trace/sst_writer.h"
#include "util/ss_error.h"

#define RECIPE_HEADER "kernel,start_ns,end_ns\n"

static int sniff_recipe(const unsigned char *head, size_t n)
{
    size_t k = sizeof RECIPE_HEADER - 1;
    return memcmp(head, RECIPE_HEADER, n < k ? n : k) == 0 && n >= 7; /* "kernel," at least */
}

/* One line "NAME,START,END" -> a kernel record. 0, or SS_EINVAL with its line in err. */
static int import_line(struct sst_writer *w, char *line, unsigned lineno, char *err, size_t errlen)
{
    char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *end;
    if (!c2) return snprintf(err, errlen, "line %u: want NAME,START,END", lineno), SS_EINVAL;
    struct sst_rec_kernel *k = sst_writer_reserve(w, SST_REC_KERNEL, sizeof *k);
    if (!k) return sst_writer_error(w);
    k->name = sst_writer_intern(w, line, (size_t)(c1 - line));
    k->start_ns = strtoull(c1 + 1, &end, 10);
    k->end_ns = strtoull(c2 + 1, &end, 10);
    k->correlation = lineno;
    return 0;
}

static int import_lines(FILE *in, struct sst_writer *w, char *err, size_t errlen)
{
    char line[512];
    unsigned n = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        if (++n > 1 && line[0]) rc = import_line(w, line, n, err, errlen);
    }
    return rc;
}

static int import_recipe(const char *in_path, const char *out_path, char *err, size_t errlen)
{
    FILE *in = fopen(in_path, "r");
    int e = errno;
    if (!in) return snprintf(err, errlen, "cannot read: %s", strerror(e)), ss_from_errno(e);
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    struct sst_writer_opts o = {.features = SST_FEAT_CUPTI, .clock = SST_CLOCK_SYNTHETIC,
                                .pid = 1, .start_mono_ns = 1, .start_unix_ns = 1};
    struct sst_writer *w = NULL;
    int rc = fd < 0 ? ss_from_errno(errno) : sst_writer_open_fd(fd, &o, &w);
    if (!rc) rc = import_lines(in, w, err, errlen);
    if (w) {
        int closed = sst_writer_close(w, 0);
        rc = rc ? rc : closed;
    }
    fclose(in);
    if (rc) unlink(out_path);
    return rc;
}

const struct ssi_importer ssi_import_recipe = {
    "recipe",
    sniff_recipe,
    import_recipe,
    ".recipe.csv .csv",
    "the recipe test's CSV of kernels: a header line kernel,start_ns,end_ns,\n"
    "then one kernel a line.",
    "recipe kernel CSV",
    0,
};

/* The CLI, main renamed by tests/fuzz's build of its sources. */
int stepscope_cli_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return stepscope_cli_main(argc, argv);
}
