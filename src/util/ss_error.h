/*
 * ss_error.h — stepscope's error codes: one table, negative numbers, a strerror.
 *
 * Every function in the project that can fail returns 0 (or a non-negative count) on
 * success and one of these negative codes on failure, libuv style. The table is the only
 * place codes are defined; ss_strerror() gives the sentence for each.
 */
#ifndef SS_ERROR_H
#define SS_ERROR_H

#define SS_ERRORS(X)                                                                           \
    X(SS_EIO, -1, "input/output error")                                                        \
    X(SS_ENOMEM, -2, "out of memory")                                                          \
    X(SS_EINVAL, -3, "invalid argument")                                                       \
    X(SS_ENOTTRACE, -4, "not a stepscope trace (bad magic)")                                   \
    X(SS_EVERSION, -5, "trace needs a newer stepscope to read it")                             \
    X(SS_ETRUNC, -6, "trace is truncated")                                                     \
    X(SS_ECORRUPT, -7, "trace is corrupted")                                                   \
    X(SS_EBADREC, -8, "malformed record")                                                      \
    X(SS_EEMPTY, -9, "file is empty")                                                          \
    X(SS_ECOMPRESS, -10, "compression failed or not available")                                \
    X(SS_ETOOBIG, -11, "size limit exceeded")                                                  \
    X(SS_ENOSPC, -12, "no space left on device")                                               \
    X(SS_EACCES, -13, "permission denied")                                                     \
    X(SS_ENOENT, -14, "no such file or directory")                                             \
    X(SS_EUSAGE, -15, "invalid usage")                                                         \
    X(SS_EBYTEORDER, -16, "trace written in an unsupported byte order")                        \
    X(SS_EEXIST, -17, "file already exists")                                                   \
    X(SS_ELOOP, -18, "too many levels of symbolic links")                                      \
    X(SS_EISDIR, -19, "is a directory")                                                        \
    X(SS_ENOTREG, -20, "not a regular file")                                                   \
    X(SS_ESAME, -21, "the output is the same file as an input")                                \
    X(SS_ENOTSUP, -22, "not available here")                                                   \
    X(SS_EMFILE, -23, "too many open files")                                                   \
    X(SS_ENAMETOOLONG, -24, "file name too long")                                              \
    X(SS_EFBIG, -25, "file too large: over the size limit of ulimit -f")

enum ss_error {
#define SS_X_ERR(name, num, text) name = num,
    SS_ERRORS(SS_X_ERR)
#undef SS_X_ERR
};

/* The sentence for an error code; never NULL, static storage. */
const char *ss_strerror(int err);

/* The symbolic name ("SS_ETRUNC") of an error code; never NULL, static storage. */
const char *ss_err_name(int err);

/* Maps an errno value to the closest ss_error code. */
int ss_from_errno(int errnum);

#endif
