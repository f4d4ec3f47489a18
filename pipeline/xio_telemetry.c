/* SPDX-License-Identifier: BSD-3-Clause
 * xio_telemetry.c: the /xio/... telemetry commands (xio_telemetry.h). They
 * run on the EAL's telemetry thread; a mutex between them and
 * xio_telemetry_attach keeps the run from being freed under a reply. The
 * workers never take it.
 */
#include <pthread.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "xio_dp_stats.h"
#include "xio_log.h"
#include "xio_port_stats.h"
#include "xio_run.h"
#include "xio_telemetry.h"
#include "xio_wire.h"

static pthread_mutex_t xio_tel_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct xio_dp *xio_tel_dp;

void xio_telemetry_attach(const struct xio_dp *dp)
{
	pthread_mutex_lock(&xio_tel_lock);
	xio_tel_dp = dp;
	pthread_mutex_unlock(&xio_tel_lock);
}

/* The frame counters of the table (xio_counters.h), and the payload bytes
 * the narrowing saved. */
static void xio_tel_counters(const struct xio_counters *c, struct rte_tel_data *d)
{
	unsigned n;
	const struct xio_metric *t = xio_counters_table(&n);

	for (unsigned k = 0; k < n; k++)
		if (t[k].n == 0)
			rte_tel_data_add_dict_u64(d, t[k].name, xio_metric_get(&t[k], c, 0));
	rte_tel_data_add_dict_u64(d, "payload_bytes_saved", 2 * c->tokens_narrowed);
}

/* The elements of the table's array named name (reasons, drops). */
static void xio_tel_array(const struct xio_counters *c, const char *name, struct rte_tel_data *d)
{
	unsigned n;
	const struct xio_metric *t = xio_counters_table(&n);

	for (unsigned k = 0; k < n; k++)
		if (t[k].n != 0 && strcmp(t[k].name, name) == 0)
			for (unsigned i = 0; i < t[k].n; i++)
				if (t[k].label(i))
					rte_tel_data_add_dict_u64(d, t[k].label(i),
								  xio_metric_get(&t[k], c, i));
}

static int xio_tel_stats(const struct xio_dp *dp, const char *params, struct rte_tel_data *d)
{
	const struct xio_config *cfg = dp->cfg;
	uint64_t hz = rte_get_tsc_hz();
	struct xio_counters c;

	(void)params;
	xio_dp_counters(dp, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "driver", "dpdk");
	rte_tel_data_add_dict_string(d, "mode", cfg->mode == XIO_MODE_PIPELINE ? "pipeline" : "rtc");
	rte_tel_data_add_dict_u64(d, "rx_queues", cfg->rxq);
	rte_tel_data_add_dict_u64(d, "burst", cfg->burst);
	rte_tel_data_add_dict_u64(d, "running", !xio_dp_quitting(dp));
	rte_tel_data_add_dict_u64(d, "elapsed_ms", (rte_rdtsc() - dp->start_tsc) * 1000 / hz);
	rte_tel_data_add_dict_u64(d, "tsc_hz", hz);
	xio_tel_counters(&c, d);
	rte_tel_data_add_dict_u64(d, "long_chains", xio_dp_long_chains(dp));
	return 0;
}

/* /xio/reasons: frames per reason; with "dropped", dropped frames. */
static int xio_tel_reasons(const struct xio_dp *dp, const char *params, struct rte_tel_data *d)
{
	bool dropped = params != NULL && strcmp(params, "dropped") == 0;
	struct xio_counters c;

	if (params != NULL && *params != '\0' && !dropped)
		return -1;
	xio_dp_counters(dp, &c);
	rte_tel_data_start_dict(d);
	xio_tel_array(&c, dropped ? "drops" : "reasons", d);
	return 0;
}

/* --bidirectional: per direction, its ports, frame counters and reasons;
 * null otherwise. */
static int xio_tel_directions(const struct xio_dp *dp, const char *params,
			      struct rte_tel_data *d)
{
	struct xio_direction k[XIO_MAX_DIRS];

	(void)params;
	if (dp->ndirs < 2)
		return -1;
	xio_dp_directions(dp, k);
	rte_tel_data_start_dict(d);
	for (unsigned dir = 0; dir < dp->ndirs; dir++) {
		struct rte_tel_data *c = rte_tel_data_alloc(), *r = rte_tel_data_alloc();

		if (c == NULL || r == NULL) {
			rte_tel_data_free(c);
			rte_tel_data_free(r);
			return -1;
		}
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "rx_port", k[dir].rx_port);
		rte_tel_data_add_dict_u64(c, "tx_port", k[dir].tx_port);
		xio_tel_counters(&k[dir].c, c);
		rte_tel_data_start_dict(r);
		xio_tel_array(&k[dir].c, "reasons", r);
		if (rte_tel_data_add_dict_container(c, "reasons", r, 0) != 0)
			rte_tel_data_free(r);
		if (rte_tel_data_add_dict_container(d, xio_direction_name(dir), c, 0) != 0) {
			rte_tel_data_free(c);
			return -1;
		}
	}
	return 0;
}

/* The counters every task shows in /xio/stages. */
static void xio_tel_task_summary(const struct xio_task *t, const struct xio_task_stats *s,
				 struct rte_tel_data *d)
{
	if (t->q->dp->ndirs > 1)
		rte_tel_data_add_dict_string(d, "direction", xio_direction_name(t->q->dir));
	rte_tel_data_add_dict_string(d, "stage", xio_task_kind_name(t->kind));
	rte_tel_data_add_dict_u64(d, "queue", t->q->qid);
	rte_tel_data_add_dict_u64(d, "lcore", t->lcore);
	rte_tel_data_add_dict_u64(d, "packets", s->packets);
	rte_tel_data_add_dict_u64(d, "bytes", s->bytes);
	rte_tel_data_add_dict_u64(d, "bursts", s->bursts);
	rte_tel_data_add_dict_u64(d, "empty_polls", s->empty_polls);
	rte_tel_data_add_dict_u64(d, "busy_cycles", s->busy_cycles);
	rte_tel_data_add_dict_u64(d, "cycles_per_packet",
				  (uint64_t)(xio_task_cycles_per_packet(s) + 0.5));
	rte_tel_data_add_dict_u64(d, "dropped", xio_task_dropped(t, s));
}

/* Adds a dict built by fill under name; 0 or -1. */
static int xio_tel_add_dict(struct rte_tel_data *d, const char *name,
			    void (*fill)(const struct xio_task *, const struct xio_task_stats *,
					 struct rte_tel_data *),
			    const struct xio_task *t, const struct xio_task_stats *s)
{
	struct rte_tel_data *c = rte_tel_data_alloc();

	if (c == NULL)
		return -1;
	rte_tel_data_start_dict(c);
	fill(t, s, c);
	if (rte_tel_data_add_dict_container(d, name, c, 0) != 0) {
		rte_tel_data_free(c);
		return -1;
	}
	return 0;
}

static void xio_tel_histogram(const struct xio_task *t, const struct xio_task_stats *s,
			      struct rte_tel_data *d)
{
	(void)t;
	for (unsigned b = 0; b < XIO_BURST_BUCKETS; b++)
		rte_tel_data_add_dict_u64(d, xio_burst_bucket_name(b), s->burst_hist[b]);
}

static void xio_tel_drops(const struct xio_task *t, const struct xio_task_stats *s,
			  struct rte_tel_data *d)
{
	for (unsigned r = 0; r < XIO_R_COUNT; r++)
		rte_tel_data_add_dict_u64(d, xio_reason_name((enum xio_reason)r),
					  xio_task_drops(t, r));
	rte_tel_data_add_dict_u64(d, "abandoned", s->abandoned);
}

/* /xio/stages,NAME: everything about one task. */
static int xio_tel_task(const struct xio_task *t, struct rte_tel_data *d)
{
	struct xio_task_stats s;

	xio_task_snapshot(t, &s);
	rte_tel_data_start_dict(d);
	xio_tel_task_summary(t, &s, d);
	rte_tel_data_add_dict_u64(d, "abandoned", s.abandoned);
	rte_tel_data_add_dict_u64(d, "abandoned_bytes", s.abandoned_bytes);
	if (t->in != NULL) {
		rte_tel_data_add_dict_u64(d, "ring_in_capacity", rte_ring_get_capacity(t->in));
		rte_tel_data_add_dict_u64(d, "ring_in_high_water", s.ring_in_hwm);
	}
	if (t->out != NULL) {
		rte_tel_data_add_dict_u64(d, "ring_out_capacity", rte_ring_get_capacity(t->out));
		rte_tel_data_add_dict_u64(d, "ring_out_high_water", s.ring_out_hwm);
	}
	if (xio_tel_add_dict(d, "burst_histogram", xio_tel_histogram, t, &s) < 0 ||
	    xio_tel_add_dict(d, "drops", xio_tel_drops, t, &s) < 0)
		return -1;
	return 0;
}

/* /xio/stages: every task's summary under its name; with a name, that
 * task in full. */
static int xio_tel_stages(const struct xio_dp *dp, const char *params, struct rte_tel_data *d)
{
	struct xio_task_stats s;
	char name[32];

	if (params != NULL && *params != '\0') {
		const struct xio_task *t = xio_dp_find_task(dp, params);

		return t != NULL ? xio_tel_task(t, d) : -1;
	}
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < dp->nq; i++)
		for (unsigned j = 0; j < dp->q[i]->ntasks; j++) {
			const struct xio_task *t = &dp->q[i]->tasks[j];

			xio_task_snapshot(t, &s);
			xio_task_name(t, name, sizeof(name));
			if (xio_tel_add_dict(d, name, xio_tel_task_summary, t, &s) < 0)
				return -1;
		}
	return 0;
}

/* /xio/lcores: per worker lcore ("lcore_1"), its tasks' busy cycles and
 * the cycles its loop has run. */
static int xio_tel_lcores(const struct xio_dp *dp, const char *params, struct rte_tel_data *d)
{
	struct xio_lcore_sum s;
	char name[32];

	(void)params;
	rte_tel_data_start_dict(d);
	for (unsigned lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		struct rte_tel_data *c;

		if (dp->lcores[lcore].ntasks == 0)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			return -1;
		xio_lcore_sum(dp, lcore, &s);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "stages", dp->lcores[lcore].ntasks);
		rte_tel_data_add_dict_u64(c, "packets", s.packets);
		rte_tel_data_add_dict_u64(c, "busy_cycles", s.busy_cycles);
		rte_tel_data_add_dict_u64(c, "run_cycles", s.run_cycles);
		snprintf(name, sizeof(name), "lcore_%u", lcore);
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0) {
			rte_tel_data_free(c);
			return -1;
		}
	}
	return 0;
}

/* /xio/ports: per port id ("0"), the ethdev counters of the stats JSON's
 * "ports" block. */
static int xio_tel_ports(const struct xio_dp *dp, const char *params, struct rte_tel_data *d)
{
	uint16_t ids[XIO_RUN_MAX_PORTS];
	unsigned np = xio_dp_ports(dp, ids);
	char key[8];

	(void)params;
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < np; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c == NULL)
			return -1;
		rte_tel_data_start_dict(c);
		xio_port_stats_tel(dp, ids[i], c);
		snprintf(key, sizeof(key), "%u", ids[i]);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0) {
			rte_tel_data_free(c);
			return -1;
		}
	}
	return 0;
}

static const struct {
	const char *cmd;
	int (*fn)(const struct xio_dp *dp, const char *params, struct rte_tel_data *d);
	const char *help;
} xio_tel_cmds[] = {
	{ "/xio/stats", xio_tel_stats, "xio-pipeline counters. No parameters" },
	{ "/xio/reasons", xio_tel_reasons,
	  "Frames per XIO reason. Parameter: none, or 'dropped' for dropped frames" },
	{ "/xio/stages", xio_tel_stages,
	  "Counters per stage. Parameter: none, or a stage name (q0_rtc, q0_rx, q0_work, q0_tx)" },
	{ "/xio/lcores", xio_tel_lcores, "Busy and run TSC cycles per worker lcore. No parameters" },
	{ "/xio/ports", xio_tel_ports,
	  "Ethdev counters (imissed, ierrors, rx_nombuf, oerrors, ...) per port. No parameters" },
	{ "/xio/directions", xio_tel_directions,
	  "Counters per direction of a --bidirectional run. No parameters" },
};

/* Every command goes through here: the run, under the lock. */
static int xio_tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -1;

	pthread_mutex_lock(&xio_tel_lock);
	for (unsigned i = 0; xio_tel_dp != NULL && i < RTE_DIM(xio_tel_cmds); i++)
		if (strcmp(cmd, xio_tel_cmds[i].cmd) == 0)
			rc = xio_tel_cmds[i].fn(xio_tel_dp, params, d);
	pthread_mutex_unlock(&xio_tel_lock);
	return rc;
}

void xio_telemetry_register(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (unsigned i = 0; i < RTE_DIM(xio_tel_cmds); i++)
		if (rte_telemetry_register_cmd(xio_tel_cmds[i].cmd, xio_tel_dispatch,
					       xio_tel_cmds[i].help) != 0)
			XIO_LOG(NOTICE, "telemetry: cannot register %s", xio_tel_cmds[i].cmd);
}
