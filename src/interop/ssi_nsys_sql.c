/* ssi_nsys_sql.c — small SQLite helpers shared by the nsys writer and reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interop/ssi_nsys.h"
#include "util/ss_error.h"

void ssi_nsys_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int ssi_nsys_sql_rc(sqlite3 *db)
{
    int code = sqlite3_errcode(db) & 0xff, e = sqlite3_system_errno(db);
    if (code == SQLITE_FULL) return SS_ENOSPC;
    if (code == SQLITE_NOMEM) return SS_ENOMEM;
    if (code != SQLITE_IOERR) return SS_EIO;
    if (!e) sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &e); /* a failed write's */
    return e ? ss_from_errno(e) : SS_EIO;
}

int ssi_nsys_sql_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    ssi_nsys_err(err, errlen, "SQLite: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return ssi_nsys_sql_rc(db); /* a full disk is the output's fault, not the trace's */
}

/* Runs a one-parameter-or-two query and reports whether it returned a row. */
static int has_row(sqlite3 *db, const char *sql, const char *a, const char *b)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return SS_EIO;
    }
    sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
    if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 1;
    return rc == SQLITE_DONE ? 0 : SS_EIO;
}

int ssi_nsys_table_exists(sqlite3 *db, const char *table)
{
    return has_row(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", table,
                   NULL);
}

int ssi_nsys_has_column(sqlite3 *db, const char *table, const char *column)
{
    return has_row(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", table, column);
}

/* ---- output files ---- */

int ssi_nsys_tmp_create(const char *out_path, char *tmp, size_t cap, char *err, size_t errlen)
{
    int n = snprintf(tmp, cap, "%s", out_path);
    if (n < 0 || (size_t)n >= cap) {
        ssi_nsys_err(err, errlen, "%s: path too long", out_path);
        return SS_EINVAL;
    }
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0) {
        int e = errno;
        ssi_nsys_err(err, errlen, "%s: cannot create: %s", out_path, strerror(e));
        return ss_from_errno(e);
    }
    return fd;
}

int ssi_nsys_tmp_commit(const char *tmp, const char *out_path, char *err, size_t errlen)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 || fsync(fd) != 0 ? ss_from_errno(errno) : 0;
    if (fd >= 0) close(fd);
    if (rc) {
        ssi_nsys_err(err, errlen, "%s: cannot write: %s", out_path, ss_strerror(rc));
        unlink(tmp);
    }
    return rc;
}
