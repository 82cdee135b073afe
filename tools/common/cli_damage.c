/*
 * cli_damage.c — the one line every verb says about an input that is not whole (issue #41).
 *
 * The reader counts what is wrong with a trace in one model (sst_reader_damage: truncated,
 * corrupt, lost, dropped, duplicate, order, inconsistent; an import's damage comes through its
 * DAMAGE records), and every verb — report, diff, info, dump, export, import — hands it here
 * once per input: a damaged input is said and fails the verb unless --accept-damage, which
 * still says it, once, as a warning. So no verb can pass a fragment's numbers on silently.
 */
#include "cmd.h"

int cli_damage_said(const char *verb, const char *path, const struct sst_damage *d, int accept,
                    const char *refused)
{
    if (!d->any) return CLI_EXIT_OK;
    char what[1024];
    sst_damage_describe(d, what, sizeof what); /* the reader's words: printable ASCII */
    const char *label = d->damaged ? "damaged" : "incomplete";
    if (accept)
        cli_error(verb, path, "warning: %s input (%s): accepted (--accept-damage)", label, what);
    else
        cli_error(verb, path, "%s input (%s): %s", label, what, refused);
    return accept ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
