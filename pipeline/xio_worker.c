/* SPDX-License-Identifier: BSD-3-Clause
 * xio_worker.c: the worker lcore loop and what every task shares: passing
 * held mbufs on to a ring or a TX queue, the drain and the counters' sum.
 */
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "xio_log.h"
#include "xio_worker.h"

void xio_dp_assign(struct xio_dp *dp, struct xio_task *t, unsigned lcore)
{
	struct xio_lcore *l = &dp->lcores[lcore];

	t->lcore = lcore;
	l->dp = dp;
	l->tasks[l->ntasks++] = t;
}

/* Opens this lcore's hardware counters; the first lcore that cannot says
 * why, once, for the whole run. */
static void xio_lcore_hw_open(struct xio_lcore *l)
{
	struct xio_dp *dp = l->dp;
	char why[sizeof(dp->hw_why)];

	if (xio_hw_open(&l->hw, why, sizeof(why)) == 0) {
		xio_hw_start(&l->hw);
		return;
	}
	if (__atomic_exchange_n(&dp->hw_failed, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	memcpy(dp->hw_why, why, sizeof(why));
	XIO_LOG(NOTICE, "no hardware counters (%s): the stats JSON says so, forwarding goes on",
		why);
}

int xio_lcore_main(void *arg)
{
	struct xio_lcore *l = arg;
	unsigned left = l->ntasks;
	uint64_t prev, now;

	xio_lcore_hw_open(l);
	prev = rte_rdtsc();
	XIO_STORE(l->start_tsc, prev);
	while (left != 0) {
		left = 0;
		for (unsigned i = 0; i < l->ntasks; i++) {
			struct xio_task *t = l->tasks[i];
			bool busy;

			if (t->done)
				continue;
			busy = t->poll(t);
			now = rte_rdtsc();
			if (busy)
				XIO_ADD(t->stats.busy_cycles, now - prev);
			prev = now;
			left += !t->done;
		}
	}
	XIO_STORE(l->end_tsc, prev);
	xio_hw_stop(&l->hw);
	xio_hw_close(&l->hw);
	return 0;
}

static unsigned xio_task_abandon_held(struct xio_task *t)
{
	struct xio_held *h = &t->held;
	unsigned n = h->n;

	for (uint16_t i = 0; i < h->n; i++)
		XIO_ADD(t->stats.abandoned_bytes, h->pkts[h->head + i]->pkt_len);
	XIO_ADD(t->stats.abandoned, h->n);
	rte_pktmbuf_free_bulk(&h->pkts[h->head], h->n);
	h->head = 0;
	h->n = 0;
	return n;
}

unsigned xio_task_tx_held(struct xio_task *t)
{
	struct xio_held *h = &t->held;
	struct xio_queue *q = t->q;
	uint16_t k;

	if (unlikely(XIO_LOAD(q->dp->abandon)))
		return xio_task_abandon_held(t);
	k = rte_eth_tx_burst(q->tx_port, q->qid, &h->pkts[h->head], h->n);
	h->head += k;
	h->n -= k;
	if (h->n == 0)
		h->head = 0;
	return k;
}

unsigned xio_task_enqueue_held(struct xio_task *t)
{
	struct xio_held *h = &t->held;
	unsigned k, free_space, used;

	k = rte_ring_sp_enqueue_burst(t->out, (void **)&h->pkts[h->head], h->n, &free_space);
	used = rte_ring_get_capacity(t->out) - free_space;
	if (used > t->stats.ring_out_hwm)
		XIO_STORE(t->stats.ring_out_hwm, used);
	h->head += k;
	h->n -= k;
	if (h->n == 0)
		h->head = 0;
	return k;
}

bool xio_dp_all_done(const struct xio_dp *dp)
{
	for (unsigned i = 0; i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++)
			if (!xio_task_is_done(&dp->q[i]->tasks[j]))
				return false;
	return true;
}

/* dir XIO_MAX_DIRS: every direction. */
static void xio_dp_sum(const struct xio_dp *dp, unsigned dir, struct xio_counters *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < dp->nq; i++) {
		const struct xio_queue *q = dp->q[i];

		if (dir != XIO_MAX_DIRS && q->dir != dir)
			continue;
		xio_counters_add(sum, &q->counters);
		for (unsigned j = 0; j < q->ntasks; j++) {
			const struct xio_task_stats *s = &q->tasks[j].stats;

			sum->tx_packets -= s->abandoned;
			sum->bytes_out -= s->abandoned_bytes;
			sum->dropped_packets += s->abandoned;
		}
	}
}

void xio_dp_counters(const struct xio_dp *dp, struct xio_counters *sum)
{
	xio_dp_sum(dp, XIO_MAX_DIRS, sum);
}

void xio_dp_dir_counters(const struct xio_dp *dp, unsigned dir, struct xio_counters *sum)
{
	xio_dp_sum(dp, dir, sum);
}

uint64_t xio_dp_idle_tsc(const struct xio_dp *dp, uint64_t start)
{
	uint64_t idle = UINT64_MAX;

	for (unsigned i = 0; i < dp->nq; i++) {
		uint64_t rx = XIO_LOAD(dp->q[i]->last_rx_tsc);
		uint64_t empty = XIO_LOAD(dp->q[i]->last_empty_tsc);

		rx = RTE_MAX(rx, start);
		idle = RTE_MIN(idle, empty > rx ? empty - rx : 0);
	}
	return dp->nq ? idle : 0;
}

uint64_t xio_dp_last_rx(const struct xio_dp *dp)
{
	uint64_t last = 0;

	for (unsigned i = 0; i < dp->nq; i++) {
		uint64_t t = XIO_LOAD(dp->q[i]->last_rx_tsc);

		if (t > last)
			last = t;
	}
	return last;
}
