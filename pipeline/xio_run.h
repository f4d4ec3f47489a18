/* SPDX-License-Identifier: BSD-3-Clause
 * xio_run.h: the one run layer of xio-pipeline's drivers. A driver sets
 * its data path up, then hands xio_run_loop() a small table of operations;
 * the loop decides when to stop (a signal, --duration, --idle-exit), prints
 * the --stats-interval line, lets the data path drain, and writes the
 * common part of the report (the driver's name, the counters, elapsed_s,
 * the directions). The driver adds its own JSON members and tears down.
 * While a run is attached, GET /metrics (--metrics) reads it through the
 * same operations; once it is over, the last figures stay served.
 */
#ifndef XIO_RUN_H
#define XIO_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "xio_buf.h"
#include "xio_config.h"
#include "xio_counters.h"
#include "xio_json.h"

/* One direction of a run: its counters and its two ends, DPDK ports or,
 * with iface set, XDP interfaces. */
struct xio_direction {
	struct xio_counters c;
	uint16_t rx_port, tx_port;
	const char *iface, *egress;
};

struct xio_run_ops {
	const char *driver;   /* "dpdk", "xdp": the stats JSON's "driver" */
	unsigned period_us;   /* how often the loop looks */
	/* The totals now, read with relaxed loads while the data path runs. */
	void (*counters)(void *drv, struct xio_counters *c);
	/* The directions (1, or 2 with --bidirectional) into d; how many. */
	unsigned (*directions)(void *drv, struct xio_direction d[XIO_MAX_DIRS]);
	/* Seconds idle, for --idle-exit (the driver's own measure: DPDK counts
	 * only the time its workers spent polling); *ago_s: seconds since a
	 * frame last came in (since the start without one), for elapsed_s. */
	double (*idle_s)(void *drv, double now_s, double *ago_s);
	/* Stop taking frames in; what is held drains to TX. */
	void (*quit)(void *drv);
	/* Whether the data path has finished; since_quit_s: seconds since
	 * quit (-1 before), for the driver's drain timeout. */
	bool (*done)(void *drv, double since_quit_s);
	/* The driver's figures at the end of the stats line (may be NULL). */
	void (*line_tail)(void *drv, struct xio_buf *b);
	/* The driver's own Prometheus families, per port (may be NULL). */
	void (*prom)(void *drv, struct xio_buf *b);
};

/* What a run reports: its totals, its time, and the stats JSON object,
 * open until the application closes it. */
struct xio_run_result {
	struct xio_counters total;
	double elapsed_s;
	struct xio_json json;
};

void xio_run_result_init(struct xio_run_result *r);
void xio_run_result_free(struct xio_run_result *r);

/* Runs the control loop until the data path is done; stop: set to
 * non-zero (XIO_STORE) by a signal handler. Fills r (and r->json with
 * "driver", the counters, "elapsed_s" and, with two directions,
 * "directions"). */
void xio_run_loop(const struct xio_config *cfg, const struct xio_run_ops *ops, void *drv,
		  const int *stop, struct xio_run_result *r);

/* The --metrics endpoint's fill (common/xio_httpd.h): the run's counters
 * as Prometheus text; -1 (503) before any run. */
int xio_run_metrics(void *arg, struct xio_buf *b);

#endif /* XIO_RUN_H */
