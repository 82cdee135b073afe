/* ss_error.c — the sentences and names for the codes in ss_error.h. */
#include "ss_error.h"

#include <errno.h>

const char *ss_strerror(int err)
{
    switch (err) {
#define SS_X_STR(name, num, text)                                                              \
    case num: return text;
        SS_ERRORS(SS_X_STR)
#undef SS_X_STR
    case 0: return "success";
    default: return "unknown error";
    }
}

const char *ss_err_name(int err)
{
    switch (err) {
#define SS_X_NAME(name, num, text)                                                             \
    case num: return #name;
        SS_ERRORS(SS_X_NAME)
#undef SS_X_NAME
    case 0: return "SS_OK";
    default: return "SS_EUNKNOWN";
    }
}

int ss_from_errno(int errnum)
{
    switch (errnum) {
    case ENOMEM: return SS_ENOMEM;
    case ENOSPC:
    case EDQUOT: return SS_ENOSPC;
    case EFBIG: return SS_EFBIG; /* RLIMIT_FSIZE (SIGXFSZ ignored or caught), not a full disk */
    case EMFILE:
    case ENFILE: return SS_EMFILE;
    case ENAMETOOLONG: return SS_ENAMETOOLONG;
    case EACCES:
    case EPERM:
    case EROFS: return SS_EACCES;
    case ENOENT:
    case ENOTDIR: return SS_ENOENT;
    case EINVAL: return SS_EINVAL;
    case EEXIST: return SS_EEXIST;
    case ELOOP: return SS_ELOOP;
    case EISDIR: return SS_EISDIR;
    default: return SS_EIO;
    }
}
