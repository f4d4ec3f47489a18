/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stats.c: the stats lines and the stats JSON of a run (xio_stats.h).
 */
#include <inttypes.h>
#include <string.h>

#include "xio_run.h"
#include "xio_stats.h"

static double xio_rate(uint64_t n, double dt)
{
	return dt > 0 ? (double)n / dt : 0.0;
}

void xio_stats_line(FILE *out, double t, const struct xio_counters *now,
		    const struct xio_counters *prev, double dt, const char *tail)
{
	uint64_t rx = now->rx_packets - prev->rx_packets;
	uint64_t tx = now->tx_packets - prev->tx_packets;
	uint64_t bin = now->bytes_in - prev->bytes_in;
	uint64_t bout = now->bytes_out - prev->bytes_out;
	uint64_t tokens = now->tokens_narrowed - prev->tokens_narrowed;
	struct xio_buf totals = XIO_BUF_INIT;

	xio_counters_line(&totals, now);
	fprintf(out,
		"xio: t=%.1fs in %.3f Mpps %.3f Gbit/s | out %.3f Mpps %.3f Gbit/s | "
		"narrowed %" PRIu64 " (%" PRIu64 " tokens, %" PRIu64 " payload bytes saved) | "
		"dropped %" PRIu64 " | total%s%s\n",
		t, xio_rate(rx, dt) / 1e6, xio_rate(bin * 8, dt) / 1e9, xio_rate(tx, dt) / 1e6,
		xio_rate(bout * 8, dt) / 1e9, now->narrowed_packets - prev->narrowed_packets,
		tokens, 2 * tokens, now->dropped_packets - prev->dropped_packets,
		xio_buf_str(&totals), tail != NULL ? tail : "");
	fflush(out);
	xio_buf_free(&totals);
}

void xio_stats_summary(FILE *out, const struct xio_counters *c, double elapsed_s)
{
	fprintf(out,
		"xio: rx %" PRIu64 " tx %" PRIu64 " dropped %" PRIu64 " narrowed %" PRIu64
		" tokens %" PRIu64 " saturated %" PRIu64 " bytes in %" PRIu64 " out %" PRIu64
		" in %.3f s\n",
		c->rx_packets, c->tx_packets, c->dropped_packets, c->narrowed_packets,
		c->tokens_narrowed, c->tokens_saturated, c->bytes_in, c->bytes_out, elapsed_s);
	fflush(out);
}

void xio_stats_directions_json(struct xio_json *j, const struct xio_direction *d, unsigned n)
{
	xio_json_begin_object(j, "directions");
	for (unsigned i = 0; i < n; i++) {
		xio_json_begin_object(j, xio_direction_name(i));
		if (d[i].iface) {
			xio_json_str(j, "iface", d[i].iface);
			xio_json_str(j, "egress", d[i].egress);
		} else {
			xio_json_u64(j, "rx_port", d[i].rx_port);
			xio_json_u64(j, "tx_port", d[i].tx_port);
		}
		xio_counters_json(j, &d[i].c);
		xio_json_end_object(j);
	}
	xio_json_end_object(j);
}
