/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ethdev.h: DPDK port handling for xio-pipeline: mbuf pools on the
 * port's NUMA socket, port setup masked by what the PMD reports (RSS on the
 * UDP 5-tuple, RX checksum offload, jumbo MTU, scatter, multi-segment TX),
 * the rte_flow rule that steers the XIO UDP port to the pipeline's queues,
 * stop/close, and --list-ports (DPDK ports and libibverbs RDMA devices).
 * What net_af_packet's kernel rings drop: xio_ethdev_afp.c.
 */
#ifndef XIO_ETHDEV_H
#define XIO_ETHDEV_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

/* The spec's largest IP MTU, and what a frame carrying it takes with two
 * VLAN tags. */
#define XIO_MAX_MTU   9000
#define XIO_MAX_FRAME (XIO_MAX_MTU + 14 + 8)

#define XIO_NB_RXD 1024
#define XIO_NB_TXD 1024

/* net_af_packet has at most 16 queue pairs, a socket each. */
#define XIO_AFP_MAX_SOCKETS 16

/* PMDs on a Linux interface have needs of their own (xio_ethdev_iface.c). */
enum xio_port_kind { XIO_PORT_OTHER = 0, XIO_PORT_AF_PACKET, XIO_PORT_AF_XDP };

struct xio_port {
	uint16_t id;
	enum xio_port_kind kind;
	char name[RTE_ETH_NAME_MAX_LEN]; /* kernel-interface PMDs: the vdev's name */
	char ifname[IF_NAMESIZE];       /* their interface */
	uint32_t if_mtu;                /* its MTU */
	uint32_t framesz;               /* net_af_packet's framesz devarg */
	uint32_t blocksz;               /* net_af_packet's blocksz devarg */
	uint16_t nb_rxq;        /* 0 for a port used only to transmit */
	uint16_t nb_txq;        /* 0 for a port used only to receive */
	uint16_t nb_rxd;        /* descriptors, after the PMD's adjustment */
	uint16_t nb_txd;
	int socket;             /* the port's NUMA socket (a real one) */
	bool rx_csum;           /* RX IPv4/UDP checksum offload is on */
	struct rte_flow *flows[4]; /* XIO port steering: IPv4/IPv6 x dst/src port */
	bool started;
	/* net_af_packet: the PMD's sockets, read for their kernel ring drops */
	int afp_fd[XIO_AFP_MAX_SOCKETS];
	unsigned afp_nfd;       /* 0: not counted */
	uint64_t afp_drops;     /* their drops so far */
	rte_spinlock_t afp_lock; /* main lcore and telemetry thread both read */
};

/* The port's NUMA socket; the caller's when the port does not say. */
int xio_ethdev_socket(uint16_t port);

/* Checks that the port exists and can take the queue counts, and reads the
 * descriptor counts the PMD will use into p. 0 or -1 after logging. */
int xio_ethdev_probe(struct xio_port *p);

/* An mbuf pool of n mbufs of data_room bytes on socket. NULL after logging. */
struct rte_mempool *xio_ethdev_pool(unsigned n, uint32_t data_room, int socket);

/* Configures the port and its queues (RX queues fill from pool). 0 or -1. */
int xio_ethdev_setup(struct xio_port *p, struct rte_mempool *pool, uint32_t data_room);

/* Starts the port, then installs the steering rule for udp_port when the
 * PMD supports rte_flow (software classification otherwise). 0 or -1. */
int xio_ethdev_start(struct xio_port *p, uint16_t udp_port);

/* Removes the rules, stops and closes the port (net_pcap flushes its output
 * file here). */
void xio_ethdev_close(struct xio_port *p);

/* Kernel-interface PMDs: records the kind, interface, MTU, framesz and blocksz. */
void xio_ethdev_iface_probe(struct xio_port *p, const struct rte_eth_dev_info *info);

/* net_af_packet: finds the PMD's nq sockets on interface if_index, whose
 * drops xio_ethdev_missed() then counts (a NOTICE when they cannot be told
 * apart). */
void xio_ethdev_afp_find(struct xio_port *p, unsigned if_index, unsigned nq);

/* The frames the port lost where its ethdev counters do not look (its
 * kernel rings' drops on net_af_packet, since the EAL started; 0 on other
 * PMDs): a total, from any control thread, never the data path. */
uint64_t xio_ethdev_missed(struct xio_port *p);

/* Stops reading the sockets before the PMD closes them; logs the total
 * when frames were lost. */
void xio_ethdev_afp_close(struct xio_port *p);

/* The largest frame the port can receive: from the interface's MTU for a
 * PMD on a Linux interface, else XIO_MAX_FRAME. */
uint32_t xio_ethdev_max_frame(const struct xio_port *p);

/* The mbufs an RX queue of the port keeps from the pool: its descriptors,
 * or net_af_xdp's fill ring. */
uint32_t xio_ethdev_rx_hold(const struct xio_port *p);

/* Checks that a net_af_packet or net_af_xdp port can carry every frame,
 * with mbufs of data_room bytes and frames of up to max_in bytes to send:
 * 0, or -1 after logging what to change. 0 for other PMDs. */
int xio_ethdev_iface_check(const struct xio_port *p, uint32_t data_room, uint32_t max_in);

/* What sets the PMD's queue count to nq, for the error that there are too
 * few ("" for other PMDs). */
void xio_ethdev_queue_hint(const struct xio_port *p, unsigned nq, char *buf, size_t len);

/* --list-ports: the EAL's ports and the RDMA devices, to out. */
void xio_ethdev_list(FILE *out);

#endif /* XIO_ETHDEV_H */
