/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ethdev.c: port setup for xio-pipeline. Everything asked of a port is
 * first masked by rte_eth_dev_info: net_pcap offers no offload and no RSS
 * and gets a plain configuration; mlx5 gets RSS on the UDP 5-tuple, RX
 * checksum verdicts, scatter for jumbo frames and an rte_flow rule steering
 * the XIO UDP port to the pipeline's queues.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "xio_ethdev.h"
#include "xio_log.h"

#define XIO_POOL_CACHE 256
#define XIO_RSS_HF (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP)
#define XIO_RX_CSUM (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM)

int xio_ethdev_socket(uint16_t port)
{
	int s = rte_eth_dev_socket_id(port);

	return s >= 0 ? s : (int)rte_socket_id();
}

int xio_ethdev_probe(struct xio_port *p)
{
	struct rte_eth_dev_info info;
	char hint[160];
	int rc;

	if (!rte_eth_dev_is_valid_port(p->id)) {
		XIO_LOG(ERR, "port %u does not exist: the EAL found %u port(s) (--list-ports "
			"shows them)", p->id, rte_eth_dev_count_avail());
		return -1;
	}
	rc = rte_eth_dev_info_get(p->id, &info);
	if (rc != 0) {
		XIO_LOG(ERR, "port %u: cannot read device info: %s", p->id, rte_strerror(-rc));
		return -1;
	}
	xio_ethdev_iface_probe(p, &info);
	if (p->nb_rxq > info.max_rx_queues || p->nb_txq > info.max_tx_queues) {
		xio_ethdev_queue_hint(p, RTE_MAX(p->nb_rxq, p->nb_txq), hint, sizeof(hint));
		XIO_LOG(ERR, "port %u (%s) has %u RX / %u TX queues, %u / %u needed (--rxq)%s",
			p->id, info.driver_name, info.max_rx_queues, info.max_tx_queues,
			p->nb_rxq, p->nb_txq, hint);
		return -1;
	}
	p->nb_rxd = XIO_NB_RXD;
	p->nb_txd = XIO_NB_TXD;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &p->nb_rxd, &p->nb_txd);
	if (rc != 0) {
		XIO_LOG(ERR, "port %u: cannot adjust descriptor counts: %s", p->id,
			rte_strerror(-rc));
		return -1;
	}
	p->socket = xio_ethdev_socket(p->id);
	return 0;
}

struct rte_mempool *xio_ethdev_pool(unsigned n, uint32_t data_room, int socket)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "xio_mbuf_s%d", socket);
	mp = rte_pktmbuf_pool_create(name, n, XIO_POOL_CACHE, 0,
				     (uint16_t)(data_room + RTE_PKTMBUF_HEADROOM), socket);
	if (mp == NULL)
		XIO_LOG(ERR, "cannot create %u mbufs of %u bytes on socket %d: %s (give the EAL "
			"more memory: -m MB with --no-huge, or hugepages; or a smaller "
			"--ring-size / --mbuf-size)", n, data_room, socket,
			rte_strerror(rte_errno));
	return mp;
}

/* The largest MTU up to XIO_MAX_MTU that the ethdev layer accepts: within
 * max_mtu, and a frame (MTU plus the overhead ethdev assumes) within
 * max_rx_pktlen, which some PMDs (net_af_packet) report as 1518 whatever
 * they can really take. */
static uint32_t xio_ethdev_max_mtu(const struct rte_eth_dev_info *info)
{
	uint32_t mtu = RTE_MIN((uint32_t)XIO_MAX_MTU, (uint32_t)info->max_mtu);
	uint32_t overhead = info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu ?
				    info->max_rx_pktlen - info->max_mtu :
				    RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;

	if (info->max_rx_pktlen > overhead)
		mtu = RTE_MIN(mtu, info->max_rx_pktlen - overhead);
	return mtu;
}

/* The port configuration, masked by what the PMD can do. */
static void xio_ethdev_conf(struct xio_port *p, const struct rte_eth_dev_info *info,
			    uint32_t data_room, struct rte_eth_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	if (p->nb_rxq > 1) {
		conf->rx_adv_conf.rss_conf.rss_hf = XIO_RSS_HF & info->flow_type_rss_offloads;
		if (conf->rx_adv_conf.rss_conf.rss_hf != 0)
			conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		else
			XIO_LOG(NOTICE, "port %u: no RSS on IP/UDP: each queue gets what the PMD "
				"gives it", p->id);
	}
	if ((info->rx_offload_capa & XIO_RX_CSUM) == XIO_RX_CSUM && p->nb_rxq > 0) {
		conf->rxmode.offloads |= XIO_RX_CSUM;
		p->rx_csum = true;
	}
	conf->rxmode.mtu = xio_ethdev_max_mtu(info);
	if (XIO_MAX_FRAME > data_room && p->nb_rxq > 0 && p->kind == XIO_PORT_OTHER) {
		if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
			conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		else
			XIO_LOG(NOTICE, "port %u: %u-byte mbufs and no scatter offload: the "
				"PMD chains or drops frames longer than that", p->id, data_room);
	}
	if (info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	else if (p->nb_txq > 0 && XIO_MAX_FRAME > data_room && p->kind == XIO_PORT_OTHER)
		XIO_LOG(NOTICE, "port %u: does not announce multi-segment TX: chained frames "
			"rely on the PMD (net_pcap copies them out)", p->id);
	if (info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
}

static int xio_ethdev_queues(struct xio_port *p, const struct rte_eth_dev_info *info,
			     const struct rte_eth_conf *conf, struct rte_mempool *pool)
{
	struct rte_eth_rxconf rxconf = info->default_rxconf;
	struct rte_eth_txconf txconf = info->default_txconf;
	int rc;

	rxconf.offloads = conf->rxmode.offloads;
	txconf.offloads = conf->txmode.offloads;
	for (uint16_t q = 0; q < p->nb_rxq; q++) {
		rc = rte_eth_rx_queue_setup(p->id, q, p->nb_rxd, (unsigned)p->socket, &rxconf,
					    pool);
		if (rc < 0) {
			XIO_LOG(ERR, "port %u: RX queue %u setup: %s", p->id, q, rte_strerror(-rc));
			return -1;
		}
	}
	for (uint16_t q = 0; q < p->nb_txq; q++) {
		rc = rte_eth_tx_queue_setup(p->id, q, p->nb_txd, (unsigned)p->socket, &txconf);
		if (rc < 0) {
			XIO_LOG(ERR, "port %u: TX queue %u setup: %s", p->id, q, rte_strerror(-rc));
			return -1;
		}
	}
	return 0;
}

int xio_ethdev_setup(struct xio_port *p, struct rte_mempool *pool, uint32_t data_room)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	int rc;

	rc = rte_eth_dev_info_get(p->id, &info);
	if (rc != 0) {
		XIO_LOG(ERR, "port %u: cannot read device info: %s", p->id, rte_strerror(-rc));
		return -1;
	}
	xio_ethdev_conf(p, &info, data_room, &conf);
	rc = rte_eth_dev_configure(p->id, p->nb_rxq, p->nb_txq, &conf);
	if (rc < 0) {
		XIO_LOG(ERR, "port %u (%s): configure %u RX / %u TX queues: %s", p->id,
			info.driver_name, p->nb_rxq, p->nb_txq, rte_strerror(-rc));
		return -1;
	}
	if (xio_ethdev_queues(p, &info, &conf, pool) < 0)
		return -1;
	XIO_LOG(INFO, "port %u (%s, socket %d): %u RX queue(s) x %u, %u TX queue(s) x %u, "
		"mtu %u, rss 0x%" PRIx64 ", rx offloads 0x%" PRIx64 ", tx offloads 0x%" PRIx64,
		p->id, info.driver_name, p->socket, p->nb_rxq, p->nb_rxd, p->nb_txq, p->nb_txd,
		conf.rxmode.mtu, conf.rx_adv_conf.rss_conf.rss_hf, conf.rxmode.offloads,
		conf.txmode.offloads);
	return 0;
}

/* ETH / IPV4|IPV6 / UDP dst or src udp_port -> the pipeline's queues (RSS on
 * the UDP 5-tuple over all of them, or queue 0 alone). */
static struct rte_flow *xio_ethdev_flow(struct xio_port *p, uint16_t udp_port, bool ipv6,
					bool src, struct rte_flow_error *err)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_udp udp_spec = { 0 }, udp_mask = { 0 };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = ipv6 ? RTE_FLOW_ITEM_TYPE_IPV6 : RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp_spec, .mask = &udp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	uint16_t queues[RTE_MAX_QUEUES_PER_PORT];
	struct rte_flow_action_rss rss = {
		.types = ipv6 ? RTE_ETH_RSS_NONFRAG_IPV6_UDP : RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.queue_num = p->nb_rxq,
		.queue = queues,
	};
	struct rte_flow_action_queue queue = { .index = 0 };
	struct rte_flow_action actions[] = {
		{ .type = p->nb_rxq > 1 ? RTE_FLOW_ACTION_TYPE_RSS : RTE_FLOW_ACTION_TYPE_QUEUE,
		  .conf = p->nb_rxq > 1 ? (const void *)&rss : (const void *)&queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	if (src) {
		udp_spec.hdr.src_port = rte_cpu_to_be_16(udp_port);
		udp_mask.hdr.src_port = RTE_BE16(0xffff);
	} else {
		udp_spec.hdr.dst_port = rte_cpu_to_be_16(udp_port);
		udp_mask.hdr.dst_port = RTE_BE16(0xffff);
	}
	for (uint16_t q = 0; q < p->nb_rxq; q++)
		queues[q] = q;
	if (rte_flow_validate(p->id, &attr, pattern, actions, err) != 0)
		return NULL;
	return rte_flow_create(p->id, &attr, pattern, actions, err);
}

static void xio_ethdev_steer(struct xio_port *p, uint16_t udp_port)
{
	struct rte_flow_error err;

	/* flows[]: IPv4 dst, IPv4 src, IPv6 dst, IPv6 src (rule 5: either port). */
	for (int i = 0; i < 4; i++) {
		bool v6 = i >= 2, src = i & 1;

		memset(&err, 0, sizeof(err));
		p->flows[i] = xio_ethdev_flow(p, udp_port, v6, src, &err);
		if (p->flows[i] == NULL) {
			XIO_LOG(INFO, "port %u: no rte_flow rule for UDP %s port %u over IPv%d (%s): "
				"classification in software", p->id, src ? "source" : "destination",
				udp_port, v6 ? 6 : 4,
				err.message ? err.message : rte_strerror(rte_errno));
			return;
		}
		XIO_LOG(INFO, "port %u: rte_flow steers IPv%d UDP %s port %u to %u queue(s)", p->id,
			v6 ? 6 : 4, src ? "source" : "destination", udp_port, p->nb_rxq);
	}
}

int xio_ethdev_start(struct xio_port *p, uint16_t udp_port)
{
	int rc = rte_eth_dev_start(p->id);

	if (rc < 0) {
		XIO_LOG(ERR, "port %u: start: %s", p->id, rte_strerror(-rc));
		return -1;
	}
	p->started = true;
	if (p->nb_rxq == 0)
		return 0;
	rc = rte_eth_promiscuous_enable(p->id);
	if (rc != 0 && rc != -ENOTSUP)
		XIO_LOG(NOTICE, "port %u: promiscuous mode: %s", p->id, rte_strerror(-rc));
	xio_ethdev_steer(p, udp_port);
	return 0;
}

void xio_ethdev_close(struct xio_port *p)
{
	struct rte_flow_error err;
	int rc;

	if (!rte_eth_dev_is_valid_port(p->id))
		return;
	xio_ethdev_afp_close(p);
	for (unsigned i = 0; i < RTE_DIM(p->flows); i++)
		if (p->flows[i] != NULL && rte_flow_destroy(p->id, p->flows[i], &err) != 0)
			XIO_LOG(NOTICE, "port %u: cannot remove flow rule: %s", p->id,
				err.message ? err.message : "unknown error");
	if (p->started) {
		rc = rte_eth_dev_stop(p->id);
		if (rc != 0)
			XIO_LOG(NOTICE, "port %u: stop: %s", p->id, rte_strerror(-rc));
		p->started = false;
	}
	rc = rte_eth_dev_close(p->id);
	if (rc != 0)
		XIO_LOG(NOTICE, "port %u: close: %s", p->id, rte_strerror(-rc));
}
