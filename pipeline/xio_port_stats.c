/* SPDX-License-Identifier: BSD-3-Clause
 * xio_port_stats.c: the ethdev counters of the run's ports, as JSON and as
 * stats-line figures (xio_port_stats.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "xio_log.h"
#include "xio_port_stats.h"

/* Appends to p[0..len) at *n, like snprintf, keeping *n the would-be length. */
#define XIO_PUT(p, len, n, ...) \
	((n) += (size_t)snprintf((p) + (n), (n) < (len) ? (len) - (n) : 0, __VA_ARGS__))

static unsigned xio_ports_add(uint16_t ids[XIO_RUN_MAX_PORTS], unsigned n, uint16_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (ids[i] == id)
			return n;
	if (n < XIO_RUN_MAX_PORTS)
		ids[n++] = id;
	return n;
}

unsigned xio_dp_ports(const struct xio_dp *dp, uint16_t ids[XIO_RUN_MAX_PORTS])
{
	unsigned n = 0;

	for (unsigned i = 0; dp != NULL && i < dp->nq; i++) {
		n = xio_ports_add(ids, n, dp->q[i]->rx_port);
		n = xio_ports_add(ids, n, dp->q[i]->tx_port);
	}
	return n;
}

void xio_port_stats_read(const struct xio_dp *dp, uint16_t id, struct rte_eth_stats *s)
{
	int rc = rte_eth_stats_get(id, s);

	if (rc != 0) {
		memset(s, 0, sizeof(*s));
		XIO_LOG(NOTICE, "port %u: no ethdev stats (%s)", id, strerror(-rc));
	}
	if (dp->port_missed != NULL)
		s->imissed += dp->port_missed(dp, id);
}

size_t xio_port_stats_json(const struct xio_dp *dp, char *p, size_t len)
{
	uint16_t ids[XIO_RUN_MAX_PORTS];
	unsigned np = xio_dp_ports(dp, ids);
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_stats s;
	size_t n = 0;

	XIO_PUT(p, len, n, ",\n  \"ports\": {");
	for (unsigned i = 0; i < np; i++) {
		xio_port_stats_read(dp, ids[i], &s);
		if (rte_eth_dev_get_name_by_port(ids[i], name) != 0)
			name[0] = '\0';
		XIO_PUT(p, len, n, "%s\n    \"%u\": {\"name\": \"%s\", \"ipackets\": %" PRIu64
			", \"opackets\": %" PRIu64 ", \"imissed\": %" PRIu64 ", \"ierrors\": %" PRIu64
			", \"rx_nombuf\": %" PRIu64 ", \"oerrors\": %" PRIu64 "}", i ? "," : "", ids[i],
			name, s.ipackets, s.opackets, s.imissed, s.ierrors, s.rx_nombuf, s.oerrors);
	}
	XIO_PUT(p, len, n, "%s}", np ? "\n  " : "");
	return n;
}

void xio_port_stats_line(const struct xio_dp *dp, char *p, size_t len)
{
	uint16_t ids[XIO_RUN_MAX_PORTS];
	unsigned np = xio_dp_ports(dp, ids);
	struct rte_eth_stats s;
	size_t n = 0;

	if (len > 0)
		p[0] = '\0';
	for (unsigned i = 0; i < np; i++) {
		xio_port_stats_read(dp, ids[i], &s);
		XIO_PUT(p, len, n, " | port %u imissed %" PRIu64 " ierrors %" PRIu64
			" rx_nombuf %" PRIu64 " oerrors %" PRIu64, ids[i], s.imissed, s.ierrors,
			s.rx_nombuf, s.oerrors);
	}
}
