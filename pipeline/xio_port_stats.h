/* SPDX-License-Identifier: BSD-3-Clause
 * xio_port_stats.h: the ethdev counters (rte_eth_stats_get) of the ports a
 * DPDK run uses: what the port itself received, sent and lost before or
 * after the pipeline (imissed, ierrors, rx_nombuf, oerrors). Frames lost
 * there never reach the pipeline's own counters. imissed also holds what
 * the driver knows a PMD loses uncounted (xio_dp's port_missed). Read on
 * the main lcore, the telemetry or the --metrics thread, never on the data
 * path. The stats JSON's "ports", the stats line's port figures, /xio/ports
 * and the per-port /metrics come from here, from one table.
 */
#ifndef XIO_PORT_STATS_H
#define XIO_PORT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "xio_buf.h"
#include "xio_json.h"
#include "xio_worker.h"

#define XIO_RUN_MAX_PORTS 2

/* The ports of the run's queues, in order of first use (RX port first).
 * Returns how many (0 without a run). */
unsigned xio_dp_ports(const struct xio_dp *dp, uint16_t ids[XIO_RUN_MAX_PORTS]);

/* The port's counters, imissed with what dp->port_missed adds; all zero
 * (and a NOTICE) when the PMD gives none. */
void xio_port_stats_read(const struct xio_dp *dp, uint16_t id, struct rte_eth_stats *s);

/* The stats JSON's "ports": {"ID": {"name": ..., "ipackets": N,
 * "opackets": N, "imissed": N, "ierrors": N, "rx_nombuf": N, "oerrors": N},
 * ...} (an empty object without a run). */
void xio_port_stats_json(const struct xio_dp *dp, struct xio_json *j);

/* The same members of one port into a telemetry dict (/xio/ports). */
struct rte_tel_data;
void xio_port_stats_tel(const struct xio_dp *dp, uint16_t id, struct rte_tel_data *d);

/* " | port ID imissed N ierrors N rx_nombuf N oerrors N" per port, for the
 * stats line (totals since the start), appended to b. */
void xio_port_stats_line(const struct xio_dp *dp, struct xio_buf *b);

/* xio_pipeline_port_* families, labelled port="ID",name="NAME". */
void xio_port_stats_prom(const struct xio_dp *dp, struct xio_buf *b);

#endif /* XIO_PORT_STATS_H */
