/* SPDX-License-Identifier: BSD-3-Clause
 * xio_pipeline_mode.c: pipeline mode. Each RX queue gets three tasks joined
 * by SP/SC rings: rx (receive bursts) -> work (classify, validate, narrow,
 * count) -> tx (transmit). --stage-lcores puts each task on an lcore,
 * several may share one; by default they go round-robin over the workers.
 * On a stop, rx stops receiving and each task finishes once its upstream
 * has finished, its input ring is empty and it holds nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "xio_log.h"
#include "xio_worker.h"

/* True once upstream is done and nothing is left in t->in. Reading done
 * first (acquire) makes every enqueue before it visible to the count. */
static inline bool xio_task_input_over(const struct xio_task *t)
{
	return xio_task_is_done(t->upstream) && rte_ring_empty(t->in);
}

static bool xio_rx_poll(struct xio_task *t)
{
	if (t->held.n != 0) {
		xio_queue_mark_rx(t->q);
		return xio_task_enqueue_held(t) != 0;
	}
	if (xio_task_rx_burst(t) == 0)
		return false;
	xio_task_enqueue_held(t);
	return true;
}

/* Dequeues a burst from t->in into t->held, which must be empty, and counts
 * it. Returns how many frames came; on 0 the task finishes if its input is
 * over. */
static unsigned xio_task_dequeue_burst(struct xio_task *t)
{
	struct xio_held *h = &t->held;
	unsigned avail, n;

	n = rte_ring_sc_dequeue_burst(t->in, (void **)h->pkts, t->q->burst, &avail);
	if (n == 0) {
		XIO_ADD(t->stats.empty_polls, 1);
		if (xio_task_input_over(t))
			xio_task_finish(t);
		return 0;
	}
	if (n + avail > t->stats.ring_in_hwm)
		XIO_STORE(t->stats.ring_in_hwm, n + avail);
	xio_task_count_in(t, h->pkts, n);
	h->head = 0;
	h->n = (uint16_t)n;
	return n;
}

static bool xio_work_poll(struct xio_task *t)
{
	struct xio_held *h = &t->held;

	if (h->n != 0)
		return xio_task_enqueue_held(t) != 0;
	if (xio_task_dequeue_burst(t) == 0)
		return false;
	h->n = xio_mbuf_process_burst(&t->q->mctx, h->pkts, h->n);
	if (h->n != 0)
		xio_task_enqueue_held(t);
	return true;
}

static bool xio_tx_poll(struct xio_task *t)
{
	if (t->held.n != 0)
		return xio_task_tx_held(t) != 0;
	if (xio_task_dequeue_burst(t) == 0)
		return false;
	xio_task_tx_held(t);
	return true;
}

/* The lcores of --stage-lcores (a list for one direction serves both), or
 * round-robin over the worker lcores. */
static int xio_pipeline_lcores(const struct xio_dp *dp, unsigned *ids, unsigned n)
{
	const struct xio_config *cfg = dp->cfg;
	unsigned workers[RTE_MAX_LCORE], nw = 0, lcore;

	if (cfg->n_stage_lcores != 0) {
		for (unsigned i = 0; i < n; i++) {
			ids[i] = cfg->stage_lcores[i % cfg->n_stage_lcores];
			if (ids[i] >= RTE_MAX_LCORE || !rte_lcore_is_enabled(ids[i]) ||
			    ids[i] == rte_get_main_lcore()) {
				XIO_LOG(ERR, "--stage-lcores: lcore %u is not a worker lcore of the "
					"EAL (main lcore %u; give workers with -l/--lcores)",
					ids[i], rte_get_main_lcore());
				return -1;
			}
		}
		return 0;
	}
	RTE_LCORE_FOREACH_WORKER(lcore)
		workers[nw++] = lcore;
	if (nw == 0) {
		XIO_LOG(ERR, "pipeline mode needs at least one worker lcore besides the main "
			"one: use -l/--lcores (e.g. --lcores '0@0,1@1,2@0' on two CPUs)");
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		ids[i] = workers[i % nw];
	return 0;
}

static int xio_pipeline_rings(struct xio_queue *q, uint32_t size)
{
	int socket = rte_eth_dev_socket_id(q->rx_port);
	char name[RTE_RING_NAMESIZE];

	if (socket < 0)
		socket = (int)rte_socket_id();
	for (unsigned r = 0; r < 2; r++) {
		snprintf(name, sizeof(name), "xio_d%u_q%u_%s", q->dir, q->qid, r ? "tx" : "work");
		q->rings[r] = rte_ring_create(name, size, socket,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (q->rings[r] == NULL) {
			XIO_LOG(ERR, "cannot create ring %s of %u entries on socket %d: %s "
				"(try a smaller --ring-size or more memory: -m MB)",
				name, size, socket, rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

int xio_pipeline_plan(struct xio_dp *dp)
{
	static bool (*const polls[3])(struct xio_task *) = { xio_rx_poll, xio_work_poll,
							      xio_tx_poll };
	unsigned ids[3 * XIO_MAX_DIRS * XIO_MAX_QUEUES];

	if (xio_pipeline_lcores(dp, ids, 3 * dp->nq) < 0)
		return -1;
	for (unsigned i = 0; i < dp->nq; i++) {
		struct xio_queue *q = dp->q[i];

		if (xio_pipeline_rings(q, dp->cfg->ring_size) < 0)
			return -1;
		for (unsigned s = 0; s < 3; s++) {
			struct xio_task *t = &q->tasks[s];

			t->kind = (enum xio_task_kind)(XIO_TASK_RX + s);
			t->q = q;
			t->poll = polls[s];
			t->upstream = s ? &q->tasks[s - 1] : NULL;
			t->in = s ? q->rings[s - 1] : NULL;
			t->out = s < 2 ? q->rings[s] : NULL;
			xio_dp_assign(dp, t, ids[3 * i + s]);
		}
		q->ntasks = 3;
		XIO_LOG(INFO, "queue %u%s%s: pipeline rx on lcore %u, work on lcore %u, tx on "
			"lcore %u, rings of %u", q->qid, dp->ndirs > 1 ? " " : "",
			dp->ndirs > 1 ? xio_direction_name(q->dir) : "", ids[3 * i],
			ids[3 * i + 1], ids[3 * i + 2], dp->cfg->ring_size);
	}
	return 0;
}

void xio_pipeline_free(struct xio_dp *dp)
{
	for (unsigned i = 0; i < dp->nq; i++) {
		if (dp->q[i] == NULL)
			continue;
		rte_ring_free(dp->q[i]->rings[0]);
		rte_ring_free(dp->q[i]->rings[1]);
		dp->q[i]->rings[0] = dp->q[i]->rings[1] = NULL;
	}
}
