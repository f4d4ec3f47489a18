/* SPDX-License-Identifier: BSD-3-Clause
 * xio_port_stats.h: the ethdev counters (rte_eth_stats_get) of the ports a
 * DPDK run uses: what the port itself received, sent and lost before or
 * after the pipeline (imissed, ierrors, rx_nombuf, oerrors). Frames lost
 * there never reach the pipeline's own counters. imissed also holds what
 * the driver knows a PMD loses uncounted (xio_dp's port_missed). Read on
 * the main lcore or the telemetry thread, never on the data path. The stats
 * JSON's "ports", the stats line's port figures and /xio/ports come from
 * here.
 */
#ifndef XIO_PORT_STATS_H
#define XIO_PORT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "xio_worker.h"

#define XIO_RUN_MAX_PORTS 2

/* The ports of the run's queues, in order of first use (RX port first).
 * Returns how many (0 without a run). */
unsigned xio_dp_ports(const struct xio_dp *dp, uint16_t ids[XIO_RUN_MAX_PORTS]);

/* The port's counters, imissed with what dp->port_missed adds; all zero
 * (and a NOTICE) when the PMD gives none. */
void xio_port_stats_read(const struct xio_dp *dp, uint16_t id, struct rte_eth_stats *s);

/* ",\n  \"ports\": {\"ID\": {\"name\": ..., \"ipackets\": N, \"opackets\": N,
 * \"imissed\": N, \"ierrors\": N, \"rx_nombuf\": N, \"oerrors\": N}, ...}"
 * (an empty object without a run). Returns what snprintf would. */
size_t xio_port_stats_json(const struct xio_dp *dp, char *p, size_t len);

/* " | port ID imissed N ierrors N rx_nombuf N oerrors N" per port, for the
 * stats line (totals since the start). */
void xio_port_stats_line(const struct xio_dp *dp, char *p, size_t len);

#endif /* XIO_PORT_STATS_H */
