/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stage.h: the XIO v1 stage core. xio_process() takes one received frame,
 * classifies and validates it in exactly the spec's order, and narrows it in
 * place when it is a valid INT32 READ_REPLY: payload, XIO header, UDP length
 * and checksum, IP lengths and checksum, Ethernet padding. It decides the
 * frame's reason and what the driver does with it; it never allocates, and
 * it reads and writes only inside the frame.
 */
#ifndef XIO_STAGE_H
#define XIO_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "xio_frame.h"
#include "xio_wire.h"

struct xio_stage_cfg {
	uint16_t udp_port;          /* XIO port (7910), source or destination */
	enum xio_overflow overflow; /* out-of-range token policy */
	bool drop_invalid;          /* drop invalid XIO instead of forwarding */
};

/* What the NIC already checked (DPDK RX checksum flags); UNKNOWN makes the
 * stage core verify in software. */
enum xio_csum_hint {
	XIO_CSUM_UNKNOWN = 0,
	XIO_CSUM_GOOD,
	XIO_CSUM_BAD,
};

struct xio_rx_hints {
	uint8_t ip_csum; /* enum xio_csum_hint for the IPv4 header checksum */
	uint8_t l4_csum; /* enum xio_csum_hint for the UDP checksum */
};

struct xio_result {
	uint8_t reason;     /* enum xio_reason */
	uint8_t action;     /* enum xio_action */
	uint32_t out_len;   /* frame length to transmit (== input unless rewritten) */
	uint32_t tokens;    /* tokens narrowed, when rewritten */
	uint32_t saturated; /* tokens clamped, when rewritten under saturate */
};

void xio_stage_cfg_default(struct xio_stage_cfg *cfg);

/* Processes the frame over segs[0..nseg) in place. hints may be NULL. When
 * the action is XIO_ACT_REWRITTEN the frame's first out_len bytes are the
 * output: the driver trims the rest (padding, the freed half of the payload). */
void xio_process(const struct xio_stage_cfg *cfg, struct xio_seg *segs, unsigned nseg,
		 const struct xio_rx_hints *hints, struct xio_result *res);

/* The same for a frame in one buffer. */
static inline void xio_process_buf(const struct xio_stage_cfg *cfg, uint8_t *buf, uint32_t len,
				   struct xio_result *res)
{
	struct xio_seg seg = { buf, len };

	xio_process(cfg, &seg, 1, NULL, res);
}

#endif /* XIO_STAGE_H */
