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
#include "xio_run.h"
#include "xio_wire.h"

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

uint64_t xio_dp_long_chains(const struct xio_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; dp != NULL && i < dp->nq; i++)
		n += XIO_LOAD(dp->q[i]->mctx.long_chains);
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

static void xio_ring_json(struct xio_json *j, const char *key, const struct rte_ring *r,
			  uint32_t hwm)
{
	if (r == NULL)
		return;
	xio_json_begin_object(j, key);
	xio_json_u64(j, "capacity", rte_ring_get_capacity(r));
	xio_json_u64(j, "high_water", hwm);
	xio_json_end_object(j);
}

static void xio_task_json(struct xio_json *j, const struct xio_task *t)
{
	struct xio_task_stats s;
	char name[32];

	xio_task_snapshot(t, &s);
	xio_task_name(t, name, sizeof(name));
	xio_json_begin_object(j, NULL);
	xio_json_str(j, "name", name);
	if (t->q->dp->ndirs > 1)
		xio_json_str(j, "direction", xio_direction_name(t->q->dir));
	xio_json_u64(j, "queue", t->q->qid);
	xio_json_str(j, "stage", xio_task_kind_name(t->kind));
	xio_json_u64(j, "lcore", t->lcore);
	xio_json_u64(j, "packets", s.packets);
	xio_json_u64(j, "bytes", s.bytes);
	xio_json_u64(j, "bursts", s.bursts);
	xio_json_u64(j, "empty_polls", s.empty_polls);
	xio_json_u64(j, "busy_cycles", s.busy_cycles);
	xio_json_double(j, "cycles_per_packet", xio_task_cycles_per_packet(&s), 2);
	xio_json_u64(j, "abandoned", s.abandoned);
	xio_json_begin_object(j, "burst_histogram");
	for (unsigned b = 0; b < XIO_BURST_BUCKETS; b++)
		xio_json_u64(j, xio_bucket_names[b], s.burst_hist[b]);
	xio_json_end_object(j);
	xio_ring_json(j, "ring_in", t->in, s.ring_in_hwm);
	xio_ring_json(j, "ring_out", t->out, s.ring_out_hwm);
	xio_json_begin_object(j, "drops");
	for (unsigned r = 0; r < XIO_R_COUNT; r++)
		xio_json_u64(j, xio_reason_name((enum xio_reason)r), xio_task_drops(t, r));
	xio_json_u64(j, "abandoned", s.abandoned);
	xio_json_end_object(j);
	xio_json_end_object(j);
}

void xio_dp_stages_json(const struct xio_dp *dp, struct xio_json *j)
{
	xio_json_begin_array(j, "stages");
	for (unsigned i = 0; dp != NULL && i < dp->nq; i++)
		for (unsigned k = 0; k < dp->q[i]->ntasks; k++)
			xio_task_json(j, &dp->q[i]->tasks[k]);
	xio_json_end_array(j);
}

void xio_dp_lcores_json(const struct xio_dp *dp, struct xio_json *j)
{
	struct xio_lcore_sum s;
	char name[32];

	xio_json_begin_array(j, "lcores");
	for (unsigned lcore = 0; dp != NULL && lcore < RTE_MAX_LCORE; lcore++) {
		const struct xio_lcore *l = &dp->lcores[lcore];

		if (l->ntasks == 0)
			continue;
		xio_lcore_sum(dp, lcore, &s);
		xio_json_begin_object(j, NULL);
		xio_json_u64(j, "lcore", lcore);
		xio_json_begin_array(j, "stages");
		for (unsigned i = 0; i < l->ntasks; i++) {
			xio_task_name(l->tasks[i], name, sizeof(name));
			xio_json_str(j, NULL, name);
		}
		xio_json_end_array(j);
		xio_json_u64(j, "packets", s.packets);
		xio_json_u64(j, "busy_cycles", s.busy_cycles);
		xio_json_u64(j, "run_cycles", s.run_cycles);
		xio_json_double(j, "busy_fraction",
				s.run_cycles ? (double)s.busy_cycles / (double)s.run_cycles : 0.0, 4);
		xio_json_end_object(j);
	}
	xio_json_end_array(j);
}

void xio_dp_hardware_json(const struct xio_dp *dp, struct xio_json *j)
{
	struct xio_lcore_sum s;

	xio_json_begin_object(j, "hardware");
	if (dp == NULL || __atomic_load_n(&dp->hw_failed, __ATOMIC_ACQUIRE)) {
		xio_json_bool(j, "available", false);
		xio_json_str(j, "reason", dp != NULL ? dp->hw_why : "the run did not start");
		xio_json_end_object(j);
		return;
	}
	xio_json_bool(j, "available", true);
	xio_json_begin_array(j, "lcores");
	for (unsigned lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		const struct xio_lcore *l = &dp->lcores[lcore];

		if (l->ntasks == 0 || !l->hw.available)
			continue;
		xio_lcore_sum(dp, lcore, &s);
		xio_json_begin_object(j, NULL);
		xio_json_u64(j, "lcore", lcore);
		xio_json_u64(j, "packets", s.packets);
		xio_hw_json(j, &l->hw, s.packets);
		xio_json_end_object(j);
	}
	xio_json_end_array(j);
	xio_json_end_object(j);
}

void xio_dp_directions(const struct xio_dp *dp, struct xio_direction *d)
{
	for (unsigned dir = 0; dir < dp->ndirs; dir++) {
		const struct xio_queue *q = dp->q[dir * (dp->nq / dp->ndirs)];

		memset(&d[dir], 0, sizeof(d[dir]));
		xio_dp_dir_counters(dp, dir, &d[dir].c);
		d[dir].rx_port = q->rx_port;
		d[dir].tx_port = q->tx_port;
	}
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
			const struct xio_dp_sample *prev, struct xio_buf *b)
{
	char name[32];
	unsigned k = 0;

	xio_buf_puts(b, " | cycles/pkt");
	for (unsigned i = 0; i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++, k++) {
			uint64_t pk = now->packets[k] - prev->packets[k];

			xio_task_name(&dp->q[i]->tasks[j], name, sizeof(name));
			if (pk == 0)
				xio_buf_printf(b, " %s -", name);
			else
				xio_buf_printf(b, " %s %" PRIu64, name,
					       (now->busy_cycles[k] - prev->busy_cycles[k]) / pk);
		}
}
