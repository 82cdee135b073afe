/* ssi_export.c — the table of export formats (ssi.h: SSI_EXPORTERS; each row lives with its
 * writer). */
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
