/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xsk.c: AF_XDP workers (libxdp's xsk API). Each worker owns a UMEM on
 * the interface's NUMA node (libnuma), a multi-buffer socket on its ingress
 * queue and, when the egress is another interface, a socket on the same
 * egress queue sharing the UMEM, so frames leave without a copy. With
 * --bidirectional both sockets receive and transmit (two directions, each
 * in on one socket and out on the other).
 *
 * The polling loop: reclaim TX completions, refill the fill rings, take a
 * burst of RX descriptors per direction, gather each frame's segments
 * (XDP_PKT_CONTD), run the stage core on them, and put the output, trimmed
 * to out_len, on the other socket's TX ring in the order it came. A frame
 * counts as finished for its direction's order barrier (the xio_pending of
 * the program on its ingress) once its TX completion is back, or when it is
 * dropped.
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

#include "xio_log.h"
#include "xio_xsk.h"

#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif

#define XSK_FRAME_SIZE 4096u
#define XSK_NFRAMES    4096u  /* UMEM chunks per receiving socket */
#define XSK_RING_SIZE  2048u
#define XSK_IDLE_SPINS 256u   /* empty polls before sleeping in poll() */
#define XSK_DRAIN_MS   2000u  /* longest wait for completions at stop */

/* One socket: on the ingress (port 0) or the egress (port 1) queue. */
struct xsk_port {
	struct xsk_socket *sock;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	int fd;
	bool rx_on, tx_on;

	/* TX: frames on the ring, oldest first, descriptors each; they belong
	 * to the direction that transmits here, whose barrier is pending */
	uint8_t *inflight;
	uint32_t if_head, if_count;
	uint32_t done_descs; /* completions not yet matched to whole frames */
	uint64_t *pending;

	/* RX: the frame being gathered */
	struct xio_seg seg[XIO_MAX_SEGS];
	uint64_t seg_addr[XIO_MAX_SEGS];
	unsigned nseg;
};

/* A direction: received on in, transmitted on out (the same port when the
 * egress is the ingress). */
struct xsk_dir {
	struct xsk_port *in, *out;
	uint64_t *pending;
	struct xio_counters cnt;
};

struct xio_xsk {
	struct xsk_umem *umem;
	void *area;
	size_t area_len;
	bool area_numa;
	uint32_t nframes;
	struct xsk_port port[2];
	unsigned nports;
	struct xsk_dir dir[XIO_MAX_DIRS];
	unsigned ndirs;

	struct xio_xsk_params p;
	struct xio_stage_cfg stage;
	pthread_t thread;
	bool started;
	int stop; /* release by xio_xsk_stop, acquire by the worker */

	/* free UMEM chunks, not in a fill ring */
	uint64_t *free_addr;
	uint32_t nfree;
};

static void pending_sub(uint64_t *pending, uint64_t n)
{
	if (n)
		__atomic_fetch_sub(pending, n, __ATOMIC_RELEASE);
}

static void free_chunk(struct xio_xsk *x, uint64_t addr)
{
	x->free_addr[x->nfree++] = addr & ~(uint64_t)(XSK_FRAME_SIZE - 1);
}

static void refill(struct xio_xsk *x, struct xsk_port *pt)
{
	uint32_t n = xsk_prod_nb_free(&pt->fill, x->nfree), idx, i;

	if (n > x->nfree)
		n = x->nfree;
	if (!n || xsk_ring_prod__reserve(&pt->fill, n, &idx) != n)
		return;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&pt->fill, idx + i) = x->free_addr[--x->nfree];
	xsk_ring_prod__submit(&pt->fill, n);
}

/* TX completions of one port: chunks back to the free list, whole frames
 * off its in-flight list and out of the order barrier. */
static void reclaim_port(struct xio_xsk *x, struct xsk_port *pt)
{
	uint32_t idx, n = xsk_ring_cons__peek(&pt->comp, XSK_RING_SIZE, &idx), i, frames = 0;

	for (i = 0; i < n; i++)
		free_chunk(x, *xsk_ring_cons__comp_addr(&pt->comp, idx + i));
	if (n)
		xsk_ring_cons__release(&pt->comp, n);
	pt->done_descs += n;
	while (pt->if_count && pt->done_descs >= pt->inflight[pt->if_head]) {
		pt->done_descs -= pt->inflight[pt->if_head];
		pt->if_head = (pt->if_head + 1) % XSK_RING_SIZE;
		pt->if_count--;
		frames++;
	}
	pending_sub(pt->pending, frames);
}

static void reclaim(struct xio_xsk *x)
{
	for (unsigned i = 0; i < x->nports; i++)
		if (x->port[i].tx_on)
			reclaim_port(x, &x->port[i]);
}

static void kick_tx(struct xio_xsk *x, struct xsk_port *pt)
{
	if (!pt->if_count || !xsk_ring_prod__needs_wakeup(&pt->tx))
		return;
	if (sendto(pt->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
	    errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
		XIO_LOG(ERR, "xdp: AF_XDP transmit on queue %u: %s", x->p.queue, strerror(errno));
}

static void kick_all(struct xio_xsk *x)
{
	for (unsigned i = 0; i < x->nports; i++)
		if (x->port[i].tx_on)
			kick_tx(x, &x->port[i]);
}

/* Puts the first out_len bytes of the frame gathered on d->in on d->out's
 * TX ring, waiting for room (backpressure, never a drop). */
static void transmit(struct xio_xsk *x, struct xsk_dir *d, uint32_t out_len)
{
	struct xsk_port *in = d->in, *out = d->out;
	uint32_t len[XIO_MAX_SEGS], left = out_len, idx, i;
	unsigned nd = 0;

	for (i = 0; i < in->nseg; i++) {
		len[i] = left < in->seg[i].len ? left : in->seg[i].len;
		left -= len[i];
		if (len[i])
			nd = i + 1;
	}
	if (!nd)
		nd = 1; /* an empty frame cannot happen: keep the first segment */
	while (xsk_ring_prod__reserve(&out->tx, nd, &idx) != nd) {
		kick_tx(x, out);
		reclaim(x);
	}
	for (i = 0; i < nd; i++) {
		struct xdp_desc *dsc = xsk_ring_prod__tx_desc(&out->tx, idx + i);

		dsc->addr = in->seg_addr[i];
		dsc->len = len[i];
		dsc->options = i + 1 < nd ? XDP_PKT_CONTD : 0;
	}
	for (; i < in->nseg; i++)
		free_chunk(x, in->seg_addr[i]);
	xsk_ring_prod__submit(&out->tx, nd);
	out->inflight[(out->if_head + out->if_count) % XSK_RING_SIZE] = (uint8_t)nd;
	out->if_count++;
}

static void finish_frame(struct xio_xsk *x, struct xsk_dir *d)
{
	struct xsk_port *in = d->in;
	struct xio_result res;
	uint32_t in_len = 0;
	unsigned i;

	for (i = 0; i < in->nseg; i++)
		in_len += in->seg[i].len;
	xio_process(&x->stage, in->seg, in->nseg, NULL, &res);
	xio_counters_account(&d->cnt, in_len, &res);
	if (res.action == XIO_ACT_DROP) {
		for (i = 0; i < in->nseg; i++)
			free_chunk(x, in->seg_addr[i]);
		pending_sub(d->pending, 1);
	} else {
		transmit(x, d, res.out_len);
	}
	in->nseg = 0;
}

/* One RX burst of direction d; returns the descriptors taken. */
static uint32_t rx_burst(struct xio_xsk *x, struct xsk_dir *d)
{
	struct xsk_port *in = d->in;
	uint32_t idx, n = xsk_ring_cons__peek(&in->rx, x->p.burst, &idx), i;

	for (i = 0; i < n; i++) {
		const struct xdp_desc *dsc = xsk_ring_cons__rx_desc(&in->rx, idx + i);
		uint64_t addr = xsk_umem__add_offset_to_addr(dsc->addr);

		in->seg[in->nseg].data = xsk_umem__get_data(x->area, addr);
		in->seg[in->nseg].len = dsc->len;
		in->seg_addr[in->nseg++] = addr;
		if (!(dsc->options & XDP_PKT_CONTD) || in->nseg == XIO_MAX_SEGS)
			finish_frame(x, d);
	}
	if (n)
		xsk_ring_cons__release(&in->rx, n);
	return n;
}

static uint32_t inflight(const struct xio_xsk *x)
{
	uint32_t n = 0;

	for (unsigned i = 0; i < x->nports; i++)
		n += x->port[i].if_count;
	return n;
}

static void *worker(void *arg)
{
	struct xio_xsk *x = arg;
	struct pollfd pfd[XIO_MAX_DIRS];
	unsigned idle = 0, drain_ms = 0, d;
	uint32_t got;

	for (d = 0; d < x->ndirs; d++)
		pfd[d] = (struct pollfd){ .fd = x->dir[d].in->fd, .events = POLLIN };
	if (x->p.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(x->p.cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (;;) {
		reclaim(x);
		for (d = 0, got = 0; d < x->ndirs; d++) {
			refill(x, x->dir[d].in);
			got += rx_burst(x, &x->dir[d]);
		}
		kick_all(x);
		if (got) {
			idle = 0;
			continue;
		}
		if (__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
			if (!inflight(x) || drain_ms >= XSK_DRAIN_MS)
				break;
			usleep(1000);
			drain_ms++;
			continue;
		}
		if (++idle >= XSK_IDLE_SPINS)
			poll(pfd, x->ndirs, 1);
	}
	if (inflight(x))
		XIO_LOG(ERR, "xdp: queue %u: %u frame(s) sent without a completion at stop",
			x->p.queue, inflight(x));
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

/* Socket i of the worker: on the ingress (0) or the egress (1) queue,
 * receiving when a direction comes in there, transmitting when one goes
 * out there. The first one owns the UMEM's fill and completion rings. */
static int open_port(struct xio_xsk *x, unsigned i, const char *ifname,
		     struct xsk_socket_config scfg)
{
	struct xsk_port *pt = &x->port[i];
	const struct xio_xsk_params *p = &x->p;
	int err;

	if (!pt->rx_on)
		scfg.rx_size = 0;
	if (i == 0)
		err = xsk_socket__create(&pt->sock, ifname, p->queue, x->umem,
					 pt->rx_on ? &pt->rx : NULL, pt->tx_on ? &pt->tx : NULL,
					 &scfg);
	else
		err = xsk_socket__create_shared(&pt->sock, ifname, p->queue, x->umem,
						pt->rx_on ? &pt->rx : NULL,
						pt->tx_on ? &pt->tx : NULL, &pt->fill, &pt->comp,
						&scfg);
	if (err) {
		XIO_LOG(ERR, "xdp: AF_XDP socket on %s queue %u: %s%s", ifname, p->queue,
			strerror(-err),
			err == -EINVAL && pt->rx_on ? " (multi-buffer AF_XDP, XDP_USE_SG, needs "
						      "Linux 6.6 or later)" : "");
		return -1;
	}
	pt->fd = xsk_socket__fd(pt->sock);
	if (pt->tx_on) {
		pt->inflight = calloc(XSK_RING_SIZE, 1);
		if (!pt->inflight)
			return -1;
	}
	return 0;
}

/* Which port each direction receives and transmits on. */
static void plan(struct xio_xsk *x, bool same)
{
	x->nports = same ? 1 : 2;
	x->ndirs = x->p.bidirectional && !same ? 2 : 1;
	for (unsigned d = 0; d < x->ndirs; d++) {
		struct xsk_dir *dir = &x->dir[d];

		dir->in = &x->port[d];
		dir->out = &x->port[x->nports - 1 - d];
		dir->pending = x->p.pending[d];
		dir->in->rx_on = true;
		dir->out->tx_on = true;
		dir->out->pending = dir->pending;
	}
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
	struct xio_xsk *x;
	uint32_t i;
	int err;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -1;
	x->p = *p;
	x->stage = *p->stage;
	plan(x, strcmp(p->iface, p->egress) == 0);
	x->nframes = XSK_NFRAMES * x->ndirs;
	x->free_addr = calloc(x->nframes, sizeof(*x->free_addr));
	x->area_len = (size_t)x->nframes * XSK_FRAME_SIZE;
	x->area = umem_alloc(x, x->area_len, p->numa_node);
	if (!x->free_addr || !x->area) {
		XIO_LOG(ERR, "xdp: cannot allocate the AF_XDP UMEM (%zu bytes)", x->area_len);
		goto fail;
	}
	err = xsk_umem__create(&x->umem, x->area, x->area_len, &x->port[0].fill,
			       &x->port[0].comp, &ucfg);
	if (err) {
		XIO_LOG(ERR, "xdp: AF_XDP UMEM: %s", strerror(-err));
		goto fail;
	}
	if (open_port(x, 0, p->iface, scfg) || (x->nports > 1 && open_port(x, 1, p->egress, scfg)))
		goto fail;
	for (i = 0; i < x->nframes; i++)
		x->free_addr[x->nfree++] = (uint64_t)(x->nframes - 1 - i) * XSK_FRAME_SIZE;
	for (i = 0; i < x->ndirs; i++)
		refill(x, x->dir[i].in);
	*out = x;
	return 0;
fail:
	xio_xsk_close(x);
	return -1;
}

int xio_xsk_fd(const struct xio_xsk *x, unsigned dir)
{
	return x->dir[dir].in->fd;
}

int xio_xsk_start(struct xio_xsk *x)
{
	int err = pthread_create(&x->thread, NULL, worker, x);

	if (err) {
		XIO_LOG(ERR, "xdp: worker thread for queue %u: %s", x->p.queue, strerror(err));
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

void xio_xsk_counters(const struct xio_xsk *x, unsigned dir, struct xio_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (dir < x->ndirs) /* relaxed loads: the worker may be adding */
		xio_counters_add(c, &x->dir[dir].cnt);
}

uint64_t xio_xsk_lost(const struct xio_xsk *x, unsigned dir)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (dir >= x->ndirs ||
	    getsockopt(x->dir[dir].in->fd, SOL_XDP, XDP_STATISTICS, &st, &len) < 0)
		return 0;
	return st.rx_dropped + st.rx_ring_full;
}

void xio_xsk_close(struct xio_xsk *x)
{
	if (!x)
		return;
	xio_xsk_stop(x);
	for (int i = 1; i >= 0; i--) {
		if (x->port[i].sock)
			xsk_socket__delete(x->port[i].sock);
		free(x->port[i].inflight);
	}
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area) {
		if (x->area_numa)
			numa_free(x->area, x->area_len);
		else
			munmap(x->area, x->area_len);
	}
	free(x->free_addr);
	free(x);
}
