/* SPDX-License-Identifier: BSD-3-Clause
 * xio_rtt.c: the adaptive timeout, RFC 6298's estimator: the first sample R
 * gives SRTT = R, RTTVAR = R/2; each later one RTTVAR = 3/4 RTTVAR +
 * 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R; RTO = SRTT + 4 RTTVAR, kept
 * within [min, max]. Until a sample arrives RTO is max (the configured
 * timeout). Each timeout doubles it up to max (5.5), and the doubled value
 * stays until the next sample (5.7): progress alone does not undo it.
 * Samples come only from requests never asked again (Karn, see xio_read.c).
 */
#include "xio_priv.h"

static void rto_update(struct xio_rtt *r)
{
	uint64_t rto = r->srtt + 4 * r->rttvar;

	r->rto = rto < r->min ? r->min : rto > r->max ? r->max : rto;
}

void xio_rtt_init(struct xio_rtt *r, uint64_t min_us, uint64_t max_us)
{
	r->srtt = 0;
	r->rttvar = 0;
	r->max = max_us;
	r->min = min_us < max_us ? min_us : max_us;
	r->rto = max_us;
	r->backoff = 0;
}

void xio_rtt_sample(struct xio_rtt *r, uint64_t rtt_us)
{
	if (rtt_us == 0)
		rtt_us = 1;
	if (r->srtt == 0) {
		r->srtt = rtt_us;
		r->rttvar = rtt_us / 2;
	} else {
		uint64_t d = r->srtt > rtt_us ? r->srtt - rtt_us : rtt_us - r->srtt;

		r->rttvar = (3 * r->rttvar + d) / 4;
		r->srtt = (7 * r->srtt + rtt_us) / 8;
		if (r->srtt == 0)
			r->srtt = 1;
	}
	r->backoff = 0;
	rto_update(r);
}

void xio_rtt_backoff(struct xio_rtt *r, unsigned fails)
{
	if (fails > r->backoff)
		r->backoff = fails;
}

uint64_t xio_rtt_timeout(const struct xio_rtt *r, unsigned fails)
{
	uint64_t t = r->rto;

	if (fails < r->backoff)
		fails = r->backoff;
	while (fails-- > 0 && t < r->max)
		t *= 2;
	return t < r->max ? t : r->max;
}
