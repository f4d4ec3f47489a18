/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ethdev_afp.c: the frames net_af_packet's kernel rings drop. DPDK
 * 22.11's PMD opens one AF_PACKET socket per queue pair when the vdev is
 * probed (TPACKET_V2, an RX and a TX ring, bound to the interface) and never
 * reads their PACKET_STATISTICS: frames that come while a receive ring is
 * full are dropped by the kernel and no ethdev counter shows them. Here the
 * sockets are found among the process's file descriptors when the port is
 * probed (AF_PACKET, TPACKET_V2, bound to the port's interface: as many as
 * the PMD has queues, or none is counted), and their tp_drops, which the
 * kernel resets on every read, are summed into the port's imissed. Read on
 * the main lcore or the telemetry thread, never on the data path.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "xio_ethdev.h"
#include "xio_log.h"

/* One of the PMD's sockets: a TPACKET_V2 packet socket bound to if_index. */
static bool xio_afp_is_pmd_socket(int fd, unsigned if_index)
{
	struct sockaddr_ll sll;
	socklen_t len = sizeof(int);
	int v;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) != 0 || v != AF_PACKET)
		return false;
	len = sizeof(v);
	if (getsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, &len) != 0 || v != TPACKET_V2)
		return false;
	len = sizeof(sll);
	return getsockname(fd, (struct sockaddr *)&sll, &len) == 0 &&
	       sll.sll_family == AF_PACKET && sll.sll_ifindex == (int)if_index;
}

/* The process's descriptors that are the PMD's sockets, into p->afp_fd;
 * returns how many there are (more than fit counts as one more). */
static unsigned xio_afp_scan(struct xio_port *p, unsigned if_index)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(d) || !xio_afp_is_pmd_socket(fd, if_index))
			continue;
		if (n < RTE_DIM(p->afp_fd))
			p->afp_fd[n] = fd;
		n++;
	}
	closedir(d);
	return n;
}

void xio_ethdev_afp_find(struct xio_port *p, unsigned if_index, unsigned nq)
{
	unsigned n;

	rte_spinlock_init(&p->afp_lock);
	p->afp_nfd = 0;
	p->afp_drops = 0;
	n = if_index != 0 ? xio_afp_scan(p, if_index) : 0;
	if (n == 0 || n != nq) {
		XIO_LOG(NOTICE, "port %u (%s on %s): %u packet socket(s) on the interface for %u "
			"queue(s): the frames its kernel rings drop are not counted", p->id,
			p->name, p->ifname, n, nq);
		return;
	}
	p->afp_nfd = n;
	XIO_LOG(INFO, "port %u (%s on %s): the frames its %u kernel ring(s) drop count as "
		"imissed", p->id, p->name, p->ifname, n);
}

uint64_t xio_ethdev_missed(struct xio_port *p)
{
	struct tpacket_stats st;
	socklen_t len;
	uint64_t total;

	if (p->kind != XIO_PORT_AF_PACKET)
		return 0;
	rte_spinlock_lock(&p->afp_lock);
	for (unsigned i = 0; i < p->afp_nfd; i++) {
		len = sizeof(st);
		if (getsockopt(p->afp_fd[i], SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0) {
			XIO_LOG(NOTICE, "port %u: PACKET_STATISTICS: %s: kernel ring drops no "
				"longer counted", p->id, strerror(errno));
			p->afp_nfd = 0;
			break;
		}
		p->afp_drops += st.tp_drops;
	}
	total = p->afp_drops;
	rte_spinlock_unlock(&p->afp_lock);
	return total;
}

void xio_ethdev_afp_close(struct xio_port *p)
{
	if (p->kind != XIO_PORT_AF_PACKET)
		return;
	rte_spinlock_lock(&p->afp_lock);
	p->afp_nfd = 0;
	rte_spinlock_unlock(&p->afp_lock);
	if (p->afp_drops != 0)
		XIO_LOG(WARNING, "port %u (%s on %s): the kernel dropped %" PRIu64 " frame(s), "
			"the receive ring full (imissed; a larger framecnt gives bursts room)",
			p->id, p->name, p->ifname, p->afp_drops);
}
