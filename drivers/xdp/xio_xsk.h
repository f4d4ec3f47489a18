/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xsk.h: one AF_XDP worker of the XDP path, for one queue number: a
 * UMEM on the interface's NUMA node, a socket on that queue of the ingress
 * (multi-buffer, so jumbo frames arrive as segment lists), a socket on the
 * same queue of the egress sharing that UMEM, and a polling thread pinned
 * to a core that runs the stage core on every frame and transmits the
 * result on the other interface in arrival order. With bidirectional, both
 * sockets receive and transmit: frames from the egress go to the ingress
 * through the same thread.
 */
#ifndef XIO_XSK_H
#define XIO_XSK_H

#include <stdbool.h>
#include <stdint.h>

#include "xio_config.h"
#include "xio_counters.h"
#include "xio_stage.h"

struct xio_xsk;

struct xio_xsk_params {
	const char *iface;              /* ingress (A) */
	const char *egress;             /* B; may equal iface */
	bool bidirectional;             /* B -> A as well (egress differs) */
	unsigned queue;                 /* the queue number on both */
	bool copy;                      /* force copy mode (generic XDP) */
	int numa_node;                  /* UMEM placement, -1: local */
	int cpu;                        /* worker core, -1: not pinned */
	unsigned burst;                 /* RX burst */
	const struct xio_stage_cfg *stage;
	uint64_t *pending[XIO_MAX_DIRS]; /* per direction: the order barrier of
					  * the program on its ingress (BPF .bss) */
};

/* Creates the UMEM and both sockets. Returns 0 or -1 after logging why. */
int xio_xsk_open(struct xio_xsk **out, const struct xio_xsk_params *p);

/* The socket direction dir (0 a_to_b, 1 b_to_a) receives on, for the
 * XSKMAP of the program on that direction's ingress. */
int xio_xsk_fd(const struct xio_xsk *x, unsigned dir);

/* Starts the polling thread. */
int xio_xsk_start(struct xio_xsk *x);

/* Asks the worker to finish what it holds (the XDP programs must already
 * be detached), waits for it, and joins it. */
void xio_xsk_stop(struct xio_xsk *x);

/* The worker's counters of direction dir (a snapshot while it runs). */
void xio_xsk_counters(const struct xio_xsk *x, unsigned dir, struct xio_counters *c);

/* Frames the kernel could not place in direction dir's RX socket (RX ring
 * full, no fill buffer): lost before the stage core saw them. */
uint64_t xio_xsk_lost(const struct xio_xsk *x, unsigned dir);

void xio_xsk_close(struct xio_xsk *x);

#endif /* XIO_XSK_H */
