/* SPDX-License-Identifier: BSD-3-Clause
 * xio_worker.h: the DPDK data path's moving parts. One pipeline per RX queue
 * and direction (xio_queue: port A queue i to port B queue i, and with
 * --bidirectional port B queue i to port A queue i as well); its stages are
 * tasks (xio_task) that worker lcores poll in turn (xio_lcore), so several
 * stages, of either direction, can share one lcore. rtc mode has one
 * task per queue (rx, process, tx); pipeline mode three (rx, work, tx)
 * joined by single-producer/single-consumer rings. A task never blocks: what
 * it cannot pass on yet (full ring, partial TX) it holds and retries first,
 * and it takes no new input meanwhile (backpressure).
 *
 * Counters: each task's xio_task_stats lives in the task's own cache lines
 * and each lcore's timing and hardware counters in its xio_lcore, written
 * only by the lcore that polls them, without atomics; readers (the main
 * lcore, telemetry) load them relaxed. Per burst: a sum of pkt_len, a
 * histogram bucket, a ring occupancy from the ring call's own return
 * values, and one rte_rdtsc() after each poll (xio_lcore_main).
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
#include "xio_hwcounters.h"
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

/* Burst fill histogram: bucket b counts the bursts of 2^b to 2^(b+1) - 1
 * frames (1, 2-3, 4-7, ..., 256-511, 512). */
#define XIO_BURST_BUCKETS 10

static inline unsigned xio_burst_bucket(unsigned n)
{
	return 31u - (unsigned)__builtin_clz(n); /* n in 1..XIO_MAX_BURST */
}

/* Per task, written only by the lcore that polls it. */
struct xio_task_stats {
	uint64_t packets;         /* mbufs taken in (rx, dequeue) */
	uint64_t bytes;           /* their pkt_len */
	uint64_t bursts;          /* polls that took packets in */
	uint64_t empty_polls;     /* polls that found nothing */
	uint64_t busy_cycles;     /* TSC cycles of the polls that moved frames */
	uint64_t burst_hist[XIO_BURST_BUCKETS];
	uint64_t abandoned;       /* tx: freed unsent after the drain timeout */
	uint64_t abandoned_bytes;
	uint32_t ring_in_hwm;     /* most entries seen in t->in at a dequeue */
	uint32_t ring_out_hwm;    /* most entries seen in t->out after an enqueue */
};

struct xio_queue;

struct xio_task {
	bool (*poll)(struct xio_task *t); /* true when it moved frames */
	struct xio_queue *q;
	const struct xio_task *upstream; /* the task that fills in */
	struct rte_ring *in;             /* pipeline mode */
	struct rte_ring *out;
	enum xio_task_kind kind;
	unsigned lcore;
	bool done;                       /* nothing left to do: read with acquire */
	/* Written every burst: on cache lines of their own, away from done
	 * and the read-mostly fields the other lcores poll. */
	struct xio_task_stats stats __rte_cache_aligned;
	struct xio_held held;
} __rte_cache_aligned;

struct xio_dp;

/* One RX queue's pipeline: rx_port queue qid to tx_port queue qid, in
 * direction dir (0 a_to_b, 1 b_to_a: xio_direction_name). */
struct xio_queue {
	struct xio_dp *dp;
	uint16_t rx_port;
	uint16_t tx_port;
	uint16_t qid;
	uint16_t burst;
	uint8_t dir;
	struct xio_mbuf_ctx mctx;
	uint64_t last_rx_tsc;            /* rx: last burst, or last poll under backpressure */
	uint64_t last_empty_tsc;         /* rx: last poll that found nothing */
	struct rte_ring *rings[2];       /* pipeline mode: rx->work, work->tx */
	unsigned ntasks;
	struct xio_task tasks[3];
	struct xio_counters counters;    /* the processing task's */
} __rte_cache_aligned;

/* A worker lcore: its tasks, and what only it writes: when its loop ran
 * (TSC; end_tsc 0 while running) and its hardware counters. */
struct xio_lcore {
	struct xio_dp *dp;
	unsigned ntasks;
	struct xio_task *tasks[3 * XIO_MAX_DIRS * XIO_MAX_QUEUES];
	uint64_t start_tsc;
	uint64_t end_tsc;
	struct xio_hwcounters hw;
} __rte_cache_aligned;

/* The whole run: queues (the a_to_b ones, then the b_to_a ones), lcore
 * plan and the stop flags the main lcore sets. */
struct xio_dp {
	const struct xio_config *cfg;
	unsigned nq;
	unsigned ndirs;     /* 2 with --bidirectional, else 1 */
	struct xio_queue *q[XIO_MAX_DIRS * XIO_MAX_QUEUES];
	int quit;    /* stop receiving, pass on what is held, finish */
	int abandon; /* drain timed out: TX frees what it cannot send */
	uint64_t start_tsc;
	int hw_failed;      /* an lcore could not open its hardware counters */
	char hw_why[128];   /* why, written by the first lcore that failed */
	/* Frames a port lost where its ethdev counters do not look (DPDK
	 * 22.11's net_af_packet: its kernel rings), a total that the port's
	 * imissed includes; set by the driver (NULL: none), called from the
	 * main lcore or the telemetry thread, never the data path. */
	uint64_t (*port_missed)(const struct xio_dp *dp, uint16_t port);
	void *driver;       /* the driver's run, for port_missed */
	struct xio_lcore lcores[RTE_MAX_LCORE];
};

static inline bool xio_dp_quitting(const struct xio_dp *dp)
{
	return XIO_LOAD(dp->quit) != 0;
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
	XIO_STORE(q->last_rx_tsc, rte_rdtsc());
}

/* Counts a burst of n (>= 1) frames taken in. */
static inline void xio_task_count_in(struct xio_task *t, struct rte_mbuf *const *pkts, unsigned n)
{
	struct xio_task_stats *s = &t->stats;
	uint64_t bytes = 0;

	for (unsigned i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	XIO_ADD(s->packets, n);
	XIO_ADD(s->bytes, bytes);
	XIO_ADD(s->bursts, 1);
	XIO_ADD(s->burst_hist[xio_burst_bucket(n)], 1);
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
		XIO_ADD(t->stats.empty_polls, 1);
		XIO_STORE(q->last_empty_tsc, rte_rdtsc());
		return 0;
	}
	xio_queue_mark_rx(q);
	xio_task_count_in(t, h->pkts, n);
	h->head = 0;
	h->n = n;
	return n;
}

/* Puts task t on lcore id's poll list. */
void xio_dp_assign(struct xio_dp *dp, struct xio_task *t, unsigned lcore);

/* Worker lcore body (rte_eal_remote_launch): opens its hardware counters,
 * polls its tasks until all are done (busy cycles to the task whose poll
 * moved frames), reads the counters. */
int xio_lcore_main(void *arg);

/* Transmits what t holds on its queue's TX port (what the queue takes now);
 * after the drain timeout, frees and counts it instead. Returns how many
 * frames left t. */
unsigned xio_task_tx_held(struct xio_task *t);

/* Enqueues what t holds on t->out (what fits now). Returns how many. */
unsigned xio_task_enqueue_held(struct xio_task *t);

/* True when every task of the run is done. */
bool xio_dp_all_done(const struct xio_dp *dp);

/* Sums the queues' counters; frames abandoned at the drain timeout move
 * from transmitted to dropped. */
void xio_dp_counters(const struct xio_dp *dp, struct xio_counters *sum);

/* The same over the queues of direction dir only. */
void xio_dp_dir_counters(const struct xio_dp *dp, unsigned dir, struct xio_counters *sum);

/* The newest RX timestamp (TSC) over the queues, 0 when none came yet. */
uint64_t xio_dp_last_rx(const struct xio_dp *dp);

/* For --idle-exit: how long every queue has been polling and finding
 * nothing since its last frame (or since start, before its first), in TSC
 * ticks. Time a worker spends descheduled does not count: on a loaded
 * machine the main lcore must not mistake a worker that is not running
 * for an idle port. */
uint64_t xio_dp_idle_tsc(const struct xio_dp *dp, uint64_t start);

/* Mode plans: create what the mode needs (rings) and put its tasks on the
 * EAL's worker lcores. 0, or -1 after logging why. */
int xio_rtc_plan(struct xio_dp *dp);
int xio_pipeline_plan(struct xio_dp *dp);
void xio_pipeline_free(struct xio_dp *dp);

#endif /* XIO_WORKER_H */
