/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stats.h: what xio-pipeline reports about a run, whatever the driver:
 * the periodic one-line stats (--stats-interval), the summary line at exit
 * and the stats JSON (--stats-json). Plain C.
 */
#ifndef XIO_STATS_H
#define XIO_STATS_H

#include <stdio.h>

#include "xio_counters.h"

/* One line for the interval of dt seconds between prev and now, t seconds
 * into the run, with tail (the driver's own figures, may be NULL) at the
 * end. It starts "xio: t=" and has "| out N Mpps": scripts parse both. */
void xio_stats_line(FILE *out, double t, const struct xio_counters *now,
		    const struct xio_counters *prev, double dt, const char *tail);

/* The totals of a finished run, one line. */
void xio_stats_summary(FILE *out, const struct xio_counters *c, double elapsed_s);

/* Writes the stats JSON to path; extra: more members, "  \"key\": value"
 * lines joined by ",\n" (may be NULL). 0, or -1 after saying why. */
int xio_stats_save(const char *path, const struct xio_counters *c, double elapsed_s,
		   const char *extra);

#endif /* XIO_STATS_H */
