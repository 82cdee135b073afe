/* doctor_data.h — the --data DIR checks of `stepscope doctor` (tools/doctor_data.c), and
 * a small file helper they share with doctor_checks.c. */
#ifndef DOCTOR_DATA_H
#define DOCTOR_DATA_H

#include <stddef.h>

#include "doctor.h"

/* Reads a small text file into buf without its trailing newline. 0, or -1. */
int dr_read_text(const char *path, char *buf, size_t cap);

void dr_check_data_fs(struct dr_ctx *c, struct ssa_env_verdict *r);
void dr_check_data_free(struct dr_ctx *c, struct ssa_env_verdict *r);
void dr_check_data_device(struct dr_ctx *c, struct ssa_env_verdict *r);
void dr_check_data_read(struct dr_ctx *c, struct ssa_env_verdict *r);

#endif
