/* SPDX-License-Identifier: BSD-3-Clause
 * xio_port_stats.c: the ethdev counters of the run's ports, as JSON,
 * telemetry, Prometheus text and stats-line figures (xio_port_stats.h).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "xio_log.h"
#include "xio_port_stats.h"

/* The ethdev counters reported, described once: the stats JSON's "ports",
 * /xio/ports, /metrics and, those marked, the stats line. */
#define XIO_PORT_LINE 0x100 /* on the stats line too */
#define XIO_PORT_M(nm, hlp, flg) \
	{ .name = #nm, .help = hlp, .off = offsetof(struct rte_eth_stats, nm), .flags = flg }
static const struct xio_metric xio_port_metrics[] = {
	XIO_PORT_M(ipackets, "Frames the port received", 0),
	XIO_PORT_M(opackets, "Frames the port sent", 0),
	XIO_PORT_M(imissed, "Frames the port lost before the pipeline: RX rings full", XIO_PORT_LINE),
	XIO_PORT_M(ierrors, "Frames the port received in error", XIO_PORT_LINE),
	XIO_PORT_M(rx_nombuf, "Receives that failed for want of an mbuf", XIO_PORT_LINE),
	XIO_PORT_M(oerrors, "Frames the port failed to send", XIO_PORT_LINE),
};
#define XIO_NPORT_METRICS RTE_DIM(xio_port_metrics)

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

static void xio_port_name(uint16_t id, char name[RTE_ETH_NAME_MAX_LEN])
{
	if (rte_eth_dev_get_name_by_port(id, name) != 0)
		name[0] = '\0';
}

void xio_port_stats_json(const struct xio_dp *dp, struct xio_json *j)
{
	uint16_t ids[XIO_RUN_MAX_PORTS];
	unsigned np = xio_dp_ports(dp, ids);
	char name[RTE_ETH_NAME_MAX_LEN], key[8];
	struct rte_eth_stats s;

	xio_json_begin_object(j, "ports");
	for (unsigned i = 0; i < np; i++) {
		xio_port_stats_read(dp, ids[i], &s);
		xio_port_name(ids[i], name);
		snprintf(key, sizeof(key), "%u", ids[i]);
		xio_json_begin_object(j, key);
		xio_json_str(j, "name", name);
		xio_metrics_json(j, xio_port_metrics, XIO_NPORT_METRICS, &s);
		xio_json_end_object(j);
	}
	xio_json_end_object(j);
}

void xio_port_stats_tel(const struct xio_dp *dp, uint16_t id, struct rte_tel_data *d)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_stats s;

	xio_port_stats_read(dp, id, &s);
	xio_port_name(id, name);
	rte_tel_data_add_dict_string(d, "name", name);
	for (unsigned k = 0; k < XIO_NPORT_METRICS; k++)
		rte_tel_data_add_dict_u64(d, xio_port_metrics[k].name,
					  xio_metric_get(&xio_port_metrics[k], &s, 0));
}

void xio_port_stats_line(const struct xio_dp *dp, struct xio_buf *b)
{
	uint16_t ids[XIO_RUN_MAX_PORTS];
	unsigned np = xio_dp_ports(dp, ids);
	struct rte_eth_stats s;

	for (unsigned i = 0; i < np; i++) {
		xio_port_stats_read(dp, ids[i], &s);
		xio_buf_printf(b, " | port %u", ids[i]);
		for (unsigned k = 0; k < XIO_NPORT_METRICS; k++)
			if (xio_port_metrics[k].flags & XIO_PORT_LINE)
				xio_buf_printf(b, " %s %" PRIu64, xio_port_metrics[k].name,
					       xio_metric_get(&xio_port_metrics[k], &s, 0));
	}
}

void xio_port_stats_prom(const struct xio_dp *dp, struct xio_buf *b)
{
	uint16_t ids[XIO_RUN_MAX_PORTS];
	unsigned np = xio_dp_ports(dp, ids);
	char name[RTE_ETH_NAME_MAX_LEN], labels[XIO_RUN_MAX_PORTS][RTE_ETH_NAME_MAX_LEN + 32];
	struct rte_eth_stats s[XIO_RUN_MAX_PORTS];
	struct xio_metric_set sets[XIO_RUN_MAX_PORTS];

	if (np == 0)
		return;
	for (unsigned i = 0; i < np; i++) {
		xio_port_stats_read(dp, ids[i], &s[i]);
		xio_port_name(ids[i], name);
		snprintf(labels[i], sizeof(labels[i]), "port=\"%u\",name=\"%s\"", ids[i], name);
		sets[i] = (struct xio_metric_set){ &s[i], labels[i] };
	}
	xio_metrics_prom(b, "xio_pipeline_port", xio_port_metrics, XIO_NPORT_METRICS, sets, np);
}
