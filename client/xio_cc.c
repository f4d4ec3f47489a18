/* SPDX-License-Identifier: BSD-3-Clause
 * xio_cc.c: a flow's congestion window, NewReno as RFC 9002 (section 7)
 * describes it for datagrams, counted in bytes asked for and not received
 * yet. Slow start: the window grows by every byte received, doubling each
 * round trip, until a loss or ssthresh. A loss (a gap in an answer, or a
 * timeout) of a request sent after the current recovery period began halves
 * it (ssthresh = cwnd / 2) and starts a new period: losses of requests sent
 * before it count once. After a timeout the window falls to its floor and
 * slow start begins again. Congestion avoidance adds one train (64 KiB) a
 * window's worth of bytes received. The window stays within [min, max]:
 * max is half the socket receive buffer the kernel granted (the kernel
 * reports twice what it stores: the other half is its bookkeeping), so
 * that what is in flight fits the socket even when the reader stalls.
 */
#include "xio_priv.h"

void xio_cc_init(struct xio_cc *cc, uint64_t max)
{
	cc->min = XIO_CC_MIN < max ? XIO_CC_MIN : max;
	cc->max = max > cc->min ? max : cc->min;
	cc->cwnd = XIO_CC_INITIAL < cc->max ? XIO_CC_INITIAL : cc->max;
	if (cc->cwnd < cc->min)
		cc->cwnd = cc->min;
	cc->ssthresh = UINT64_MAX;
	cc->recovery_ns = 0;
	cc->acked = 0;
	cc->reductions = 0;
}

void xio_cc_on_received(struct xio_cc *cc, uint64_t bytes, uint64_t sent_ns)
{
	if (sent_ns <= cc->recovery_ns)
		return; /* in recovery: sent before the reduction, no growth */
	if (cc->cwnd < cc->ssthresh) {
		cc->cwnd += bytes;
	} else {
		cc->acked += bytes;
		while (cc->acked >= cc->cwnd) {
			cc->acked -= cc->cwnd;
			cc->cwnd += XIO_CC_STEP;
		}
	}
	if (cc->cwnd > cc->max)
		cc->cwnd = cc->max;
}

/* Halves the window once per recovery period; true when it did. */
static bool reduce(struct xio_cc *cc, uint64_t sent_ns, uint64_t now)
{
	if (sent_ns <= cc->recovery_ns)
		return false;
	cc->recovery_ns = now;
	cc->ssthresh = cc->cwnd / 2 > cc->min ? cc->cwnd / 2 : cc->min;
	cc->cwnd = cc->ssthresh;
	cc->acked = 0;
	cc->reductions++;
	return true;
}

void xio_cc_on_loss(struct xio_cc *cc, uint64_t sent_ns, uint64_t now)
{
	reduce(cc, sent_ns, now);
}

void xio_cc_on_timeout(struct xio_cc *cc, uint64_t sent_ns, uint64_t now)
{
	if (reduce(cc, sent_ns, now))
		cc->cwnd = cc->min;
}
