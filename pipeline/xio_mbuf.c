/* SPDX-License-Identifier: BSD-3-Clause
 * xio_mbuf.c: runs bursts of mbufs through the stage core (see xio_mbuf.h).
 * One segment: the direct path. Up to XIO_MAX_SEGS segments: a segment list
 * over the chain, processed in place. Longer chains (tiny mbufs, hostile
 * captures): a copy in the worker's scratch buffer, copied back when
 * rewritten. No allocation, no syscall.
 */
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "xio_mbuf.h"

#define XIO_PREFETCH_AHEAD 2

static inline uint8_t xio_csum_hint(uint64_t flags, uint64_t mask, uint64_t good, uint64_t bad)
{
	flags &= mask;
	if (flags == good)
		return XIO_CSUM_GOOD;
	if (flags == bad)
		return XIO_CSUM_BAD;
	return XIO_CSUM_UNKNOWN;
}

static inline void xio_mbuf_hints(const struct rte_mbuf *m, struct xio_rx_hints *h)
{
	h->ip_csum = xio_csum_hint(m->ol_flags, RTE_MBUF_F_RX_IP_CKSUM_MASK,
				   RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD);
	h->l4_csum = xio_csum_hint(m->ol_flags, RTE_MBUF_F_RX_L4_CKSUM_MASK,
				   RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD);
}

void xio_mbuf_trim(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t off = 0;
	uint16_t nb = 1;

	while (off + seg->data_len < len) {
		off += seg->data_len;
		seg = seg->next;
		nb++;
	}
	seg->data_len = (uint16_t)(len - off);
	if (seg->next != NULL) {
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
	}
	m->pkt_len = len;
	m->nb_segs = nb;
}

/* Copies src[0..len) over the first len bytes of the chain. */
static void xio_mbuf_write(struct rte_mbuf *m, const uint8_t *src, uint32_t len)
{
	for (; len > 0 && m != NULL; m = m->next) {
		uint32_t n = RTE_MIN(len, (uint32_t)m->data_len);

		rte_memcpy(rte_pktmbuf_mtod(m, uint8_t *), src, n);
		src += n;
		len -= n;
	}
}

/* A chain too long for a segment list: processed in the scratch copy. The
 * copy holds every byte the classifier can look at; bytes past it can only
 * be Ethernet padding, which a forwarded frame keeps and a rewritten one
 * drops. */
static void xio_mbuf_process_long(struct xio_mbuf_ctx *ctx, struct rte_mbuf *m,
				  const struct xio_rx_hints *hints, struct xio_result *res)
{
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)XIO_MBUF_SCRATCH);
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, ctx->scratch);
	struct xio_seg seg = { ctx->scratch, len };

	if (p != ctx->scratch)
		rte_memcpy(ctx->scratch, p, len);
	XIO_ADD(ctx->long_chains, 1);
	xio_process(ctx->stage, &seg, 1, hints, res);
	if (res->action == XIO_ACT_REWRITTEN) {
		xio_mbuf_write(m, ctx->scratch, res->out_len);
		xio_mbuf_trim(m, res->out_len);
	} else {
		res->out_len = m->pkt_len;
	}
}

static inline void xio_mbuf_process(struct xio_mbuf_ctx *ctx, struct rte_mbuf *m,
				    struct xio_result *res)
{
	struct xio_seg segs[XIO_MAX_SEGS];
	struct xio_rx_hints h, *hints = NULL;
	struct rte_mbuf *s;
	unsigned n;

	if (ctx->rx_hints) {
		xio_mbuf_hints(m, &h);
		hints = &h;
	}
	if (likely(m->nb_segs == 1)) {
		segs[0].data = rte_pktmbuf_mtod(m, uint8_t *);
		segs[0].len = m->data_len;
		xio_process(ctx->stage, segs, 1, hints, res);
		if (res->action == XIO_ACT_REWRITTEN) {
			m->data_len = (uint16_t)res->out_len;
			m->pkt_len = res->out_len;
		}
		return;
	}
	if (unlikely(m->nb_segs > XIO_MAX_SEGS)) {
		xio_mbuf_process_long(ctx, m, hints, res);
		return;
	}
	for (s = m, n = 0; s != NULL && n < XIO_MAX_SEGS; s = s->next, n++) {
		segs[n].data = rte_pktmbuf_mtod(s, uint8_t *);
		segs[n].len = s->data_len;
	}
	xio_process(ctx->stage, segs, n, hints, res);
	if (res->action == XIO_ACT_REWRITTEN)
		xio_mbuf_trim(m, res->out_len);
}

uint16_t xio_mbuf_process_burst(struct xio_mbuf_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *drop[n];
	uint16_t nout = 0, ndrop = 0;

	for (uint16_t i = 0; i < n && i < XIO_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t in_len = m->pkt_len;
		struct xio_result res;

		if (i + XIO_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + XIO_PREFETCH_AHEAD], void *));
		xio_mbuf_process(ctx, m, &res);
		xio_counters_account(ctx->counters, in_len, &res);
		if (unlikely(res.action == XIO_ACT_DROP))
			drop[ndrop++] = m;
		else
			pkts[nout++] = m;
	}
	if (ndrop != 0)
		rte_pktmbuf_free_bulk(drop, ndrop);
	return nout;
}
