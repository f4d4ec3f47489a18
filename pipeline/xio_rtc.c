/* SPDX-License-Identifier: BSD-3-Clause
 * xio_rtc.c: run-to-completion mode. One task per RX queue, on its own
 * worker lcore: receive a burst, process it in place, transmit it. What the
 * TX queue does not take is retried before the next receive.
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
	unsigned lcore = rte_get_main_lcore();

	for (unsigned i = 0; i < dp->nq; i++) {
		struct xio_queue *q = dp->q[i];
		struct xio_task *t = &q->tasks[0];

		lcore = rte_get_next_lcore(lcore, 1, 0);
		if (lcore >= RTE_MAX_LCORE) {
			XIO_LOG(ERR, "rtc mode needs %u worker lcores (one per --rxq queue), "
				"the EAL has %u: give more with -l/--lcores (e.g. --lcores '0@0,1@1')",
				dp->nq, rte_lcore_count() - 1);
			return -1;
		}
		t->kind = XIO_TASK_RTC;
		t->q = q;
		t->poll = xio_rtc_poll;
		q->ntasks = 1;
		xio_dp_assign(dp, t, lcore);
		XIO_LOG(INFO, "queue %u: rtc on lcore %u", q->qid, lcore);
	}
	return 0;
}
