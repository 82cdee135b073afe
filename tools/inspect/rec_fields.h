/*
 * rec_fields.h — one record as readable text or as a JSON object.
 *
 * Every record type is described once, as a list of named fields; the same description
 * feeds `dump` (text: "kernel      t=... dur=12.3us dev=0 ..."), `dump --json` (one JSON
 * object per line) and later verbs that show records. String ids are resolved through the
 * reader and always escaped; enums are shown by name.
 */
#ifndef REC_FIELDS_H
#define REC_FIELDS_H

#include <stdint.h>
#include <stdio.h>

#include "json_out.h"
#include "trace/sst_reader.h"

struct rec_sink {
    FILE *f;                     /* text output (json == NULL) */
    struct json_out *json;       /* JSON output, or NULL for text */
    const struct sst_reader *rd; /* resolves string ids */
};

/* Writes one record: a text line, or one JSON object followed by a newline. */
void rec_print(struct rec_sink *s, const struct sst_rec_header *h);

/* A string id as text: "escaped text", - for SST_NO_STRING, <undefined #N> when its STRING
 * record never arrived (e.g. it sat in a damaged chunk). */
void rec_text_string(FILE *f, const struct sst_reader *rd, uint32_t id);

/* A string id as a JSON string, or null when it has no text. */
void rec_json_string(struct json_out *j, const struct sst_reader *rd, uint32_t id);

#endif
