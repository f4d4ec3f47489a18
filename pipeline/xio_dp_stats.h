/* SPDX-License-Identifier: BSD-3-Clause
 * xio_dp_stats.h: reading the DPDK data path's counters while it runs or
 * once it is done: per task (stage) and per lcore, with relaxed loads and
 * no lock, and writing them as the stats JSON's "stages", "lcores" and
 * "hardware" members and the stats line's cycles per packet. The stats
 * JSON (docs/operations.md) and telemetry (xio_telemetry.c) read them
 * through here, so both say the same.
 */
#ifndef XIO_DP_STATS_H
#define XIO_DP_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "xio_buf.h"
#include "xio_json.h"
#include "xio_worker.h"

/* "rtc", "rx", "work" or "tx". */
const char *xio_task_kind_name(enum xio_task_kind k);

/* The task's name, "q<queue>_<kind>" (q0_rtc, q1_work), with
 * --bidirectional "<direction>_q<queue>_<kind>" (a_to_b_q0_rtc,
 * b_to_a_q0_rtc): a telemetry key. */
void xio_task_name(const struct xio_task *t, char *buf, size_t len);

/* The task named name, or NULL. */
const struct xio_task *xio_dp_find_task(const struct xio_dp *dp, const char *name);

/* A burst histogram bucket's label: "1", "2_3", ..., "256_511", "512". */
const char *xio_burst_bucket_name(unsigned b);

/* A copy of a task's counters, loaded relaxed (the task's lcore may be
 * adding to them). */
void xio_task_snapshot(const struct xio_task *t, struct xio_task_stats *s);

/* Frames of reason r the task dropped: the processing task (rtc, work)
 * owns its queue's drops; rx and tx drop only what they abandon. */
uint64_t xio_task_drops(const struct xio_task *t, unsigned r);

/* All the task dropped: every reason plus abandoned. */
uint64_t xio_task_dropped(const struct xio_task *t, const struct xio_task_stats *s);

/* Frames that took the scratch path (chains too long), all queues. */
uint64_t xio_dp_long_chains(const struct xio_dp *dp);

/* busy_cycles / packets, 0 without packets. */
double xio_task_cycles_per_packet(const struct xio_task_stats *s);

/* Per lcore: frames of the queues it serves (their first task's packets),
 * busy cycles of its tasks, and TSC cycles its loop has run. */
struct xio_lcore_sum {
	uint64_t packets;
	uint64_t busy_cycles;
	uint64_t run_cycles;
};
void xio_lcore_sum(const struct xio_dp *dp, unsigned lcore, struct xio_lcore_sum *s);

/* The stats JSON's "stages", "lcores" and "hardware" members. */
void xio_dp_stages_json(const struct xio_dp *dp, struct xio_json *j);
void xio_dp_lcores_json(const struct xio_dp *dp, struct xio_json *j);
void xio_dp_hardware_json(const struct xio_dp *dp, struct xio_json *j);

/* Each direction's counters and ports (dp->ndirs of them). */
struct xio_direction;
void xio_dp_directions(const struct xio_dp *dp, struct xio_direction *d);

/* Busy cycles and packets of every task, in queue and stage order, for the
 * stats line's interval figures. */
struct xio_dp_sample {
	uint64_t busy_cycles[3 * XIO_MAX_DIRS * XIO_MAX_QUEUES];
	uint64_t packets[3 * XIO_MAX_DIRS * XIO_MAX_QUEUES];
};
void xio_dp_sample(const struct xio_dp *dp, struct xio_dp_sample *s);

/* " | cycles/pkt q0_rx 41 q0_work 312 q0_tx 58" over the interval from prev
 * to now ("-" for a task that took nothing in), appended to b. */
void xio_dp_cycles_line(const struct xio_dp *dp, const struct xio_dp_sample *now,
			const struct xio_dp_sample *prev, struct xio_buf *b);

#endif /* XIO_DP_STATS_H */
