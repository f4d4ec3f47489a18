/* SPDX-License-Identifier: BSD-3-Clause
 * xio_worker.h: the DPDK data path's moving parts. One pipeline per RX queue
 * (xio_queue); its stages are tasks (xio_task) that worker lcores poll in
 * turn (xio_lcore), so several stages can share one lcore. rtc mode has one
 * task per queue (rx, process, tx); pipeline mode three (rx, work, tx)
 * joined by single-producer/single-consumer rings. A task never blocks: what
 * it cannot pass on yet (full ring, partial TX) it holds and retries first,
 * and it takes no new input meanwhile (backpressure).
 */
#ifndef XIO_WORKER_H
#define XIO_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "xio_config.h"
#include "xio_counters.h"
#include "xio_mbuf.h"

/* After a stop, how long the tasks may take to pass on what they hold
 * before the TX side gives up and frees (and counts) what it cannot send. */
#define XIO_DRAIN_TIMEOUT_S 3

enum xio_task_kind { XIO_TASK_RTC = 0, XIO_TASK_RX, XIO_TASK_WORK, XIO_TASK_TX };

/* mbufs a task holds until it can pass them on: pkts[head, head + n). */
struct xio_held {
	uint16_t head;
	uint16_t n;
	struct rte_mbuf *pkts[XIO_MAX_BURST];
};

/* Per task, written only by the lcore that polls it. */
struct xio_task_stats {
	uint64_t packets;         /* mbufs taken in (rx, dequeue) */
	uint64_t bursts;          /* polls that took packets in */
	uint64_t empty_polls;     /* polls that found nothing */
	uint64_t abandoned;       /* tx: freed unsent after the drain timeout */
	uint64_t abandoned_bytes;
};

struct xio_queue;

struct xio_task {
	void (*poll)(struct xio_task *t);
	struct xio_queue *q;
	const struct xio_task *upstream; /* the task that fills in */
	struct rte_ring *in;             /* pipeline mode */
	struct rte_ring *out;
	enum xio_task_kind kind;
	unsigned lcore;
	bool done;                       /* nothing left to do: read with acquire */
	struct xio_task_stats stats;
	struct xio_held held;
} __rte_cache_aligned;

struct xio_dp;

/* One RX queue's pipeline: rx_port queue qid to tx_port queue qid. */
struct xio_queue {
	struct xio_dp *dp;
	uint16_t rx_port;
	uint16_t tx_port;
	uint16_t qid;
	uint16_t burst;
	struct xio_mbuf_ctx mctx;
	uint64_t last_rx_tsc;            /* rx: last burst, or last poll under backpressure */
	struct rte_ring *rings[2];       /* pipeline mode: rx->work, work->tx */
	unsigned ntasks;
	struct xio_task tasks[3];
	struct xio_counters counters;    /* the processing task's */
} __rte_cache_aligned;

struct xio_lcore {
	unsigned ntasks;
	struct xio_task *tasks[3 * XIO_MAX_QUEUES];
};

/* The whole run: queues, lcore plan and the stop flags the main lcore sets. */
struct xio_dp {
	const struct xio_config *cfg;
	unsigned nq;
	struct xio_queue *q[XIO_MAX_QUEUES];
	int quit;    /* stop receiving, pass on what is held, finish */
	int abandon; /* drain timed out: TX frees what it cannot send */
	struct xio_lcore lcores[RTE_MAX_LCORE];
};

static inline bool xio_dp_quitting(const struct xio_dp *dp)
{
	return __atomic_load_n(&dp->quit, __ATOMIC_RELAXED) != 0;
}

static inline bool xio_task_is_done(const struct xio_task *t)
{
	return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}

static inline void xio_task_finish(struct xio_task *t)
{
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
}

/* For --idle-exit: the queue received a burst, or could not poll RX because
 * downstream is full (frames may be waiting: not idle). */
static inline void xio_queue_mark_rx(struct xio_queue *q)
{
	__atomic_store_n(&q->last_rx_tsc, rte_rdtsc(), __ATOMIC_RELAXED);
}

/* Receives a burst into t->held, which must be empty, and counts it.
 * Returns how many frames came: 0 when none did, or when the run is
 * stopping (the task then finishes). */
static inline uint16_t xio_task_rx_burst(struct xio_task *t)
{
	struct xio_queue *q = t->q;
	struct xio_held *h = &t->held;
	uint16_t n;

	if (unlikely(xio_dp_quitting(q->dp))) {
		xio_task_finish(t);
		return 0;
	}
	n = rte_eth_rx_burst(q->rx_port, q->qid, h->pkts, q->burst);
	if (n == 0) {
		t->stats.empty_polls++;
		return 0;
	}
	xio_queue_mark_rx(q);
	t->stats.bursts++;
	t->stats.packets += n;
	h->head = 0;
	h->n = n;
	return n;
}

/* Puts task t on lcore id's poll list. */
void xio_dp_assign(struct xio_dp *dp, struct xio_task *t, unsigned lcore);

/* Worker lcore body (rte_eal_remote_launch): polls its tasks until all are
 * done. */
int xio_lcore_main(void *arg);

/* Transmits what t holds on its queue's TX port (what the queue takes now);
 * after the drain timeout, frees and counts it instead. */
void xio_task_tx_held(struct xio_task *t);

/* Enqueues what t holds on t->out (what fits now). */
void xio_task_enqueue_held(struct xio_task *t);

/* True when every task of the run is done. */
bool xio_dp_all_done(const struct xio_dp *dp);

/* Sums the queues' counters; frames abandoned at the drain timeout move
 * from transmitted to dropped. */
void xio_dp_counters(const struct xio_dp *dp, struct xio_counters *sum);

/* The newest RX timestamp (TSC) over the queues, 0 when none came yet. */
uint64_t xio_dp_last_rx(const struct xio_dp *dp);

/* Mode plans: create what the mode needs (rings) and put its tasks on the
 * EAL's worker lcores. 0, or -1 after logging why. */
int xio_rtc_plan(struct xio_dp *dp);
int xio_pipeline_plan(struct xio_dp *dp);
void xio_pipeline_free(struct xio_dp *dp);

#endif /* XIO_WORKER_H */
