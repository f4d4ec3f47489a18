/* SPDX-License-Identifier: BSD-3-Clause
 * xio_counters.h: the pipeline's frame accounting, the counters of
 * ../shared/vectors/NAME/expected.json. Each worker owns one instance in its own
 * cache lines and adds to it alone (relaxed stores, XIO_ADD); readers sum
 * the instances with relaxed loads. Every counter is described once, in
 * XIO_COUNTERS: the structure, the stats JSON, the DPDK telemetry replies
 * and the Prometheus text come from that list. Plain C: the DPDK and XDP
 * drivers and the tests all use it.
 */
#ifndef XIO_COUNTERS_H
#define XIO_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include "xio_buf.h"
#include "xio_json.h"
#include "xio_metrics.h"
#include "xio_stage.h"

/* The counters, one line each, in the order of expected.json. C(name,
 * stats line name or NULL, help): one value; A(name, count, label,
 * Prometheus label, JSON key of the breakdown, flags, help): an array
 * (xio_metrics.h). */
#define XIO_COUNTERS(C, A)                                                                       \
	C(rx_packets, "rx", "Frames received")                                                    \
	C(tx_packets, "tx", "Frames transmitted")                                                 \
	C(dropped_packets, "dropped", "Frames dropped")                                           \
	C(narrowed_packets, NULL, "Frames whose tokens were narrowed to UINT16 (saturated too)")  \
	C(tokens_narrowed, NULL, "Tokens narrowed from INT32 to UINT16")                          \
	C(tokens_saturated, NULL, "Tokens clamped under --overflow saturate")                     \
	C(bytes_in, NULL, "Bytes of the frames received, whole frames")                           \
	C(bytes_out, NULL, "Bytes of the frames transmitted, whole frames")                       \
	A(reasons, XIO_R_COUNT, xio_reason_label, "reason", NULL, 0, "Frames by XIO reason")      \
	A(drops, XIO_R_COUNT, xio_reason_label, "reason", NULL, XIO_METRIC_NO_JSON,               \
	  "Dropped frames by XIO reason")

#define XIO_COUNTER_FIELD(name, line, help) uint64_t name;
#define XIO_COUNTER_ARRAY(name, count, label, key, by, flags, help) uint64_t name[count];
struct xio_counters {
	XIO_COUNTERS(XIO_COUNTER_FIELD, XIO_COUNTER_ARRAY)
} __attribute__((aligned(64)));
#undef XIO_COUNTER_FIELD
#undef XIO_COUNTER_ARRAY

/* The reason's name as a label (xio_reason_name). */
const char *xio_reason_label(unsigned r);

/* The table of XIO_COUNTERS; *n gets its length. */
const struct xio_metric *xio_counters_table(unsigned *n);

/* Counts one received frame of in_len bytes with its stage result; the
 * frame is counted as transmitted or dropped from res->action. */
static inline void xio_counters_account(struct xio_counters *c, uint32_t in_len,
					const struct xio_result *res)
{
	XIO_ADD(c->rx_packets, 1);
	XIO_ADD(c->bytes_in, in_len);
	XIO_ADD(c->reasons[res->reason], 1);
	if (res->action == XIO_ACT_DROP) {
		XIO_ADD(c->dropped_packets, 1);
		XIO_ADD(c->drops[res->reason], 1);
		return;
	}
	XIO_ADD(c->tx_packets, 1);
	XIO_ADD(c->bytes_out, res->out_len);
	if (res->action == XIO_ACT_REWRITTEN) {
		XIO_ADD(c->narrowed_packets, 1);
		XIO_ADD(c->tokens_narrowed, res->tokens);
		XIO_ADD(c->tokens_saturated, res->saturated);
	}
}

/* The directions of a --bidirectional run: 0 a_to_b (--rx-port/--iface to
 * --tx-port/--egress), 1 b_to_a. */
const char *xio_direction_name(unsigned dir);

/* dst += src, counter by counter (src read with relaxed loads). */
void xio_counters_add(struct xio_counters *dst, const struct xio_counters *src);

/* The counters as members of the open JSON object: every scalar, and
 * "reasons" with every reason. */
void xio_counters_json(struct xio_json *j, const struct xio_counters *c);

/* " rx N tx N dropped N": the totals of the stats line, appended to b. */
void xio_counters_line(struct xio_buf *b, const struct xio_counters *c);

/* The counters in the Prometheus text format (xio_pipeline_*), one sample
 * per set (xio_metrics.h). */
void xio_counters_prom(struct xio_buf *b, const struct xio_metric_set *sets, unsigned n);

#endif /* XIO_COUNTERS_H */
