/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xsk.h: one AF_XDP worker of the XDP path: a UMEM on the interface's
 * NUMA node, a socket on one ingress queue (multi-buffer, so jumbo frames
 * arrive as segment lists), a socket on the same egress queue sharing that
 * UMEM, and a polling thread pinned to a core that runs the stage core on
 * every frame and transmits the result on the egress in arrival order.
 */
#ifndef XIO_XSK_H
#define XIO_XSK_H

#include <stdbool.h>
#include <stdint.h>

#include "xio_counters.h"
#include "xio_stage.h"

struct xio_xsk;

struct xio_xsk_params {
	const char *iface;              /* ingress */
	const char *egress;             /* may equal iface */
	unsigned queue;                 /* ingress RX queue == egress TX queue */
	bool copy;                      /* force copy mode (generic XDP) */
	int numa_node;                  /* UMEM placement, -1: local */
	int cpu;                        /* worker core, -1: not pinned */
	unsigned burst;                 /* RX burst */
	const struct xio_stage_cfg *stage;
	uint64_t *pending;              /* the queue's order barrier (BPF .bss) */
};

/* Creates the UMEM and both sockets. Returns 0 or -1 after logging why. */
int xio_xsk_open(struct xio_xsk **out, const struct xio_xsk_params *p);

/* The ingress socket, for the XSKMAP. */
int xio_xsk_fd(const struct xio_xsk *x);

/* Starts the polling thread. */
int xio_xsk_start(struct xio_xsk *x);

/* Asks the worker to finish what it holds (the XDP program must already be
 * detached), waits for it, and joins it. */
void xio_xsk_stop(struct xio_xsk *x);

/* The worker's counters (a snapshot while it runs). */
void xio_xsk_counters(const struct xio_xsk *x, struct xio_counters *c);

/* Frames the kernel could not place in this socket (RX ring full, no fill
 * buffer): lost before the stage core saw them. */
uint64_t xio_xsk_lost(const struct xio_xsk *x);

void xio_xsk_close(struct xio_xsk *x);

#endif /* XIO_XSK_H */
