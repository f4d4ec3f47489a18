/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xsk.c: AF_XDP workers (libxdp's xsk API). Each worker owns a UMEM on
 * the interface's NUMA node (libnuma), a multi-buffer socket on its ingress
 * queue and, when the egress is another interface, a TX socket on the same
 * egress queue sharing the UMEM, so frames leave without a copy.
 *
 * The polling loop: reclaim TX completions into the fill ring, take a burst
 * of RX descriptors, gather each frame's segments (XDP_PKT_CONTD), run the
 * stage core on them, and put the output, trimmed to out_len, on the TX ring
 * in the order it came. A frame counts as finished for the kernel's order
 * barrier (xio_pending) once its TX completion is back, or when it is dropped.
 */
#include <errno.h>
#include <numa.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#include "xio_xsk.h"

#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif

#define XSK_FRAME_SIZE 4096u
#define XSK_NFRAMES    4096u
#define XSK_RING_SIZE  2048u
#define XSK_IDLE_SPINS 256u   /* empty polls before sleeping in poll() */
#define XSK_DRAIN_MS   2000u  /* longest wait for completions at stop */

struct xio_xsk {
	struct xsk_umem *umem;
	void *area;
	size_t area_len;
	bool area_numa;
	struct xsk_socket *rx_sock; /* ingress queue: RX (and TX when same) */
	struct xsk_socket *tx_sock; /* egress queue, shared UMEM; NULL when same */
	struct xsk_ring_prod fill, tx_fill;
	struct xsk_ring_cons comp, tx_comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	struct xsk_ring_cons *cq; /* completions of the TX socket */
	int tx_fd;

	struct xio_xsk_params p;
	struct xio_stage_cfg stage;
	pthread_t thread;
	bool started;
	volatile int stop;

	/* free UMEM chunks, not in the fill ring */
	uint64_t *free_addr;
	uint32_t nfree;

	/* frames on the TX ring, oldest first: descriptors each */
	uint8_t *inflight;
	uint32_t if_head, if_count;
	uint32_t done_descs; /* completions not yet matched to whole frames */

	/* the frame being gathered */
	struct xio_seg seg[XIO_MAX_SEGS];
	uint64_t seg_addr[XIO_MAX_SEGS];
	unsigned nseg;

	struct xio_counters cnt;
};

static void pending_sub(struct xio_xsk *x, uint64_t n)
{
	if (n)
		__atomic_fetch_sub(x->p.pending, n, __ATOMIC_RELEASE);
}

static void free_chunk(struct xio_xsk *x, uint64_t addr)
{
	x->free_addr[x->nfree++] = addr & ~(uint64_t)(XSK_FRAME_SIZE - 1);
}

static void refill(struct xio_xsk *x)
{
	uint32_t n = xsk_prod_nb_free(&x->fill, x->nfree), idx, i;

	if (n > x->nfree)
		n = x->nfree;
	if (!n || xsk_ring_prod__reserve(&x->fill, n, &idx) != n)
		return;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = x->free_addr[--x->nfree];
	xsk_ring_prod__submit(&x->fill, n);
}

/* TX completions: chunks back to the free list, whole frames off the
 * in-flight list and out of the order barrier. */
static void reclaim(struct xio_xsk *x)
{
	uint32_t idx, n = xsk_ring_cons__peek(x->cq, XSK_RING_SIZE, &idx), i, frames = 0;

	for (i = 0; i < n; i++)
		free_chunk(x, *xsk_ring_cons__comp_addr(x->cq, idx + i));
	if (n)
		xsk_ring_cons__release(x->cq, n);
	x->done_descs += n;
	while (x->if_count && x->done_descs >= x->inflight[x->if_head]) {
		x->done_descs -= x->inflight[x->if_head];
		x->if_head = (x->if_head + 1) % XSK_RING_SIZE;
		x->if_count--;
		frames++;
	}
	pending_sub(x, frames);
}

static void kick_tx(struct xio_xsk *x)
{
	if (!x->if_count || !xsk_ring_prod__needs_wakeup(&x->tx))
		return;
	if (sendto(x->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
	    errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
		fprintf(stderr, "xdp: AF_XDP transmit on queue %u: %s\n", x->p.queue, strerror(errno));
}

/* Puts the first out_len bytes of the gathered frame on the TX ring,
 * waiting for room (backpressure, never a drop). */
static void transmit(struct xio_xsk *x, uint32_t out_len)
{
	uint32_t len[XIO_MAX_SEGS], left = out_len, idx, i;
	unsigned nd = 0;

	for (i = 0; i < x->nseg; i++) {
		len[i] = left < x->seg[i].len ? left : x->seg[i].len;
		left -= len[i];
		if (len[i])
			nd = i + 1;
	}
	if (!nd)
		nd = 1; /* an empty frame cannot happen: keep the first segment */
	while (xsk_ring_prod__reserve(&x->tx, nd, &idx) != nd) {
		kick_tx(x);
		reclaim(x);
	}
	for (i = 0; i < nd; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);

		d->addr = x->seg_addr[i];
		d->len = len[i];
		d->options = i + 1 < nd ? XDP_PKT_CONTD : 0;
	}
	for (; i < x->nseg; i++)
		free_chunk(x, x->seg_addr[i]);
	xsk_ring_prod__submit(&x->tx, nd);
	x->inflight[(x->if_head + x->if_count) % XSK_RING_SIZE] = (uint8_t)nd;
	x->if_count++;
}

static void finish_frame(struct xio_xsk *x)
{
	struct xio_result res;
	uint32_t in_len = 0;
	unsigned i;

	for (i = 0; i < x->nseg; i++)
		in_len += x->seg[i].len;
	xio_process(&x->stage, x->seg, x->nseg, NULL, &res);
	xio_counters_account(&x->cnt, in_len, &res);
	if (res.action == XIO_ACT_DROP) {
		for (i = 0; i < x->nseg; i++)
			free_chunk(x, x->seg_addr[i]);
		pending_sub(x, 1);
	} else {
		transmit(x, res.out_len);
	}
	x->nseg = 0;
}

/* One RX burst; returns the descriptors taken. */
static uint32_t rx_burst(struct xio_xsk *x)
{
	uint32_t idx, n = xsk_ring_cons__peek(&x->rx, x->p.burst, &idx), i;

	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
		uint64_t addr = xsk_umem__add_offset_to_addr(d->addr);

		x->seg[x->nseg].data = xsk_umem__get_data(x->area, addr);
		x->seg[x->nseg].len = d->len;
		x->seg_addr[x->nseg++] = addr;
		if (!(d->options & XDP_PKT_CONTD) || x->nseg == XIO_MAX_SEGS)
			finish_frame(x);
	}
	if (n)
		xsk_ring_cons__release(&x->rx, n);
	return n;
}

static void *worker(void *arg)
{
	struct xio_xsk *x = arg;
	struct pollfd pfd = { .fd = xsk_socket__fd(x->rx_sock), .events = POLLIN };
	unsigned idle = 0, drain_ms = 0;

	if (x->p.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(x->p.cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (;;) {
		reclaim(x);
		refill(x);
		if (rx_burst(x)) {
			kick_tx(x);
			idle = 0;
			continue;
		}
		kick_tx(x);
		if (__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
			if (!x->if_count || drain_ms >= XSK_DRAIN_MS)
				break;
			usleep(1000);
			drain_ms++;
			continue;
		}
		if (++idle >= XSK_IDLE_SPINS)
			poll(&pfd, 1, 1);
	}
	if (x->if_count)
		fprintf(stderr, "xdp: queue %u: %u frame(s) sent without a completion at stop\n",
			x->p.queue, x->if_count);
	return NULL;
}

static void *umem_alloc(struct xio_xsk *x, size_t len, int node)
{
	void *a;

	if (node >= 0 && numa_available() >= 0) {
		a = numa_alloc_onnode(len, node);
		if (a) {
			x->area_numa = true;
			return a;
		}
	}
	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	return a == MAP_FAILED ? NULL : a;
}

int xio_xsk_open(struct xio_xsk **out, const struct xio_xsk_params *p)
{
	struct xsk_umem_config ucfg = {
		.fill_size = XSK_RING_SIZE,
		.comp_size = XSK_RING_SIZE,
		.frame_size = XSK_FRAME_SIZE,
		.frame_headroom = 0,
	};
	struct xsk_socket_config scfg = {
		.rx_size = XSK_RING_SIZE,
		.tx_size = XSK_RING_SIZE,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_SG | XDP_USE_NEED_WAKEUP | (p->copy ? XDP_COPY : 0),
	};
	bool same = strcmp(p->iface, p->egress) == 0;
	struct xio_xsk *x;
	uint32_t i;
	int err;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -1;
	x->p = *p;
	x->stage = *p->stage;
	x->free_addr = calloc(XSK_NFRAMES, sizeof(*x->free_addr));
	x->inflight = calloc(XSK_RING_SIZE, 1);
	x->area_len = (size_t)XSK_NFRAMES * XSK_FRAME_SIZE;
	x->area = umem_alloc(x, x->area_len, p->numa_node);
	if (!x->free_addr || !x->inflight || !x->area) {
		fprintf(stderr, "xdp: cannot allocate the AF_XDP UMEM (%zu bytes)\n", x->area_len);
		goto fail;
	}
	err = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fill, &x->comp, &ucfg);
	if (err) {
		fprintf(stderr, "xdp: AF_XDP UMEM: %s\n", strerror(-err));
		goto fail;
	}
	err = xsk_socket__create(&x->rx_sock, p->iface, p->queue, x->umem, &x->rx,
				 same ? &x->tx : NULL, &scfg);
	if (err) {
		fprintf(stderr, "xdp: AF_XDP socket on %s queue %u: %s%s\n", p->iface, p->queue,
			strerror(-err),
			err == -EINVAL ? " (multi-buffer AF_XDP, XDP_USE_SG, needs Linux 6.6 or later)"
				       : "");
		goto fail;
	}
	if (same) {
		x->cq = &x->comp;
		x->tx_fd = xsk_socket__fd(x->rx_sock);
	} else {
		scfg.rx_size = 0;
		err = xsk_socket__create_shared(&x->tx_sock, p->egress, p->queue, x->umem, NULL,
						&x->tx, &x->tx_fill, &x->tx_comp, &scfg);
		if (err) {
			fprintf(stderr, "xdp: AF_XDP socket on %s queue %u: %s\n", p->egress,
				p->queue, strerror(-err));
			goto fail;
		}
		x->cq = &x->tx_comp;
		x->tx_fd = xsk_socket__fd(x->tx_sock);
	}
	for (i = 0; i < XSK_NFRAMES; i++)
		x->free_addr[x->nfree++] = (uint64_t)(XSK_NFRAMES - 1 - i) * XSK_FRAME_SIZE;
	refill(x);
	*out = x;
	return 0;
fail:
	xio_xsk_close(x);
	return -1;
}

int xio_xsk_fd(const struct xio_xsk *x)
{
	return xsk_socket__fd(x->rx_sock);
}

int xio_xsk_start(struct xio_xsk *x)
{
	int err = pthread_create(&x->thread, NULL, worker, x);

	if (err) {
		fprintf(stderr, "xdp: worker thread for queue %u: %s\n", x->p.queue, strerror(err));
		return -1;
	}
	x->started = true;
	return 0;
}

void xio_xsk_stop(struct xio_xsk *x)
{
	if (!x->started)
		return;
	__atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
	pthread_join(x->thread, NULL);
	x->started = false;
}

void xio_xsk_counters(const struct xio_xsk *x, struct xio_counters *c)
{
	memcpy(c, &x->cnt, sizeof(*c));
}

uint64_t xio_xsk_lost(const struct xio_xsk *x)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (getsockopt(xsk_socket__fd(x->rx_sock), SOL_XDP, XDP_STATISTICS, &st, &len) < 0)
		return 0;
	return st.rx_dropped + st.rx_ring_full;
}

void xio_xsk_close(struct xio_xsk *x)
{
	if (!x)
		return;
	xio_xsk_stop(x);
	if (x->tx_sock)
		xsk_socket__delete(x->tx_sock);
	if (x->rx_sock)
		xsk_socket__delete(x->rx_sock);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area) {
		if (x->area_numa)
			numa_free(x->area, x->area_len);
		else
			munmap(x->area, x->area_len);
	}
	free(x->free_addr);
	free(x->inflight);
	free(x);
}
