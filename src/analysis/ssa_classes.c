/*
 * ssa_classes.c — the lookups of SSA_CLASSES (ssa.h): the category each kernel class, copy
 * kind and API class puts its time in, and the kernel classes' names. The rows are the only
 * place that says it; the sweep (ssa_attr.c) and pass 1 (ssa_scan.c) ask here.
 */
#include "ssa.h"
#include "trace/sst_format.h"

/* The copy rows are in enum sst_copy_kind's order, one per kind (the per-step copy counts
 * are indexed by the kind): a row out of place or missing does not build. */
#define SSA_X_COPY_AT(id, cat) SSA_COPY_AT_##id,
enum { SSA_CLASSES(SSA_X_NONE3, SSA_X_COPY_AT, SSA_X_NONE2) };
#undef SSA_X_COPY_AT
#define SSA_X_COPY_CHECK(id, cat)                                                                  \
    _Static_assert((int)SSA_COPY_AT_##id == (int)SST_COPY_##id,                                    \
                   "SSA_CLASSES' copy rows in sst order");
SSA_CLASSES(SSA_X_NONE3, SSA_X_COPY_CHECK, SSA_X_NONE2)
#undef SSA_X_COPY_CHECK
_Static_assert((int)SSA_COPY_KINDS == (int)SST_COPY_KIND_COUNT,
               "a row in SSA_CLASSES for each copy kind");

#define SSA_X_KC_NAME(id, name, cat) name,
#define SSA_X_KC_CAT(id, name, cat) SSA_CAT_##cat,
#define SSA_X_CAT(id, cat) SSA_CAT_##cat,
static const char *const kclass_names[SSA_KC_COUNT] = {
    SSA_CLASSES(SSA_X_KC_NAME, SSA_X_NONE2, SSA_X_NONE2)};
static const unsigned char kclass_cats[SSA_KC_COUNT] = {
    SSA_CLASSES(SSA_X_KC_CAT, SSA_X_NONE2, SSA_X_NONE2)};
static const unsigned char copy_cats[SSA_COPY_KINDS] = {
    SSA_CLASSES(SSA_X_NONE3, SSA_X_CAT, SSA_X_NONE2)};
static const unsigned char api_cats[SSA_API_COUNT] = {
    SSA_CLASSES(SSA_X_NONE3, SSA_X_NONE2, SSA_X_CAT)};
#undef SSA_X_KC_NAME
#undef SSA_X_KC_CAT
#undef SSA_X_CAT

const char *ssa_kclass_name(int kc)
{
    return kc >= 0 && kc < SSA_KC_COUNT ? kclass_names[kc] : NULL;
}

int ssa_kclass_cat(int kc)
{
    return kc >= 0 && kc < SSA_KC_COUNT ? kclass_cats[kc] : SSA_CAT_COMPUTE_OTHER;
}

int ssa_copy_cat(int kind)
{
    return kind >= 0 && kind < SSA_COPY_KINDS ? copy_cats[kind] : SSA_CAT_COPY_OTHER;
}

int ssa_api_cat(int cls)
{
    return cls >= 0 && cls < SSA_API_COUNT ? api_cats[cls] : SSA_CAT_HOST;
}
