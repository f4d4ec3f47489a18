/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ethdev.h: DPDK port handling for xio-pipeline: mbuf pools on the
 * port's NUMA socket, port setup masked by what the PMD reports (RSS on the
 * UDP 5-tuple, RX checksum offload, jumbo MTU, scatter, multi-segment TX),
 * the rte_flow rule that steers the XIO UDP port to the pipeline's queues,
 * stop/close, and --list-ports (DPDK ports and libibverbs RDMA devices).
 */
#ifndef XIO_ETHDEV_H
#define XIO_ETHDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_flow.h>
#include <rte_mempool.h>

/* The spec's largest IP MTU, and what a frame carrying it takes with two
 * VLAN tags. */
#define XIO_MAX_MTU   9000
#define XIO_MAX_FRAME (XIO_MAX_MTU + 14 + 8)

#define XIO_NB_RXD 1024
#define XIO_NB_TXD 1024

struct xio_port {
	uint16_t id;
	uint16_t nb_rxq;        /* 0 for a port used only to transmit */
	uint16_t nb_txq;        /* 0 for a port used only to receive */
	uint16_t nb_rxd;        /* descriptors, after the PMD's adjustment */
	uint16_t nb_txd;
	int socket;             /* the port's NUMA socket (a real one) */
	bool rx_csum;           /* RX IPv4/UDP checksum offload is on */
	struct rte_flow *flows[4]; /* XIO port steering: IPv4/IPv6 x dst/src port */
	bool started;
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

/* --list-ports: the EAL's ports and the RDMA devices, to out. */
void xio_ethdev_list(FILE *out);

#endif /* XIO_ETHDEV_H */
