/* SPDX-License-Identifier: BSD-3-Clause
 * xio_counters.c: the table of XIO_COUNTERS and what is made of it
 * (xio_counters.h).
 */
#include <stddef.h>

#include "xio_counters.h"
#include "xio_wire.h"

const char *xio_reason_label(unsigned r)
{
	return r < XIO_R_COUNT ? xio_reason_name((enum xio_reason)r) : NULL;
}

#define XIO_C(nm, ln, hlp) \
	{ .name = #nm, .help = hlp, .off = offsetof(struct xio_counters, nm), .line = ln },
#define XIO_A(nm, count, lbl, key, by, flg, hlp)                                                \
	{ .name = #nm, .help = hlp, .off = offsetof(struct xio_counters, nm), .n = count,         \
	  .label = lbl, .label_key = key, .by_key = by, .flags = flg },
static const struct xio_metric xio_counter_table[] = { XIO_COUNTERS(XIO_C, XIO_A) };
#define XIO_NCOUNTERS (sizeof(xio_counter_table) / sizeof(xio_counter_table[0]))

const struct xio_metric *xio_counters_table(unsigned *n)
{
	*n = XIO_NCOUNTERS;
	return xio_counter_table;
}

const char *xio_direction_name(unsigned dir)
{
	return dir == 0 ? "a_to_b" : dir == 1 ? "b_to_a" : "unknown";
}

void xio_counters_add(struct xio_counters *dst, const struct xio_counters *src)
{
	xio_metrics_add(xio_counter_table, XIO_NCOUNTERS, dst, src);
}

void xio_counters_json(struct xio_json *j, const struct xio_counters *c)
{
	xio_metrics_json(j, xio_counter_table, XIO_NCOUNTERS, c);
}

void xio_counters_line(struct xio_buf *b, const struct xio_counters *c)
{
	xio_metrics_line(b, xio_counter_table, XIO_NCOUNTERS, c);
}

void xio_counters_prom(struct xio_buf *b, const struct xio_metric_set *sets, unsigned n)
{
	xio_metrics_prom(b, "xio_pipeline", xio_counter_table, XIO_NCOUNTERS, sets, n);
}
