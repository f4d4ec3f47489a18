/* SPDX-License-Identifier: BSD-3-Clause
 * xio_mbuf.h: the stage core on DPDK mbufs. A burst of received frames, each
 * one mbuf or a chain of segments, goes through xio_process() in place: the
 * segment list is built from the chain, the NIC's RX checksum verdicts are
 * passed as hints, and a rewritten frame's chain is trimmed to its new
 * length. Frames are counted; dropped ones are freed.
 */
#ifndef XIO_MBUF_H
#define XIO_MBUF_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "xio_counters.h"
#include "xio_stage.h"

/* Room for the longest frame the classifier can need in one piece: an IPv6
 * or IPv4 datagram of 64 KiB behind Ethernet and two VLAN tags. Chains of
 * more than XIO_MAX_SEGS segments are processed in a copy of this size. */
#define XIO_MBUF_SCRATCH (65536 + 128)

struct xio_mbuf_ctx {
	const struct xio_stage_cfg *stage;
	struct xio_counters *counters; /* the calling worker's own */
	bool rx_hints;                 /* the port checks IPv4/UDP checksums */
	uint8_t *scratch;              /* XIO_MBUF_SCRATCH bytes, this worker's */
	uint64_t long_chains;          /* frames that took the scratch path */
};

/* Processes pkts[0..n) in place and counts them. Dropped frames are freed;
 * the frames to transmit are moved, in order, to the front of pkts. Returns
 * their number. */
uint16_t xio_mbuf_process_burst(struct xio_mbuf_ctx *ctx, struct rte_mbuf **pkts, uint16_t n);

/* Cuts a chain to its first len bytes (0 < len <= pkt_len), freeing the
 * segments that end up empty and fixing data_len, pkt_len and nb_segs. */
void xio_mbuf_trim(struct rte_mbuf *m, uint32_t len);

#endif /* XIO_MBUF_H */
