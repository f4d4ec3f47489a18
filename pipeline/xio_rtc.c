/* SPDX-License-Identifier: BSD-3-Clause
 * xio_rtc.c: run-to-completion mode. One task per RX queue and direction:
 * receive a burst, process it in place, transmit it. What the TX queue does
 * not take is retried before the next receive. Each --rxq queue needs a
 * worker lcore; with --bidirectional the B -> A task of a queue gets an
 * lcore of its own when there are enough, else it shares the A -> B task's
 * lcore, which then polls both directions in turn.
 */
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "xio_log.h"
#include "xio_worker.h"

static bool xio_rtc_poll(struct xio_task *t)
{
	struct xio_queue *q = t->q;
	struct xio_held *h = &t->held;

	if (h->n != 0) {
		xio_queue_mark_rx(q);
		return xio_task_tx_held(t) != 0;
	}
	if (xio_task_rx_burst(t) == 0)
		return false;
	h->n = xio_mbuf_process_burst(&q->mctx, h->pkts, h->n);
	if (h->n != 0)
		xio_task_tx_held(t);
	return true;
}

int xio_rtc_plan(struct xio_dp *dp)
{
	unsigned workers[RTE_MAX_LCORE], nw = 0, lcore, nq1 = dp->nq / dp->ndirs;

	RTE_LCORE_FOREACH_WORKER(lcore)
		workers[nw++] = lcore;
	if (nw < nq1) {
		XIO_LOG(ERR, "rtc mode needs %u worker lcores (one per --rxq queue), "
			"the EAL has %u: give more with -l/--lcores (e.g. --lcores '0@0,1@1')",
			nq1, nw);
		return -1;
	}
	if (nw > dp->nq)
		nw = dp->nq;
	for (unsigned i = 0; i < dp->nq; i++) {
		struct xio_queue *q = dp->q[i];
		struct xio_task *t = &q->tasks[0];

		t->kind = XIO_TASK_RTC;
		t->q = q;
		t->poll = xio_rtc_poll;
		q->ntasks = 1;
		xio_dp_assign(dp, t, workers[i % nw]);
		XIO_LOG(INFO, "queue %u%s%s: rtc on lcore %u", q->qid, dp->ndirs > 1 ? " " : "",
			dp->ndirs > 1 ? xio_direction_name(q->dir) : "", t->lcore);
	}
	return 0;
}
