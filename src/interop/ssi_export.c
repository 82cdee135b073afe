/* ssi_export.c — the table of export formats (ssi.h: SSI_EXPORTERS; each row lives with its
 * writer). */
#include <math.h>
#include <string.h>

#include "interop/ssi.h"

#define SSI_X_ROW(name) &ssi_export_##name,
const struct ssi_exporter *const ssi_exporters[] = {SSI_EXPORTERS(SSI_X_ROW) NULL};
#undef SSI_X_ROW

const struct ssi_exporter *ssi_exporter_find(const char *name)
{
    for (const struct ssi_exporter *const *e = ssi_exporters; *e; e++)
        if (strcmp((*e)->name, name) == 0) return *e;
    return NULL;
}

/* Computed as a double from t - t0 (small: no precision lost), rounded once. */
int64_t ssi_merge_rel_ns(const struct ssi_merge *m, uint64_t t)
{
    double since = (double)(int64_t)(t - m->at_ns);
    double g = (double)(int64_t)(t - m->t0) + m->offset_ns + since * m->drift_ppm / 1e6;
    return (int64_t)llround(g);
}
