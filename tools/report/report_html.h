/*
 * report_html.h — what the HTML writer's two files share (report_html.c, report_html_data.c):
 * the format's own, so it stays out of report.h, which every writer reads.
 */
#ifndef REPORT_HTML_H
#define REPORT_HTML_H

#include <stdio.h>

#include "report_view.h"

/* The data of a process section's charts: a JSON document in a <script
 * type="application/json" class="ss-data"> element, read by the page's script; nothing when the
 * view has neither a run chart nor a timeline. */
void report_html_data(FILE *f, const struct report_view *v);

#endif
