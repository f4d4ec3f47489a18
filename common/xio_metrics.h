/* SPDX-License-Identifier: BSD-3-Clause
 * xio_metrics.h: counters described once. A program describes each of its
 * counters in one table of struct xio_metric (name, kind, help text, where
 * it lives in the program's counters structure); the stats JSON, the
 * Prometheus text (GET /metrics) and the sums all walk that table, so a
 * counter added to the table shows in all of them.
 *
 * Every counter is a uint64_t written by one thread and read by others with
 * relaxed atomic loads (XIO_LOAD / XIO_ADD below: the one convention for
 * single-writer counters and flags).
 */
#ifndef XIO_METRICS_H
#define XIO_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xio_buf.h"
#include "xio_json.h"

/* The single writer's add and store; any reader's load. Relaxed: a reader
 * sees each counter whole, in no particular order with the others. */
#define XIO_LOAD(x)     __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define XIO_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define XIO_ADD(x, n)   XIO_STORE(x, (x) + (n))

enum xio_metric_flags {
	XIO_METRIC_GAUGE = 1,   /* goes up and down (default: a counter) */
	XIO_METRIC_NO_JSON = 2, /* in /metrics only */
};

struct xio_metric {
	const char *name;       /* JSON key; Prometheus: PREFIX_name[_total] */
	const char *help;       /* # HELP, one line */
	size_t off;             /* where it lives: offset of the uint64_t (array) */
	unsigned n;             /* 0: one value; else an array of n */
	/* An array: the label value of element i (NULL: not shown), under the
	 * Prometheus label label_key; in the JSON an object of label: value
	 * under by_key, with the sum under name, or without by_key the object
	 * under name. */
	const char *(*label)(unsigned i);
	const char *label_key;
	const char *by_key;
	unsigned flags;
	/* Its name among the stats line's totals (an array: its sum); NULL:
	 * not on the line. */
	const char *line;
};

/* One value of m in the structure at base. */
static inline uint64_t xio_metric_get(const struct xio_metric *m, const void *base, unsigned i)
{
	const uint64_t *p = (const uint64_t *)((const char *)base + m->off);

	return __atomic_load_n(&p[i], __ATOMIC_RELAXED);
}

/* dst += src for every counter of the table (src read with relaxed loads,
 * it may be written meanwhile; dst is the caller's). */
void xio_metrics_add(const struct xio_metric *t, unsigned n, void *dst, const void *src);

/* The table's counters as members of the open JSON object. */
void xio_metrics_json(struct xio_json *j, const struct xio_metric *t, unsigned n,
		      const void *base);

/* The stats line's totals: " NAME VALUE" for every counter with a line
 * name, in table order, appended to b. */
void xio_metrics_line(struct xio_buf *b, const struct xio_metric *t, unsigned n,
		      const void *base);

/* The Prometheus text exposition of the table: per counter # HELP and
 * # TYPE, then one sample per set (a set: the structure and the labels
 * that tell it apart, 'direction="a_to_b"', or NULL) and per array element
 * (its label added). Names: prefix_name, counters with _total. */
struct xio_metric_set {
	const void *base;
	const char *labels;
};
void xio_metrics_prom(struct xio_buf *b, const char *prefix, const struct xio_metric *t,
		      unsigned n, const struct xio_metric_set *sets, unsigned nsets);

/* One sample family of its own (a gauge or counter outside a table). */
void xio_metrics_prom_one(struct xio_buf *b, const char *prefix, const char *name,
			  const char *help, bool gauge, const char *labels, double v);

#endif /* XIO_METRICS_H */
