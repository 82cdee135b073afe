/*
 * sst_names.h — names for the numbers in sst_format.h, as `stepscope dump` and the docs
 * print them. Every function returns static storage, or NULL for a value this version does
 * not know (callers print the number then). sst_rec_type_name is declared in sst_format.h.
 */
#ifndef SST_NAMES_H
#define SST_NAMES_H

#include <stdint.h>

#include "sst_format.h"

const char *sst_chunk_type_name(uint16_t type);     /* "records", "end" */
const char *sst_clock_name(uint8_t clock);          /* "monotonic", "monotonic_raw", ... */
const char *sst_copy_kind_name(uint8_t kind);       /* "h2d", "d2h", ... */
const char *sst_mem_kind_name(uint8_t kind);        /* "pageable", "pinned", "device", ... */
const char *sst_sync_kind_name(uint8_t kind);       /* "event", "stream", "context", ... */
const char *sst_api_domain_name(uint8_t domain);    /* "runtime", "driver" */
const char *sst_payload_type_name(uint8_t type);    /* "none", "u64", ... */
const char *sst_drop_source_name(uint8_t source);   /* "host_buffer", "cupti", ... */
const char *sst_capture_reason_name(uint8_t reason); /* "start", "window", ... */
const char *sst_step_phase_name(uint8_t phase);     /* "begin", "end", "mark" */
const char *sst_step_source_name(uint8_t source);   /* "api", "pyshim", ... */
const char *sst_memop_name(uint8_t op);             /* "alloc", "free" */
const char *sst_notice_level_name(uint8_t level);   /* "info", "warn", "error" */
const char *sst_notice_code_name(uint16_t code);    /* "cupti_unavailable", ... */
const char *sst_damage_kind_name(uint8_t kind);     /* "truncated", "corrupt", ... */
const char *sst_damage_kind_what(uint8_t kind);     /* "damaged regions skipped", ... */

/* The record type for a name from sst_rec_type_name ("kernel" -> SST_REC_KERNEL), or 0. */
uint16_t sst_rec_type_from_name(const char *name);

#endif
