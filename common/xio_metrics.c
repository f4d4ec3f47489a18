/* SPDX-License-Identifier: BSD-3-Clause
 * xio_metrics.c: the counter tables' sums, JSON and Prometheus text
 * (xio_metrics.h).
 */
#include <inttypes.h>
#include <stdbool.h>

#include "xio_metrics.h"

void xio_metrics_add(const struct xio_metric *t, unsigned n, void *dst, const void *src)
{
	for (unsigned k = 0; k < n; k++) {
		uint64_t *d = (uint64_t *)((char *)dst + t[k].off);

		for (unsigned i = 0; i < (t[k].n ? t[k].n : 1); i++)
			d[i] += xio_metric_get(&t[k], src, i);
	}
}

void xio_metrics_json(struct xio_json *j, const struct xio_metric *t, unsigned n,
		      const void *base)
{
	for (unsigned k = 0; k < n; k++) {
		const struct xio_metric *m = &t[k];
		uint64_t sum = 0;

		if (m->flags & XIO_METRIC_NO_JSON)
			continue;
		if (m->n == 0) {
			xio_json_u64(j, m->name, xio_metric_get(m, base, 0));
			continue;
		}
		if (m->by_key) {
			for (unsigned i = 0; i < m->n; i++)
				if (m->label(i))
					sum += xio_metric_get(m, base, i);
			xio_json_u64(j, m->name, sum);
		}
		xio_json_begin_object(j, m->by_key ? m->by_key : m->name);
		for (unsigned i = 0; i < m->n; i++)
			if (m->label(i))
				xio_json_u64(j, m->label(i), xio_metric_get(m, base, i));
		xio_json_end_object(j);
	}
}

void xio_metrics_line(struct xio_buf *b, const struct xio_metric *t, unsigned n,
		      const void *base)
{
	for (unsigned k = 0; k < n; k++) {
		uint64_t v = 0;

		if (!t[k].line)
			continue;
		for (unsigned i = 0; i < (t[k].n ? t[k].n : 1); i++)
			if (t[k].n == 0 || t[k].label(i))
				v += xio_metric_get(&t[k], base, i);
		xio_buf_printf(b, " %s %" PRIu64, t[k].line, v);
	}
}

static void xio_prom_head(struct xio_buf *b, const char *prefix, const char *name,
			  const char *help, bool gauge)
{
	xio_buf_printf(b, "# HELP %s_%s%s %s\n# TYPE %s_%s%s %s\n", prefix, name,
		       gauge ? "" : "_total", help, prefix, name, gauge ? "" : "_total",
		       gauge ? "gauge" : "counter");
}

/* "{a,b}" of the labels given, "" without any. */
static void xio_prom_sample(struct xio_buf *b, const char *prefix, const char *name, bool gauge,
			    const char *set_labels, const char *key, const char *value)
{
	bool any = (set_labels && *set_labels) || key;

	xio_buf_printf(b, "%s_%s%s%s", prefix, name, gauge ? "" : "_total", any ? "{" : "");
	if (set_labels && *set_labels)
		xio_buf_printf(b, "%s%s", set_labels, key ? "," : "");
	if (key)
		xio_buf_printf(b, "%s=\"%s\"", key, value);
	xio_buf_puts(b, any ? "} " : " ");
}

void xio_metrics_prom(struct xio_buf *b, const char *prefix, const struct xio_metric *t,
		      unsigned n, const struct xio_metric_set *sets, unsigned nsets)
{
	for (unsigned k = 0; k < n; k++) {
		const struct xio_metric *m = &t[k];
		bool gauge = m->flags & XIO_METRIC_GAUGE;

		xio_prom_head(b, prefix, m->name, m->help, gauge);
		for (unsigned s = 0; s < nsets; s++) {
			if (m->n == 0) {
				xio_prom_sample(b, prefix, m->name, gauge, sets[s].labels, NULL, NULL);
				xio_buf_printf(b, "%" PRIu64 "\n", xio_metric_get(m, sets[s].base, 0));
				continue;
			}
			for (unsigned i = 0; i < m->n; i++) {
				if (!m->label(i))
					continue;
				xio_prom_sample(b, prefix, m->name, gauge, sets[s].labels, m->label_key,
						m->label(i));
				xio_buf_printf(b, "%" PRIu64 "\n", xio_metric_get(m, sets[s].base, i));
			}
		}
	}
}

void xio_metrics_prom_one(struct xio_buf *b, const char *prefix, const char *name,
			  const char *help, bool gauge, const char *labels, double v)
{
	xio_prom_head(b, prefix, name, help, gauge);
	xio_prom_sample(b, prefix, name, gauge, labels, NULL, NULL);
	xio_buf_printf(b, "%.17g\n", v);
}
