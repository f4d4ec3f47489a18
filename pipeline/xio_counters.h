/* SPDX-License-Identifier: BSD-3-Clause
 * xio_counters.h: the pipeline's frame accounting, the counters of
 * ../shared/vectors/NAME/expected.json. Each worker owns one instance in its own
 * cache lines and adds to it without atomics; readers sum the instances.
 * Plain C: the DPDK and XDP drivers and the tests all use it.
 */
#ifndef XIO_COUNTERS_H
#define XIO_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include "xio_stage.h"

struct xio_counters {
	uint64_t rx_packets;
	uint64_t tx_packets;
	uint64_t dropped_packets;
	uint64_t narrowed_packets; /* every frame rewritten, saturated ones too */
	uint64_t tokens_narrowed;  /* tokens in those frames */
	uint64_t tokens_saturated; /* tokens clamped under the saturate policy */
	uint64_t bytes_in;         /* whole frames as received */
	uint64_t bytes_out;        /* whole frames as transmitted */
	uint64_t reasons[XIO_R_COUNT];
	uint64_t drops[XIO_R_COUNT]; /* dropped frames per reason */
} __attribute__((aligned(64)));

/* Counts one received frame of in_len bytes with its stage result; the
 * frame is counted as transmitted or dropped from res->action. */
static inline void xio_counters_account(struct xio_counters *c, uint32_t in_len,
					const struct xio_result *res)
{
	c->rx_packets++;
	c->bytes_in += in_len;
	c->reasons[res->reason]++;
	if (res->action == XIO_ACT_DROP) {
		c->dropped_packets++;
		c->drops[res->reason]++;
		return;
	}
	c->tx_packets++;
	c->bytes_out += res->out_len;
	if (res->action == XIO_ACT_REWRITTEN) {
		c->narrowed_packets++;
		c->tokens_narrowed += res->tokens;
		c->tokens_saturated += res->saturated;
	}
}

/* The directions of a --bidirectional run: 0 a_to_b (--rx-port/--iface to
 * --tx-port/--egress), 1 b_to_a. */
const char *xio_direction_name(unsigned dir);

/* The counters as JSON members, "\"rx_packets\": N, ..., \"reasons\": {...}",
 * no braces, on one line: the members of a per-direction object. Returns
 * what snprintf would. */
size_t xio_counters_json_members(char *p, size_t len, const struct xio_counters *c);

/* dst += src, field by field. */
void xio_counters_add(struct xio_counters *dst, const struct xio_counters *src);

/* Writes the counters as the JSON object of expected.json (keys sorted,
 * every reason present), with elapsed_s, plus extra members already
 * formatted as JSON ("\"key\": value" lines, may be NULL). */
void xio_counters_write_json(FILE *out, const struct xio_counters *c, double elapsed_s,
			     const char *extra);

/* Writes the JSON to path atomically (temp file + rename). Returns 0 or -1
 * with errno set. */
int xio_counters_save_json(const char *path, const struct xio_counters *c, double elapsed_s,
			   const char *extra);

#endif /* XIO_COUNTERS_H */
