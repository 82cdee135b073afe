/* test_rec_printers — `dump` has a printer for every record kind of the kinds' table
 * (SST_REC_TYPES): each kind from 1 to the last prints as its name and its fields, in text and
 * in JSON, never as "unknown" with a type_id. A hole in the numbering fails here; a kind
 * without its p_<layout> printer does not build (tools/inspect/rec_fields.c). */
#include <stdlib.h>

#include "rec_fields.h"
#include "ss_test.h"
#include "trace/sst_names.h"

/* What rec_print writes for a zeroed record of kind t (its minimum size), text or JSON. */
static char *printed(uint16_t t, int json)
{
    uint64_t rec[SST_REC_MAX / 8] = {0};
    struct sst_rec_header h = {t, (uint16_t)sst_rec_min_size(t)};
    memcpy(rec, &h, sizeof h);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f != NULL);
    struct json_out j;
    json_init(&j, f, 0);
    struct rec_sink s = {f, json ? &j : NULL, NULL};
    rec_print(&s, (const struct sst_rec_header *)rec);
    REQUIRE(fclose(f) == 0);
    return buf;
}

static void every_kind(void)
{
    for (uint16_t t = 1; t < SST_REC_TYPE_LIMIT; t++) {
        const char *name = sst_rec_type_name(t);
        char want[64];
        snprintf(want, sizeof want, "{\"type\":\"%s\",", name ? name : "?");
        char *json = printed(t, 1), *text = printed(t, 0);
        if (!name || strstr(text, "type_id") || strncmp(text, name, strlen(name)) != 0 ||
            strncmp(json, want, strlen(want)) != 0 || strstr(json, "type_id"))
            SS_FAIL_AT("record kind %u has no printer: %s%s", (unsigned)t, text, json);
        free(json);
        free(text);
    }
    /* a kind past the table: printed as unknown, with its number (the reader skips those) */
    char *text = printed(SST_REC_TYPE_LIMIT, 0);
    CHECK_CONTAINS(text, "unknown");
    CHECK_CONTAINS(text, "type_id=");
    free(text);
}

int main(void)
{
    every_kind();
    return ss_test_result();
}
