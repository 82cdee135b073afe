/*
 * record_report.c — the end of `stepscope record`: which trace is the started program's,
 * and its text report on stderr (the report writers are in tools/report/).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/ssa.h"
#include "record_job.h"
#include "report.h"
#include "text_esc.h"
#include "trace/sst_reader.h"
#include "util/ss_error.h"

static int is_trace_name(const struct dirent *de)
{
    size_t len = strlen(de->d_name);
    return de->d_name[0] != '.' && len > 8 && strcmp(de->d_name + len - 8, ".sstrace") == 0;
}

/* ---- the end of `stepscope record` ---- */

#define PID_SCAN_RECORDS 4096 /* the PROCESS record is among the first records */

/* The pid of the trace's PROCESS record, 0 when it has none near its start. */
static uint32_t trace_pid(const char *path)
{
    struct sst_reader *r;
    if (sst_reader_open(path, NULL, &r) < 0) return 0;
    const struct sst_rec_header *h;
    uint32_t pid = 0;
    for (int n = 0; n < PID_SCAN_RECORDS && sst_reader_next(r, &h) == 1; n++)
        if (h->type == SST_REC_PROCESS) {
            pid = ((const struct sst_rec_process *)(const void *)h)->pid;
            break;
        }
    sst_reader_close(r);
    return pid;
}

/* The trace of the started process: its pid, else the largest file of this run. 0 or -1. */
static int pick_main_trace(const char *dir, pid_t child, const struct trace_names *before,
                           char *out, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, is_trace_name, alphasort);
    if (n < 0) return -1;
    off_t best_size = -1;
    int found_pid = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        struct stat st;
        int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        int ours = record_trace_is_new(before, names[i]->d_name);
        free(names[i]);
        if (!ours || found_pid || len < 0 || (size_t)len >= sizeof path || stat(path, &st) != 0)
            continue;
        if (child > 0 && trace_pid(path) == (uint32_t)child) found_pid = 1;
        if (found_pid || st.st_size > best_size) {
            best_size = st.st_size;
            snprintf(out, cap, "%s", path);
        }
    }
    free(names);
    return best_size >= 0 ? 0 : -1;
}

void report_after_record(FILE *f, const char *dir, pid_t child, const struct trace_names *before)
{
    char path[PATH_MAX];
    if (pick_main_trace(dir, child, before, path, sizeof path) != 0) {
        fprintf(f, "stepscope: no report: no trace was written\n");
        return;
    }
    struct report_opts o;
    memset(&o, 0, sizeof o);
    o.width = report_text_cols(fileno(f));
    struct ssa_result *r;
    int rc = ssa_analyze_file_ex(path, &o.ssa, report_ssa_flags(&o), &r);
    if (rc) {
        char shown[PATH_MAX];
        text_escape_to(shown, sizeof shown, path);
        fprintf(f, "stepscope: no report: %s: %s\n", shown, ss_strerror(rc));
        return;
    }
    fputc('\n', f);
    report_text_one(f, r, &o);
    ssa_result_free(r);
    fflush(f);
}
