/*
 * ssa_hostwork.c — what the host does on a line the catch-all finding (low_utilisation) names:
 * the ONE table of kinds of host work, each with the words the report says and the fix that
 * fits it (issue #40: "move it to DataLoader workers" was said of a model's forward pass).
 *
 * A hotspot is its user line and the library frame it was in (ssa_hotspot.lib, the innermost
 * library frame called from that line). The first row whose path matches the library frame's
 * file (else the line's own file) and whose function part, when it has one, matches its
 * function names the kind; a user line in no library is the program's own Python, or data
 * preparation when its function is a Dataset's or a collate function.
 */
#include <string.h>

#include "ssa.h"
#include "ssa_host.h"

#define SSA_HOST_WORK_ROW(id, words, fix) {words, fix},
static const struct ssa_host_work k_work[] = {SSA_HOST_WORKS(SSA_HOST_WORK_ROW)};
#undef SSA_HOST_WORK_ROW

/* path: a part of the file's path; fn: a part of the function's name ("" any). */
static const struct work_pattern {
    const char *path, *fn;
    int kind;
} k_patterns[] = {
    {"/torch/_dynamo/", "", SSA_WORK_COMPILE},
    {"/torch/_inductor/", "", SSA_WORK_COMPILE},
    {"/torch/fx/", "", SSA_WORK_COMPILE},
    {"/torch/_functorch/", "", SSA_WORK_COMPILE},
    {"/torch/optim/", "", SSA_WORK_OPTIMIZER},
    {"/torch/cuda/memory.py", "", SSA_WORK_ALLOCATOR},
    {"/torch/utils/data/", "", SSA_WORK_DATA},
    {"/torchvision/", "", SSA_WORK_DATA},
    {"/PIL/", "", SSA_WORK_DATA},
    {"/tokenizers/", "", SSA_WORK_DATA},
    {"/transformers/tokenization", "", SSA_WORK_DATA},
    {"/datasets/", "", SSA_WORK_DATA},
    {"/logging/", "", SSA_WORK_LOGGING},
    {"/tqdm/", "", SSA_WORK_LOGGING},
    {"/wandb/", "", SSA_WORK_LOGGING},
    {"/tensorboard", "", SSA_WORK_LOGGING},
    {"/loggers/", "", SSA_WORK_LOGGING},
    {"/torch/nn/", "", SSA_WORK_MODEL},
    {"/torch/autograd/", "", SSA_WORK_MODEL},
    {"/torch/_tensor.py", "", SSA_WORK_MODEL},
    {"/torch/_ops.py", "", SSA_WORK_MODEL},
    {"/torch/functional.py", "", SSA_WORK_MODEL},
    {"/transformers/models/", "", SSA_WORK_MODEL},
    {"/timm/", "", SSA_WORK_MODEL},
    {"/torch/", "", SSA_WORK_TORCH},
};

/* User functions that prepare data wherever they are called from. */
static const char *const k_data_functions[] = {"__getitem__", "collate", "__next__", "tokeni"};

static int matches(const struct ssa_pyframe *f, const struct work_pattern *p)
{
    return f->file && strstr(f->file, p->path) && (!*p->fn || (f->function &&
                                                               strstr(f->function, p->fn)));
}

static int user_kind(const struct ssa_pyframe *f)
{
    for (size_t i = 0; f && f->function && i < sizeof k_data_functions / sizeof *k_data_functions; i++)
        if (strstr(f->function, k_data_functions[i])) return SSA_WORK_DATA;
    return SSA_WORK_USER;
}

int ssa_host_work_kind(const struct ssa_hotspot *h, int compiled)
{
    const struct ssa_pyframe *f = h->lib ? h->lib : h->frame;
    if (!f) return SSA_WORK_UNKNOWN;
    for (size_t i = 0; i < sizeof k_patterns / sizeof *k_patterns; i++) {
        if (!matches(f, &k_patterns[i])) continue;
        /* a compiled program inside the op dispatcher is running what the compiler left to
         * Python: guards and recompiles more likely than eager dispatch */
        if (k_patterns[i].kind == SSA_WORK_MODEL && compiled && strstr(f->file, "/torch/_ops.py"))
            return SSA_WORK_COMPILE;
        return k_patterns[i].kind;
    }
    return h->lib ? SSA_WORK_LIBRARY : user_kind(h->frame);
}

const struct ssa_host_work *ssa_host_work(int kind)
{
    return kind >= 0 && kind < SSA_WORK_COUNT ? &k_work[kind] : &k_work[SSA_WORK_UNKNOWN];
}
