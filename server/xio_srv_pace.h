/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_pace.h: --rate, a token bucket over the UDP payload bytes that
 * every worker of xio-server sends, shared without a lock (GCRA: one
 * compare-and-swap on the bucket's theoretical arrival time per send). A
 * send may start at once while the bucket holds XIO_SRV_PACE_DEPTH bytes of
 * credit; past that each waits its turn at the rate.
 */
#ifndef XIO_SRV_PACE_H
#define XIO_SRV_PACE_H

#include <stdint.h>
#include <time.h>

#include "xio_time.h"

#define XIO_SRV_PACE_DEPTH (128u << 10) /* burst credit, bytes */

struct xio_srv_pace {
	double ns_per_byte; /* 0: not paced */
	uint64_t depth_ns;
	uint64_t tat; /* theoretical arrival time of the next byte, ns */
};

/* CLOCK_MONOTONIC in ns: the bucket's clock, and the server's. */
static inline uint64_t xio_srv_now_ns(void)
{
	return xio_now_ns();
}

/* gbit: Gbit/s of UDP payload, 0 for no pacing. */
void xio_srv_pace_init(struct xio_srv_pace *p, double gbit);

/* Reserves bytes at time now_ns (CLOCK_MONOTONIC); returns how many ns to
 * wait before sending them (0: send now). */
uint64_t xio_srv_pace_take(struct xio_srv_pace *p, uint64_t bytes, uint64_t now_ns);

#endif /* XIO_SRV_PACE_H */
