/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stats.h: what xio-pipeline reports about a run, whatever the driver:
 * the periodic one-line stats (--stats-interval), the summary line at exit
 * and the stats JSON's directions (--stats-json; the rest of it comes from
 * xio_run.c and the driver). Plain C.
 */
#ifndef XIO_STATS_H
#define XIO_STATS_H

#include <stdio.h>

#include "xio_counters.h"
#include "xio_json.h"

struct xio_direction;

/* One line for the interval of dt seconds between prev and now, t seconds
 * into the run, with tail (the driver's own figures, may be NULL) at the
 * end. It starts "xio: t=" and has "| out N Mpps": scripts parse both. */
void xio_stats_line(FILE *out, double t, const struct xio_counters *now,
		    const struct xio_counters *prev, double dt, const char *tail);

/* The totals of a finished run, one line. */
void xio_stats_summary(FILE *out, const struct xio_counters *c, double elapsed_s);

/* "directions": {"a_to_b": {its ends, its counters}, "b_to_a": {...}}: the
 * ends are "rx_port"/"tx_port" (DPDK) or "iface"/"egress" (XDP). */
void xio_stats_directions_json(struct xio_json *j, const struct xio_direction *d, unsigned n);

#endif /* XIO_STATS_H */
