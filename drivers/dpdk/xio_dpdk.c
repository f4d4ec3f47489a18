/* SPDX-License-Identifier: BSD-3-Clause
 * xio_dpdk.c: one xio-pipeline run on DPDK (xio_dpdk.h). The main lcore
 * only sets up, watches and tears down; the data path runs on the worker
 * lcores (pipeline/xio_worker.h), one direction (--rx-port to --tx-port)
 * or, with --bidirectional, both. A stop (signal, --duration, --idle-exit) makes RX
 * stop, every ring and held burst drain to TX, then the ports stop and close
 * so that net_pcap flushes its output file.
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
#include "xio_stats.h"
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
	uint64_t end_tsc;
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

/* Why the run should stop now, or NULL. */
static const char *xio_run_should_stop(struct xio_run *r, volatile int *stop, uint64_t now,
				       uint64_t hz)
{
	const struct xio_config *cfg = r->cfg;

	if (*stop) {
		r->end_tsc = now;
		return "signal";
	}
	if (cfg->duration_s > 0 && now - r->start_tsc >= (uint64_t)(cfg->duration_s * hz)) {
		r->end_tsc = now;
		return "--duration";
	}
	if (cfg->idle_exit_ms > 0 &&
	    xio_dp_idle_tsc(r->dp, r->start_tsc) >= (uint64_t)cfg->idle_exit_ms * hz / 1000) {
		r->end_tsc = RTE_MAX(xio_dp_last_rx(r->dp), r->start_tsc);
		return "--idle-exit";
	}
	return NULL;
}

/* The main lcore's loop: stop conditions, the drain timeout, stats lines. */
static void xio_run_control(struct xio_run *r, volatile int *stop)
{
	const uint64_t hz = rte_get_tsc_hz();
	const double interval = r->cfg->stats_interval_s;
	uint64_t next_stats = r->start_tsc + (uint64_t)(interval * hz), last_stats = r->start_tsc;
	uint64_t quit_tsc = 0;
	struct xio_counters prev, now;
	struct xio_dp_sample sprev, snow;
	char tail[32 * 3 * XIO_MAX_DIRS * XIO_MAX_QUEUES + 128 * XIO_RUN_MAX_PORTS];
	size_t k;
	const char *why;

	memset(&prev, 0, sizeof(prev));
	memset(&sprev, 0, sizeof(sprev));
	while (!xio_dp_all_done(r->dp)) {
		uint64_t t;

		rte_delay_us_sleep(XIO_CONTROL_PERIOD_US);
		t = rte_rdtsc();
		if (quit_tsc == 0 && (why = xio_run_should_stop(r, stop, t, hz)) != NULL) {
			XIO_LOG(INFO, "stopping (%s): draining rings and TX", why);
			__atomic_store_n(&r->dp->quit, 1, __ATOMIC_RELAXED);
			quit_tsc = t;
		} else if (quit_tsc != 0 && !r->dp->abandon &&
			   t - quit_tsc > (uint64_t)XIO_DRAIN_TIMEOUT_S * hz) {
			XIO_LOG(ERR, "drain timed out after %d s: TX does not take the last frames; "
				"freeing them, counted as dropped", XIO_DRAIN_TIMEOUT_S);
			__atomic_store_n(&r->dp->abandon, 1, __ATOMIC_RELAXED);
		}
		if (interval > 0 && t >= next_stats) {
			xio_dp_counters(r->dp, &now);
			xio_dp_sample(r->dp, &snow);
			xio_dp_cycles_line(r->dp, &snow, &sprev, tail, sizeof(tail));
			k = strlen(tail);
			xio_port_stats_line(r->dp, tail + k, sizeof(tail) - k);
			xio_stats_line(stdout, (double)(t - r->start_tsc) / hz, &now, &prev,
				       (double)(t - last_stats) / hz, tail);
			prev = now;
			sprev = snow;
			last_stats = t;
			next_stats = t + (uint64_t)(interval * hz);
		}
	}
	rte_eal_mp_wait_lcore();
}

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

static uint64_t xio_run_long_chains(const struct xio_run *r)
{
	uint64_t n = 0;

	for (unsigned i = 0; r->dp != NULL && i < r->dp->nq; i++)
		n += r->dp->q[i]->mctx.long_chains;
	return n;
}

/* The run's own JSON members, after the stats of the tasks are final. */
static void xio_run_extra(const struct xio_run *r, char *extra, size_t len)
{
	size_t n;

	n = (size_t)snprintf(extra, len,
			     "  \"mode\": \"%s\",\n"
			     "  \"rx_queues\": %u,\n"
			     "  \"burst\": %u,\n"
			     "  \"ring_size\": %u,\n"
			     "  \"mbuf_data_room\": %u,\n"
			     "  \"long_chains\": %" PRIu64 ",\n"
			     "  \"tsc_hz\": %" PRIu64,
			     r->cfg->mode == XIO_MODE_PIPELINE ? "pipeline" : "rtc", r->cfg->rxq,
			     r->cfg->burst, r->cfg->ring_size, r->data_room, xio_run_long_chains(r),
			     rte_get_tsc_hz());
	if (n < len)
		n += xio_dp_stages_json(r->dp, extra + n, len - n);
	if (n < len)
		n += xio_dp_lcores_json(r->dp, extra + n, len - n);
	if (n < len)
		n += xio_dp_hardware_json(r->dp, extra + n, len - n);
	if (n < len)
		n += xio_dp_directions_json(r->dp, extra + n, len - n);
	if (n < len)
		xio_port_stats_json(r->dp, extra + n, len - n);
}

/* Appends "leaked_mbufs" once the pool has been checked (null: unknown). */
static void xio_run_extra_leaked(char *extra, size_t len, unsigned leaked)
{
	size_t n = strlen(extra);

	if (leaked == XIO_LEAKS_UNKNOWN)
		snprintf(extra + n, n < len ? len - n : 0, ",\n  \"leaked_mbufs\": null");
	else
		snprintf(extra + n, n < len ? len - n : 0, ",\n  \"leaked_mbufs\": %u", leaked);
}

int xio_dpdk_run(const struct xio_config *cfg, volatile int *stop, struct xio_counters *total,
		 double *elapsed_s, char *extra, size_t extra_len)
{
	struct xio_run r = { .cfg = cfg };
	unsigned leaked;
	int rc = -1;

	memset(total, 0, sizeof(*total));
	*elapsed_s = 0;
	if (xio_run_ports(&r) < 0 || xio_run_queues(&r) < 0)
		goto out;
	if (xio_run_start(&r) < 0) {
		__atomic_store_n(&r.dp->quit, 1, __ATOMIC_RELAXED);
		rte_eal_mp_wait_lcore();
		goto out;
	}
	XIO_LOG(INFO, "forwarding: port %u %s port %u, %s mode, %u queue(s), burst %u, "
		"UDP port %u, overflow %s%s", cfg->rx_port, r.ndirs > 1 ? "<->" : "->", cfg->tx_port,
		cfg->mode == XIO_MODE_PIPELINE ? "pipeline" : "rtc", cfg->rxq, cfg->burst,
		cfg->stage.udp_port, xio_overflow_name(cfg->stage.overflow),
		cfg->stage.drop_invalid ? ", invalid XIO dropped" : "");
	xio_run_control(&r, stop);
	xio_dp_counters(r.dp, total);
	*elapsed_s = (double)(r.end_tsc - r.start_tsc) / rte_get_tsc_hz();
	rc = 0;
out:
	xio_run_extra(&r, extra, extra_len);
	leaked = xio_run_teardown(&r);
	xio_run_extra_leaked(extra, extra_len, leaked);
	return rc;
}
