/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ethdev_iface.c: DPDK ports on ordinary Linux interfaces, through
 * net_af_packet or net_af_xdp (DPDK 22.11). Their PMDs lose frames without
 * a word when sizes do not fit, so what they need is checked before the
 * ports are set up, and a run that cannot work is refused with what to
 * change:
 *
 * - net_af_packet copies each received frame into one mbuf from a
 *   PACKET_MMAP slot of framesz bytes, cutting what does not fit after the
 *   slot's TPACKET_V2 header (66 bytes); it refuses mbufs smaller than
 *   framesz - 32; it drops a frame to send longer than framesz - 32. It
 *   addresses slot i at i x framesz, where the kernel puts whole slots in
 *   blocks of blocksz: unless blocksz is a multiple of framesz, it reads
 *   the wrong slots and receives nothing after the first frame.
 * - net_af_xdp receives into the mbufs themselves (the mempool is the
 *   UMEM): a frame must fit the data room less XDP's 256-byte headroom, a
 *   mempool object must fit a page, and a frame to send must be one mbuf;
 *   each RX queue keeps 2048 mbufs in its fill ring, whatever nb_rx_desc.
 */
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "xio_ethdev.h"
#include "xio_log.h"

#define XIO_AFP_DEFAULT_FRAMESZ 2048u /* the PMD's default framesz */
#define XIO_AFP_RX_OFF          66u   /* TPACKET_V2: frame data after the slot header */
#define XIO_AFP_TX_OFF          32u   /* TPACKET2_HDRLEN - sizeof(struct sockaddr_ll) */
#define XIO_AFX_HEADROOM        256u  /* XDP_PACKET_HEADROOM */
#define XIO_AFX_FILL            2048u /* mbufs in a queue's fill ring (ETH_AF_XDP_DFLT_NUM_DESCS) */
#define XIO_VLAN_ROOM           22u   /* Ethernet header and two VLAN tags */

/* The interface's MTU (0 when it cannot be read). */
static uint32_t xio_iface_mtu(const char *ifname)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	uint32_t mtu = 0;

	if (s < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFMTU, &ifr) == 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	close(s);
	return mtu;
}

/* A numeric devarg of the port's device, or def. */
static uint32_t xio_devarg_u32(const struct rte_eth_dev_info *info, const char *key,
			       uint32_t def)
{
	const struct rte_devargs *da = rte_dev_devargs(info->device);
	struct rte_kvargs *kv;
	const char *v;
	uint32_t n = def;

	if (da == NULL || da->args == NULL)
		return def;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return def;
	v = rte_kvargs_get(kv, key);
	if (v != NULL)
		n = (uint32_t)strtoul(v, NULL, 0);
	rte_kvargs_free(kv);
	return n;
}

void xio_ethdev_iface_probe(struct xio_port *p, const struct rte_eth_dev_info *info)
{
	if (strcmp(info->driver_name, "net_af_packet") == 0)
		p->kind = XIO_PORT_AF_PACKET;
	else if (strcmp(info->driver_name, "net_af_xdp") == 0)
		p->kind = XIO_PORT_AF_XDP;
	else
		return;
	if (info->if_index == 0 || if_indextoname(info->if_index, p->ifname) == NULL)
		snprintf(p->ifname, sizeof(p->ifname), "?");
	p->if_mtu = xio_iface_mtu(p->ifname);
	p->framesz = xio_devarg_u32(info, "framesz", XIO_AFP_DEFAULT_FRAMESZ);
	p->blocksz = xio_devarg_u32(info, "blocksz", (uint32_t)getpagesize());
	rte_eth_dev_get_name_by_port(p->id, p->name);
	if (p->kind == XIO_PORT_AF_PACKET)
		xio_ethdev_afp_find(p, info->if_index, info->max_rx_queues);
}

uint32_t xio_ethdev_max_frame(const struct xio_port *p)
{
	return p->kind == XIO_PORT_OTHER || p->if_mtu == 0 ? XIO_MAX_FRAME
							   : p->if_mtu + XIO_VLAN_ROOM;
}

uint32_t xio_ethdev_rx_hold(const struct xio_port *p)
{
	return p->kind == XIO_PORT_AF_XDP ? RTE_MAX((uint32_t)p->nb_rxd, XIO_AFX_FILL) : p->nb_rxd;
}

/* The smallest blocksz (a multiple of the page) that holds whole slots of
 * framesz bytes with none of the block left over. */
static uint32_t xio_afp_blocksz(uint32_t framesz)
{
	uint32_t page = (uint32_t)getpagesize(), a = framesz, b = page;

	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return framesz / a * page;
}

/* framesz and blocksz for frames of up to len bytes in and out: framesz in
 * KiB keeps the block small (MTU 9000: 9216 and 36864, four slots). */
static void xio_afp_advice(uint32_t len, uint32_t *framesz, uint32_t *blocksz)
{
	*framesz = RTE_ALIGN_CEIL(len + XIO_AFP_RX_OFF, 1024u);
	*blocksz = xio_afp_blocksz(*framesz);
}

static int xio_check_af_packet(const struct xio_port *p, uint32_t data_room, uint32_t max_in)
{
	uint32_t in = xio_ethdev_max_frame(p), fs, bs;
	uint32_t rx_cap = p->framesz > XIO_AFP_RX_OFF ? p->framesz - XIO_AFP_RX_OFF : 0;
	uint32_t tx_cap = p->framesz > XIO_AFP_TX_OFF ? p->framesz - XIO_AFP_TX_OFF : 0;

	if (p->framesz == 0 || p->blocksz % p->framesz != 0) {
		XIO_LOG(ERR, "port %u (%s): blocksz=%u is not a multiple of framesz=%u: the PMD "
			"would read slots where the kernel puts none and receive nothing after "
			"the first frame: give the vdev blocksz=%u", p->id, p->name, p->blocksz,
			p->framesz, xio_afp_blocksz(p->framesz ? p->framesz : 1));
		return -1;
	}
	if (p->nb_rxq > 0 && in > rx_cap) {
		xio_afp_advice(in, &fs, &bs);
		XIO_LOG(ERR, "port %u (%s on %s): MTU %u lets frames of up to %u bytes in, "
			"framesz=%u holds %u (the kernel cuts the rest): give the vdev "
			"framesz=%u,blocksz=%u and --mbuf-size %u", p->id, p->name, p->ifname,
			p->if_mtu, in, p->framesz, rx_cap, fs, bs, fs - XIO_AFP_TX_OFF);
		return -1;
	}
	if (p->nb_rxq > 0 && data_room < tx_cap) {
		XIO_LOG(ERR, "port %u (%s): framesz=%u needs --mbuf-size %u or more (the PMD "
			"copies each frame into one mbuf)", p->id, p->name, p->framesz, tx_cap);
		return -1;
	}
	if (p->nb_txq > 0 && max_in > tx_cap) {
		xio_afp_advice(max_in, &fs, &bs);
		XIO_LOG(ERR, "port %u (%s on %s): frames of up to %u bytes reach it, framesz=%u "
			"sends at most %u (the PMD drops longer ones): give the vdev "
			"framesz=%u,blocksz=%u", p->id, p->name, p->ifname, max_in, p->framesz,
			tx_cap, fs, bs);
		return -1;
	}
	if (p->nb_rxq > 0)
		XIO_LOG(NOTICE, "port %u (%s on %s): the kernel reassembles IPv4 fragments before "
			"this PMD sees them and it sends 802.1ad (0x88A8) tags back as 802.1Q "
			"(0x8100): use net_af_xdp or the XDP driver where that matters", p->id,
			p->name, p->ifname);
	return 0;
}

static int xio_check_af_xdp(const struct xio_port *p, uint32_t data_room, uint32_t max_in)
{
	uint32_t in = xio_ethdev_max_frame(p), page = (uint32_t)getpagesize();
	struct rte_mempool_objsz sz;

	rte_mempool_calc_obj_size((uint32_t)sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM +
				  data_room, 0, &sz);
	if (sz.total_size > page) {
		XIO_LOG(ERR, "port %u (%s): --mbuf-size %u makes %u-byte mempool objects, and "
			"an AF_XDP UMEM chunk is at most a page (%u bytes): a smaller --mbuf-size",
			p->id, p->name, data_room, sz.total_size, page);
		return -1;
	}
	if (p->nb_rxq > 0 && in + XIO_AFX_HEADROOM > data_room) {
		XIO_LOG(ERR, "port %u (%s on %s): MTU %u lets frames of up to %u bytes in, "
			"%u-byte mbufs take %u (XDP keeps %u bytes of headroom; the kernel drops "
			"longer frames): --mbuf-size %u, or a smaller MTU (ip link set %s mtu %u)",
			p->id, p->name, p->ifname, p->if_mtu, in, data_room,
			data_room - XIO_AFX_HEADROOM, XIO_AFX_HEADROOM, in + XIO_AFX_HEADROOM,
			p->ifname, data_room - XIO_AFX_HEADROOM - XIO_VLAN_ROOM);
		return -1;
	}
	if (p->nb_txq > 0 && max_in > data_room) {
		XIO_LOG(ERR, "port %u (%s): sends only frames in one mbuf, and frames of up to "
			"%u bytes reach it in %u-byte mbufs: --mbuf-size %u or more", p->id, p->name,
			max_in, data_room, max_in);
		return -1;
	}
	return 0;
}

int xio_ethdev_iface_check(const struct xio_port *p, uint32_t data_room, uint32_t max_in)
{
	switch (p->kind) {
	case XIO_PORT_AF_PACKET:
		return xio_check_af_packet(p, data_room, max_in);
	case XIO_PORT_AF_XDP:
		return xio_check_af_xdp(p, data_room, max_in);
	default:
		return 0;
	}
}

void xio_ethdev_queue_hint(const struct xio_port *p, unsigned nq, char *buf, size_t len)
{
	if (p->kind == XIO_PORT_AF_PACKET)
		snprintf(buf, len, ": give the vdev qpairs=%u", nq);
	else if (p->kind == XIO_PORT_AF_XDP)
		snprintf(buf, len, ": give the vdev queue_count=%u and %s as many queues "
			 "(ethtool -L %s combined %u)", nq, p->ifname, p->ifname, nq);
	else
		buf[0] = '\0';
}
