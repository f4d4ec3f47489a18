/* SPDX-License-Identifier: BSD-3-Clause
 * xio_dpdk.c: one xio-pipeline run on DPDK (xio_dpdk.h). The main lcore
 * only sets up, watches and tears down; the data path runs on the worker
 * lcores (pipeline/xio_worker.h), one direction (--rx-port to --tx-port)
 * or, with --bidirectional, both, under the run layer (pipeline/xio_run.h).
 * A stop (signal, --duration, --idle-exit) makes RX stop, every ring and
 * held burst drain to TX, then the ports stop and close so that net_pcap
 * flushes its output file.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "xio_dp_stats.h"
#include "xio_dpdk.h"
#include "xio_ethdev.h"
#include "xio_log.h"
#include "xio_port_stats.h"
#include "xio_run.h"
#include "xio_telemetry.h"
#include "xio_worker.h"

#define XIO_CONTROL_PERIOD_US 1000

struct xio_run {
	const struct xio_config *cfg;
	struct xio_port ports[2];
	unsigned nports;
	unsigned ndirs;        /* 2 with --bidirectional */
	struct rte_mempool *pool;
	unsigned nb_mbufs;
	uint32_t data_room;
	struct xio_dp *dp;
	uint64_t start_tsc;
	struct xio_dp_sample sample; /* the stats line's last */
};

int xio_dpdk_open(const struct xio_config *cfg, int argc, char **argv, char *why, size_t len)
{
	if (rte_eal_init(argc, argv) < 0) {
		snprintf(why, len, "the DPDK EAL cannot start (%s; the EAL lines above say why)",
			 rte_strerror(rte_errno));
		return XIO_DPDK_UNAVAILABLE;
	}
	if (cfg->list_ports)
		return XIO_DPDK_OK;
	xio_telemetry_register();
	if (rte_eth_dev_count_avail() == 0) {
		snprintf(why, len, "the DPDK EAL found no port");
		rte_eal_cleanup();
		return XIO_DPDK_UNAVAILABLE;
	}
	return XIO_DPDK_OK;
}

void xio_dpdk_list_ports(void)
{
	xio_ethdev_list(stdout);
}

void xio_dpdk_close(void)
{
	rte_eal_cleanup();
}

/* Enough mbufs for every place one can wait: for each direction, RX and
 * TX descriptors, the rings and the bursts the tasks hold; and the per-lcore
 * mempool caches. */
static unsigned xio_run_nb_mbufs(const struct xio_run *r)
{
	const struct xio_config *cfg = r->cfg;
	unsigned per_q = 0, n;

	for (unsigned d = 0; d < r->ndirs; d++) {
		const struct xio_port *rx = &r->ports[d], *tx = &r->ports[r->nports - 1 - d];

		per_q += xio_ethdev_rx_hold(rx) + tx->nb_txd + 3u * cfg->burst;
		if (cfg->mode == XIO_MODE_PIPELINE)
			per_q += 2 * cfg->ring_size;
	}
	n = cfg->rxq * per_q + rte_lcore_count() * 384u;
	return n < 2047 ? 2047 : n;
}

/* Ports on Linux interfaces lose frames that do not fit their PMD: every
 * port must take the largest frame any receiving port can bring. */
static int xio_run_check_frames(const struct xio_run *r)
{
	uint32_t max_in = 0;

	for (unsigned i = 0; i < r->nports; i++)
		if (r->ports[i].nb_rxq > 0)
			max_in = RTE_MAX(max_in, xio_ethdev_max_frame(&r->ports[i]));
	for (unsigned i = 0; i < r->nports; i++)
		if (xio_ethdev_iface_check(&r->ports[i], r->data_room, max_in) < 0)
			return -1;
	return 0;
}

/* ports[0] is --rx-port (A), ports[1] --tx-port (B) when it differs; A
 * receives and B transmits, and with --bidirectional both do both. */
static int xio_run_ports(struct xio_run *r)
{
	const struct xio_config *cfg = r->cfg;

	memset(r->ports, 0, sizeof(r->ports));
	r->ports[0].id = cfg->rx_port;
	r->ports[0].nb_rxq = cfg->rxq;
	r->nports = 1;
	r->ndirs = 1;
	if (cfg->tx_port == cfg->rx_port) {
		if (cfg->bidirectional) {
			XIO_LOG(ERR, "--bidirectional needs two ports: --rx-port A --tx-port B "
				"(both are port %u)", cfg->rx_port);
			return -1;
		}
		r->ports[0].nb_txq = cfg->rxq;
	} else {
		r->ports[1].id = cfg->tx_port;
		r->ports[1].nb_txq = cfg->rxq;
		r->nports = 2;
		if (cfg->bidirectional) {
			r->ports[0].nb_txq = cfg->rxq;
			r->ports[1].nb_rxq = cfg->rxq;
			r->ndirs = 2;
		}
	}
	for (unsigned i = 0; i < r->nports; i++)
		if (xio_ethdev_probe(&r->ports[i]) < 0)
			return -1;
	r->data_room = cfg->mbuf_size ? cfg->mbuf_size : RTE_MBUF_DEFAULT_DATAROOM;
	if (xio_run_check_frames(r) < 0)
		return -1;
	r->nb_mbufs = xio_run_nb_mbufs(r);
	r->pool = xio_ethdev_pool(r->nb_mbufs, r->data_room, r->ports[0].socket);
	if (r->pool == NULL)
		return -1;
	for (unsigned i = 0; i < r->nports; i++)
		if (xio_ethdev_setup(&r->ports[i], r->pool, r->data_room) < 0)
			return -1;
	return 0;
}

/* Workers away from the port's NUMA socket work, slowly: say so. */
static void xio_run_check_sockets(const struct xio_run *r)
{
	for (unsigned lcore = 0; lcore < RTE_MAX_LCORE; lcore++)
		if (r->dp->lcores[lcore].ntasks != 0 &&
		    rte_lcore_to_socket_id(lcore) != (unsigned)r->ports[0].socket)
			XIO_LOG(NOTICE, "lcore %u is on socket %u, port %u on socket %d: every "
				"packet crosses sockets (pick lcores of the port's socket)", lcore,
				rte_lcore_to_socket_id(lcore), r->ports[0].id, r->ports[0].socket);
}

/* The queue of direction dir, RX queue qid: ports[dir] to the other port
 * (the same one without a TX port of its own). */
static struct xio_queue *xio_run_queue(struct xio_run *r, unsigned dir, uint16_t qid)
{
	const struct xio_port *rx = &r->ports[dir], *tx = &r->ports[r->nports - 1 - dir];
	struct xio_queue *q = rte_zmalloc_socket("xio_queue", sizeof(*q), RTE_CACHE_LINE_SIZE,
						 rx->socket);

	if (q == NULL)
		return NULL;
	q->dp = r->dp;
	q->rx_port = rx->id;
	q->tx_port = tx->id;
	q->qid = qid;
	q->dir = (uint8_t)dir;
	q->burst = r->cfg->burst;
	q->mctx.stage = &r->cfg->stage;
	q->mctx.counters = &q->counters;
	q->mctx.rx_hints = rx->rx_csum;
	q->mctx.scratch = rte_malloc_socket("xio_scratch", XIO_MBUF_SCRATCH, RTE_CACHE_LINE_SIZE,
					    rx->socket);
	if (q->mctx.scratch == NULL) {
		rte_free(q);
		return NULL;
	}
	return q;
}

/* The pipeline's port_missed: what a port lost that its PMD does not count. */
static uint64_t xio_run_port_missed(const struct xio_dp *dp, uint16_t port)
{
	struct xio_run *r = dp->driver;

	for (unsigned i = 0; i < r->nports; i++)
		if (r->ports[i].id == port)
			return xio_ethdev_missed(&r->ports[i]);
	return 0;
}

static int xio_run_queues(struct xio_run *r)
{
	const struct xio_config *cfg = r->cfg;

	r->dp = rte_zmalloc_socket("xio_dp", sizeof(*r->dp), RTE_CACHE_LINE_SIZE,
				   r->ports[0].socket);
	if (r->dp == NULL)
		goto nomem;
	r->dp->cfg = cfg;
	r->dp->ndirs = r->ndirs;
	r->dp->port_missed = xio_run_port_missed;
	r->dp->driver = r;
	for (unsigned d = 0; d < r->ndirs; d++)
		for (uint16_t i = 0; i < cfg->rxq; i++) {
			struct xio_queue *q = xio_run_queue(r, d, i);

			if (q == NULL)
				goto nomem;
			r->dp->q[r->dp->nq++] = q;
		}
	if ((cfg->mode == XIO_MODE_PIPELINE ? xio_pipeline_plan(r->dp) : xio_rtc_plan(r->dp)) < 0)
		return -1;
	xio_run_check_sockets(r);
	return 0;
nomem:
	XIO_LOG(ERR, "out of memory for the queues (give the EAL more: -m MB)");
	return -1;
}

/* Lcores from first on were not launched: their tasks count as done, so
 * that the launched ones can finish. */
static void xio_run_unlaunched(struct xio_dp *dp, unsigned first)
{
	for (unsigned lcore = first; lcore < RTE_MAX_LCORE; lcore++)
		for (unsigned i = 0; i < dp->lcores[lcore].ntasks; i++)
			xio_task_finish(dp->lcores[lcore].tasks[i]);
}

static int xio_run_start(struct xio_run *r)
{
	/* TX side first, so the first received burst finds it ready. */
	for (int i = (int)r->nports - 1; i >= 0; i--)
		if (xio_ethdev_start(&r->ports[i], r->cfg->stage.udp_port) < 0)
			return -1;
	r->start_tsc = rte_rdtsc();
	r->dp->start_tsc = r->start_tsc;
	xio_telemetry_attach(r->dp);
	for (unsigned lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		struct xio_lcore *l = &r->dp->lcores[lcore];

		if (l->ntasks == 0)
			continue;
		if (rte_eal_remote_launch(xio_lcore_main, l, lcore) != 0) {
			XIO_LOG(ERR, "cannot launch lcore %u", lcore);
			xio_run_unlaunched(r->dp, lcore);
			return -1;
		}
	}
	return 0;
}

/* The run layer's operations (pipeline/xio_run.h) on the DPDK data path. */
static void xio_dpdk_counters(void *drv, struct xio_counters *c)
{
	xio_dp_counters(((struct xio_run *)drv)->dp, c);
}

static unsigned xio_dpdk_directions(void *drv, struct xio_direction d[XIO_MAX_DIRS])
{
	const struct xio_dp *dp = ((struct xio_run *)drv)->dp;

	xio_dp_directions(dp, d);
	return dp->ndirs;
}

static double xio_dpdk_idle_s(void *drv, double now_s, double *ago_s)
{
	struct xio_run *r = drv;
	const double hz = (double)rte_get_tsc_hz();
	uint64_t now = rte_rdtsc();

	(void)now_s;
	*ago_s = (double)(now - RTE_MAX(xio_dp_last_rx(r->dp), r->start_tsc)) / hz;
	return (double)xio_dp_idle_tsc(r->dp, r->start_tsc) / hz;
}

static void xio_dpdk_quit(void *drv)
{
	XIO_STORE(((struct xio_run *)drv)->dp->quit, 1);
}

/* Done when every task is; past the drain timeout, TX frees what it holds. */
static bool xio_dpdk_done(void *drv, double since_quit_s)
{
	struct xio_run *r = drv;

	if (since_quit_s > XIO_DRAIN_TIMEOUT_S && !XIO_LOAD(r->dp->abandon)) {
		XIO_LOG(ERR, "drain timed out after %d s: TX does not take the last frames; "
			"freeing them, counted as dropped", XIO_DRAIN_TIMEOUT_S);
		XIO_STORE(r->dp->abandon, 1);
	}
	return xio_dp_all_done(r->dp);
}

/* Cycles per packet per task over the interval, then the ports' losses. */
static void xio_dpdk_line_tail(void *drv, struct xio_buf *b)
{
	struct xio_run *r = drv;
	struct xio_dp_sample now;

	xio_dp_sample(r->dp, &now);
	xio_dp_cycles_line(r->dp, &now, &r->sample, b);
	r->sample = now;
	xio_port_stats_line(r->dp, b);
}

static void xio_dpdk_prom(void *drv, struct xio_buf *b)
{
	xio_port_stats_prom(((struct xio_run *)drv)->dp, b);
}

static const struct xio_run_ops xio_dpdk_ops = {
	.driver = "dpdk",
	.period_us = XIO_CONTROL_PERIOD_US,
	.counters = xio_dpdk_counters,
	.directions = xio_dpdk_directions,
	.idle_s = xio_dpdk_idle_s,
	.quit = xio_dpdk_quit,
	.done = xio_dpdk_done,
	.line_tail = xio_dpdk_line_tail,
	.prom = xio_dpdk_prom,
};

#define XIO_LEAKS_UNKNOWN UINT_MAX

/* net_af_xdp (22.11) does not give back the mbufs of its fill rings when
 * its port closes: with it, the pool cannot show a leak. */
static bool xio_run_leak_check(const struct xio_run *r)
{
	for (unsigned i = 0; i < r->nports; i++)
		if (r->ports[i].kind == XIO_PORT_AF_XDP)
			return false;
	return true;
}

/* Stops and closes the ports, then frees what the run allocated. Returns
 * the mbufs missing from the pool once the ports are closed, or
 * XIO_LEAKS_UNKNOWN. */
static unsigned xio_run_teardown(struct xio_run *r)
{
	unsigned leaked = 0;
	bool check = xio_run_leak_check(r);

	xio_telemetry_attach(NULL);
	for (unsigned i = 0; i < r->nports; i++)
		xio_ethdev_close(&r->ports[i]);
	if (r->dp != NULL) {
		xio_pipeline_free(r->dp);
		for (unsigned i = 0; i < r->dp->nq; i++) {
			rte_free(r->dp->q[i]->mctx.scratch);
			rte_free(r->dp->q[i]);
		}
		rte_free(r->dp);
		r->dp = NULL;
	}
	if (r->pool != NULL) {
		leaked = r->nb_mbufs - rte_mempool_avail_count(r->pool);
		if (!check) {
			XIO_LOG(INFO, "%u mbufs not back in the pool: net_af_xdp keeps those of its "
				"fill rings when it closes, no leak check", leaked);
			leaked = XIO_LEAKS_UNKNOWN;
		} else if (leaked != 0) {
			XIO_LOG(ERR, "%u mbufs not back in the pool after the ports closed", leaked);
		}
		rte_mempool_free(r->pool);
		r->pool = NULL;
	}
	return leaked;
}

/* The run's own JSON members, after the stats of the tasks are final. */
static void xio_run_extra(const struct xio_run *r, struct xio_json *j)
{
	xio_json_str(j, "mode", r->cfg->mode == XIO_MODE_PIPELINE ? "pipeline" : "rtc");
	xio_json_u64(j, "rx_queues", r->cfg->rxq);
	xio_json_u64(j, "burst", r->cfg->burst);
	xio_json_u64(j, "ring_size", r->cfg->ring_size);
	xio_json_u64(j, "mbuf_data_room", r->data_room);
	xio_json_u64(j, "long_chains", xio_dp_long_chains(r->dp));
	xio_json_u64(j, "tsc_hz", rte_get_tsc_hz());
	xio_dp_stages_json(r->dp, j);
	xio_dp_lcores_json(r->dp, j);
	xio_dp_hardware_json(r->dp, j);
	xio_port_stats_json(r->dp, j);
}

int xio_dpdk_run(const struct xio_config *cfg, const int *stop, struct xio_run_result *res)
{
	struct xio_run r = { .cfg = cfg };
	unsigned leaked;
	int rc = -1;

	if (xio_run_ports(&r) < 0 || xio_run_queues(&r) < 0)
		goto out;
	if (xio_run_start(&r) < 0) {
		XIO_STORE(r.dp->quit, 1);
		rte_eal_mp_wait_lcore();
		goto out;
	}
	XIO_LOG(INFO, "forwarding: port %u %s port %u, %s mode, %u queue(s), burst %u, "
		"UDP port %u, overflow %s%s", cfg->rx_port, r.ndirs > 1 ? "<->" : "->", cfg->tx_port,
		cfg->mode == XIO_MODE_PIPELINE ? "pipeline" : "rtc", cfg->rxq, cfg->burst,
		cfg->stage.udp_port, xio_overflow_name(cfg->stage.overflow),
		cfg->stage.drop_invalid ? ", invalid XIO dropped" : "");
	xio_run_loop(cfg, &xio_dpdk_ops, &r, stop, res);
	rte_eal_mp_wait_lcore();
	xio_run_extra(&r, &res->json);
	rc = 0;
out:
	leaked = xio_run_teardown(&r);
	if (rc == 0) {
		/* once the pool has been checked (null: unknown) */
		if (leaked == XIO_LEAKS_UNKNOWN)
			xio_json_null(&res->json, "leaked_mbufs");
		else
			xio_json_u64(&res->json, "leaked_mbufs", leaked);
	}
	return rc;
}
