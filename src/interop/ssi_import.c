/* ssi_import.c — the table of importers (ssi.h: SSI_IMPORTERS; each row lives with its
 * importer) and what is read off it: which importer a file needs, the names of the formats in
 * messages, the suffixes an output drops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interop/ssi.h"
#include "util/ss_error.h"
#include "util/ss_out.h"

#define SSI_X_ROW(name) &ssi_import_##name,
const struct ssi_importer *const ssi_importers[] = {SSI_IMPORTERS(SSI_X_ROW) NULL};
#undef SSI_X_ROW

const struct ssi_importer *ssi_importer_of(const void *head, size_t n)
{
    for (const struct ssi_importer *const *i = ssi_importers; *i; i++)
        if ((*i)->sniff(head, n)) return *i;
    return NULL;
}

/* Appends text to buf (cut to fit). */
static void add(char *buf, size_t cap, size_t *len, const char *text)
{
    int n = snprintf(buf + *len, cap - *len, "%s", text);
    if (n > 0) *len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
}

const char *ssi_formats_read(char *buf, size_t cap, int with_native)
{
    size_t len = 0, n = 0, total = (size_t)with_native;
    for (const struct ssi_importer *const *i = ssi_importers; *i; i++) total++;
    buf[0] = '\0';
    if (with_native) add(buf, cap, &len, "stepscope trace"), n++;
    for (const struct ssi_importer *const *i = ssi_importers; *i; i++, n++) {
        add(buf, cap, &len, n == 0 ? "" : n + 1 == total ? " or " : ", ");
        add(buf, cap, &len, (*i)->what);
    }
    return buf;
}

/* n when path ends in suffix (and is more than it), else 0. */
static size_t ends_in(const char *path, size_t len, const char *suffix, size_t n)
{
    return len > n && memcmp(path + len - n, suffix, n) == 0 ? n : 0;
}

size_t ssi_input_suffix_len(const char *path)
{
    size_t len = strlen(path), best = ends_in(path, len, ".sstrace", 8);
    for (const struct ssi_importer *const *i = ssi_importers; *i; i++)
        for (const char *s = (*i)->suffixes; *s;) {
            size_t n = strcspn(s, " "), got = ends_in(path, len, s, n);
            if (got > best) best = got;
            s += n + (s[n] == ' ');
        }
    return best;
}

/* Why the file at path, of format fmt (ssi_detect), is no capture an importer reads: its
 * line in err; the error. */
static int not_importable(const char *path, int fmt, char *err, size_t errlen)
{
    struct stat st;
    char formats[256];
    if (fmt < 0) {
        snprintf(err, errlen, "%s", ss_strerror(fmt));
        return fmt;
    }
    if (fmt == SSI_FMT_SSTRACE)
        snprintf(err, errlen, "is already a stepscope trace");
    else if (fmt == SSI_FMT_OWN_JSON)
        snprintf(err, errlen, "%s", SSI_OWN_JSON_REFUSAL);
    else if (stat(path, &st) == 0 && st.st_size == 0)
        snprintf(err, errlen, "%s", ss_strerror(SS_EEMPTY));
    else
        snprintf(err, errlen, "not a %s", ssi_formats_read(formats, sizeof formats, 0));
    return SS_EINVAL;
}

int ssi_import_check(const char *path, char *err, size_t errlen)
{
    int fmt;
    if (ssi_importer_for(path, &fmt) || fmt == SSI_FMT_COMPRESSED) return 0;
    return not_importable(path, fmt, err, errlen);
}

/* A compressed capture: decompressed into a temporary file, imported from there. */
static int import_compressed(const char *in_path, const char *out_path, char *err, size_t errlen)
{
    unsigned char head[64];
    int n = ssi_head(in_path, head, sizeof head), fmt;
    int comp = n > 0 ? ssi_compression_of(head, (size_t)n) : SSI_COMP_NONE;
    char *raw = NULL, formats[256];
    int rc = ssi_decompress_to_temp(in_path, comp, &raw, err, errlen);
    if (rc) return rc;
    const struct ssi_importer *imp = ssi_importer_for(raw, &fmt);
    if (imp) {
        rc = imp->import(raw, out_path, err, errlen);
    } else if (fmt == SSI_FMT_OWN_JSON || fmt == SSI_FMT_SSTRACE) {
        rc = not_importable(raw, fmt, err, errlen);
    } else {
        snprintf(err, errlen, "is %s-compressed, and what it holds is no %s",
                 ssi_compression_name(comp), ssi_formats_read(formats, sizeof formats, 0));
        rc = SS_ENOTTRACE;
    }
    unlink(raw), ss_tmp_untrack_path(raw), free(raw);
    return rc;
}

int ssi_import(const char *in_path, const char *out_path, char *err, size_t errlen)
{
    char scratch[8];
    if (!err || !errlen) err = scratch, errlen = sizeof scratch;
    err[0] = '\0';
    int fmt;
    const struct ssi_importer *imp = ssi_importer_for(in_path, &fmt);
    if (imp) return imp->import(in_path, out_path, err, errlen);
    if (fmt == SSI_FMT_COMPRESSED) return import_compressed(in_path, out_path, err, errlen);
    return not_importable(in_path, fmt, err, errlen);
}
