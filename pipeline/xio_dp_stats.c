/* SPDX-License-Identifier: BSD-3-Clause
 * xio_dp_stats.c: the data path's counters per task and per lcore, read
 * without locks, and their JSON and stats-line forms (xio_dp_stats.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ring.h>

#include "xio_dp_stats.h"
#include "xio_wire.h"

#define XIO_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Appends to p[0..len) at *n, like snprintf, keeping *n the would-be length. */
#define XIO_PUT(p, len, n, ...) \
	((n) += (size_t)snprintf((p) + (n), (n) < (len) ? (len) - (n) : 0, __VA_ARGS__))

static const char *const xio_kind_names[] = { "rtc", "rx", "work", "tx" };

static const char *const xio_bucket_names[XIO_BURST_BUCKETS] = {
	"1", "2_3", "4_7", "8_15", "16_31", "32_63", "64_127", "128_255", "256_511", "512",
};

const char *xio_task_kind_name(enum xio_task_kind k)
{
	return (unsigned)k < RTE_DIM(xio_kind_names) ? xio_kind_names[k] : "unknown";
}

void xio_task_name(const struct xio_task *t, char *buf, size_t len)
{
	const struct xio_queue *q = t->q;

	if (q->dp->ndirs > 1)
		snprintf(buf, len, "%s_q%u_%s", xio_direction_name(q->dir), q->qid,
			 xio_task_kind_name(t->kind));
	else
		snprintf(buf, len, "q%u_%s", q->qid, xio_task_kind_name(t->kind));
}

const struct xio_task *xio_dp_find_task(const struct xio_dp *dp, const char *name)
{
	char buf[32];

	for (unsigned i = 0; i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++) {
			xio_task_name(&dp->q[i]->tasks[j], buf, sizeof(buf));
			if (strcmp(buf, name) == 0)
				return &dp->q[i]->tasks[j];
		}
	return NULL;
}

const char *xio_burst_bucket_name(unsigned b)
{
	return b < XIO_BURST_BUCKETS ? xio_bucket_names[b] : "unknown";
}

void xio_task_snapshot(const struct xio_task *t, struct xio_task_stats *s)
{
	const struct xio_task_stats *src = &t->stats;

	s->packets = XIO_LOAD(src->packets);
	s->bytes = XIO_LOAD(src->bytes);
	s->bursts = XIO_LOAD(src->bursts);
	s->empty_polls = XIO_LOAD(src->empty_polls);
	s->busy_cycles = XIO_LOAD(src->busy_cycles);
	for (unsigned b = 0; b < XIO_BURST_BUCKETS; b++)
		s->burst_hist[b] = XIO_LOAD(src->burst_hist[b]);
	s->abandoned = XIO_LOAD(src->abandoned);
	s->abandoned_bytes = XIO_LOAD(src->abandoned_bytes);
	s->ring_in_hwm = XIO_LOAD(src->ring_in_hwm);
	s->ring_out_hwm = XIO_LOAD(src->ring_out_hwm);
}

uint64_t xio_task_drops(const struct xio_task *t, unsigned r)
{
	if (t->kind != XIO_TASK_RTC && t->kind != XIO_TASK_WORK)
		return 0;
	return XIO_LOAD(t->q->counters.drops[r]);
}

uint64_t xio_task_dropped(const struct xio_task *t, const struct xio_task_stats *s)
{
	uint64_t n = s->abandoned;

	for (unsigned r = 0; r < XIO_R_COUNT; r++)
		n += xio_task_drops(t, r);
	return n;
}

double xio_task_cycles_per_packet(const struct xio_task_stats *s)
{
	return s->packets ? (double)s->busy_cycles / (double)s->packets : 0.0;
}

static bool xio_queue_on_lcore(const struct xio_queue *q, unsigned lcore)
{
	for (unsigned j = 0; j < q->ntasks; j++)
		if (q->tasks[j].lcore == lcore)
			return true;
	return false;
}

void xio_lcore_sum(const struct xio_dp *dp, unsigned lcore, struct xio_lcore_sum *s)
{
	const struct xio_lcore *l = &dp->lcores[lcore];
	uint64_t start = XIO_LOAD(l->start_tsc), end = XIO_LOAD(l->end_tsc);

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < l->ntasks; i++)
		s->busy_cycles += XIO_LOAD(l->tasks[i]->stats.busy_cycles);
	for (unsigned i = 0; i < dp->nq; i++)
		if (xio_queue_on_lcore(dp->q[i], lcore))
			s->packets += XIO_LOAD(dp->q[i]->tasks[0].stats.packets);
	if (start != 0)
		s->run_cycles = (end != 0 ? end : rte_rdtsc()) - start;
}

static size_t xio_ring_json(char *p, size_t len, const char *key, const struct rte_ring *r,
			    uint32_t hwm)
{
	size_t n = 0;

	if (r != NULL)
		XIO_PUT(p, len, n, ", \"%s\": {\"capacity\": %u, \"high_water\": %u}", key,
			rte_ring_get_capacity(r), hwm);
	return n;
}

static size_t xio_task_json(const struct xio_task *t, char *p, size_t len)
{
	struct xio_task_stats s;
	char name[32];
	size_t n = 0;

	xio_task_snapshot(t, &s);
	xio_task_name(t, name, sizeof(name));
	XIO_PUT(p, len, n, "{\"name\": \"%s\", ", name);
	if (t->q->dp->ndirs > 1)
		XIO_PUT(p, len, n, "\"direction\": \"%s\", ", xio_direction_name(t->q->dir));
	XIO_PUT(p, len, n, "\"queue\": %u, \"stage\": \"%s\", \"lcore\": %u, "
		"\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"bursts\": %" PRIu64 ", "
		"\"empty_polls\": %" PRIu64 ", \"busy_cycles\": %" PRIu64 ", "
		"\"cycles_per_packet\": %.2f, \"abandoned\": %" PRIu64, t->q->qid,
		xio_task_kind_name(t->kind), t->lcore, s.packets, s.bytes, s.bursts,
		s.empty_polls, s.busy_cycles, xio_task_cycles_per_packet(&s), s.abandoned);
	XIO_PUT(p, len, n, ",\n      \"burst_histogram\": {");
	for (unsigned b = 0; b < XIO_BURST_BUCKETS; b++)
		XIO_PUT(p, len, n, "%s\"%s\": %" PRIu64, b ? ", " : "", xio_bucket_names[b],
			s.burst_hist[b]);
	XIO_PUT(p, len, n, "}");
	n += xio_ring_json(p + n, n < len ? len - n : 0, "ring_in", t->in, s.ring_in_hwm);
	n += xio_ring_json(p + n, n < len ? len - n : 0, "ring_out", t->out, s.ring_out_hwm);
	XIO_PUT(p, len, n, ",\n      \"drops\": {");
	for (unsigned r = 0; r < XIO_R_COUNT; r++)
		XIO_PUT(p, len, n, "\"%s\": %" PRIu64 ", ", xio_reason_name((enum xio_reason)r),
			xio_task_drops(t, r));
	XIO_PUT(p, len, n, "\"abandoned\": %" PRIu64 "}}", s.abandoned);
	return n;
}

size_t xio_dp_stages_json(const struct xio_dp *dp, char *p, size_t len)
{
	size_t n = 0;
	bool first = true;

	XIO_PUT(p, len, n, ",\n  \"stages\": [");
	for (unsigned i = 0; dp != NULL && i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++) {
			XIO_PUT(p, len, n, "%s\n    ", first ? "" : ",");
			n += xio_task_json(&dp->q[i]->tasks[j], p + n, n < len ? len - n : 0);
			first = false;
		}
	XIO_PUT(p, len, n, "\n  ]");
	return n;
}

size_t xio_dp_lcores_json(const struct xio_dp *dp, char *p, size_t len)
{
	struct xio_lcore_sum s;
	char name[32];
	size_t n = 0;
	bool first = true;

	XIO_PUT(p, len, n, ",\n  \"lcores\": [");
	for (unsigned lcore = 0; dp != NULL && lcore < RTE_MAX_LCORE; lcore++) {
		const struct xio_lcore *l = &dp->lcores[lcore];

		if (l->ntasks == 0)
			continue;
		xio_lcore_sum(dp, lcore, &s);
		XIO_PUT(p, len, n, "%s\n    {\"lcore\": %u, \"stages\": [", first ? "" : ",", lcore);
		for (unsigned i = 0; i < l->ntasks; i++) {
			xio_task_name(l->tasks[i], name, sizeof(name));
			XIO_PUT(p, len, n, "%s\"%s\"", i ? ", " : "", name);
		}
		XIO_PUT(p, len, n, "], \"packets\": %" PRIu64 ", \"busy_cycles\": %" PRIu64
			", \"run_cycles\": %" PRIu64 ", \"busy_fraction\": %.4f}", s.packets,
			s.busy_cycles, s.run_cycles,
			s.run_cycles ? (double)s.busy_cycles / (double)s.run_cycles : 0.0);
		first = false;
	}
	XIO_PUT(p, len, n, "\n  ]");
	return n;
}

size_t xio_dp_hardware_json(const struct xio_dp *dp, char *p, size_t len)
{
	struct xio_lcore_sum s;
	size_t n = 0;
	bool first = true;

	if (dp == NULL || __atomic_load_n(&dp->hw_failed, __ATOMIC_ACQUIRE)) {
		XIO_PUT(p, len, n, ",\n  \"hardware\": {\"available\": false, \"reason\": \"%s\"}",
			dp != NULL ? dp->hw_why : "the run did not start");
		return n;
	}
	XIO_PUT(p, len, n, ",\n  \"hardware\": {\"available\": true, \"lcores\": [");
	for (unsigned lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		const struct xio_lcore *l = &dp->lcores[lcore];

		if (l->ntasks == 0 || !l->hw.available)
			continue;
		xio_lcore_sum(dp, lcore, &s);
		XIO_PUT(p, len, n, "%s\n    {\"lcore\": %u, \"packets\": %" PRIu64 ", ",
			first ? "" : ",", lcore, s.packets);
		n += (size_t)xio_hw_format_json(p + n, n < len ? len - n : 0, &l->hw, s.packets);
		XIO_PUT(p, len, n, "}");
		first = false;
	}
	XIO_PUT(p, len, n, "\n  ]}");
	return n;
}

size_t xio_dp_directions_json(const struct xio_dp *dp, char *p, size_t len)
{
	struct xio_counters c;
	size_t n = 0;

	if (dp == NULL || dp->ndirs < 2)
		return 0;
	XIO_PUT(p, len, n, ",\n  \"directions\": {");
	for (unsigned d = 0; d < dp->ndirs; d++) {
		const struct xio_queue *q = NULL;

		for (unsigned i = 0; i < dp->nq && q == NULL; i++)
			if (dp->q[i]->dir == d)
				q = dp->q[i];
		xio_dp_dir_counters(dp, d, &c);
		XIO_PUT(p, len, n, "%s\n    \"%s\": {\"rx_port\": %u, \"tx_port\": %u, ",
			d ? "," : "", xio_direction_name(d), q ? q->rx_port : 0, q ? q->tx_port : 0);
		n += xio_counters_json_members(p + n, n < len ? len - n : 0, &c);
		XIO_PUT(p, len, n, "}");
	}
	XIO_PUT(p, len, n, "\n  }");
	return n;
}

void xio_dp_sample(const struct xio_dp *dp, struct xio_dp_sample *s)
{
	unsigned k = 0;

	for (unsigned i = 0; i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++, k++) {
			s->busy_cycles[k] = XIO_LOAD(dp->q[i]->tasks[j].stats.busy_cycles);
			s->packets[k] = XIO_LOAD(dp->q[i]->tasks[j].stats.packets);
		}
}

void xio_dp_cycles_line(const struct xio_dp *dp, const struct xio_dp_sample *now,
			const struct xio_dp_sample *prev, char *p, size_t len)
{
	char name[32];
	size_t n = 0;
	unsigned k = 0;

	XIO_PUT(p, len, n, " | cycles/pkt");
	for (unsigned i = 0; i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++, k++) {
			uint64_t pk = now->packets[k] - prev->packets[k];

			xio_task_name(&dp->q[i]->tasks[j], name, sizeof(name));
			if (pk == 0)
				XIO_PUT(p, len, n, " %s -", name);
			else
				XIO_PUT(p, len, n, " %s %" PRIu64, name,
					(now->busy_cycles[k] - prev->busy_cycles[k]) / pk);
		}
}
