/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ethdev_list.c: --list-ports. The DPDK ports the EAL found (driver,
 * MAC, NUMA socket, link, queues, offloads) and, through libibverbs, the
 * RDMA devices of the machine (mlx5_N: PCI address, port states, netdevs),
 * which on a BlueField tell what to pass to -a.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>

#ifdef XIO_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

#include "xio_ethdev.h"

static void xio_list_offloads(FILE *out, const char *what, uint64_t capa, bool rx)
{
	fprintf(out, "    %s offloads:", what);
	if (capa == 0)
		fputs(" none", out);
	for (int b = 0; b < 64; b++) {
		uint64_t bit = 1ULL << b;

		if (capa & bit)
			fprintf(out, " %s", rx ? rte_eth_dev_rx_offload_name(bit) :
						 rte_eth_dev_tx_offload_name(bit));
	}
	fputc('\n', out);
}

static void xio_list_port(FILE *out, uint16_t port)
{
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	char name[RTE_ETH_NAME_MAX_LEN] = "?";
	char macs[RTE_ETHER_ADDR_FMT_SIZE] = "?";
	char links[64] = "?";

	if (rte_eth_dev_info_get(port, &info) != 0) {
		fprintf(out, "port %u: cannot read device info\n", port);
		return;
	}
	rte_eth_dev_get_name_by_port(port, name);
	if (rte_eth_macaddr_get(port, &mac) == 0)
		rte_ether_format_addr(macs, sizeof(macs), &mac);
	if (rte_eth_link_get_nowait(port, &link) == 0)
		snprintf(links, sizeof(links), "%s, %u Mbps, %s duplex",
			 link.link_status ? "up" : "down", link.link_speed,
			 link.link_duplex ? "full" : "half");
	fprintf(out, "port %u: %s driver %s mac %s socket %d\n", port, name, info.driver_name,
		macs, rte_eth_dev_socket_id(port));
	fprintf(out, "    link: %s\n", links);
	fprintf(out, "    queues: rx %u max, tx %u max; mtu %u..%u; rss types 0x%" PRIx64 "\n",
		info.max_rx_queues, info.max_tx_queues, info.min_mtu, info.max_mtu,
		info.flow_type_rss_offloads);
	xio_list_offloads(out, "rx", info.rx_offload_capa, true);
	xio_list_offloads(out, "tx", info.tx_offload_capa, false);
}

#ifdef XIO_HAVE_IBVERBS
/* The PCI address behind /sys/class/infiniband/NAME/device. */
static void xio_list_pci(const char *ibdev_path, char *pci, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/device", ibdev_path);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0) {
		snprintf(pci, len, "?");
		return;
	}
	target[n] = '\0';
	snprintf(pci, len, "%s", basename(target));
}

static void xio_list_netdevs(FILE *out, const char *ibdev_path)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/device/net", ibdev_path);
	fputs("    netdevs:", out);
	d = opendir(path);
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		fprintf(out, " %s", e->d_name);
		n++;
	}
	if (d != NULL)
		closedir(d);
	fputs(n ? "\n" : " none\n", out);
}

static void xio_list_ibports(FILE *out, struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr attr;

	if (ctx == NULL) {
		fprintf(out, "    cannot open: %s\n", strerror(errno));
		return;
	}
	if (ibv_query_device(ctx, &attr) == 0) {
		for (uint8_t p = 1; p <= attr.phys_port_cnt; p++) {
			struct ibv_port_attr pa;

			if (ibv_query_port(ctx, p, &pa) != 0)
				continue;
			fprintf(out, "    port %u: %s, %s\n", p, ibv_port_state_str(pa.state),
				pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
		}
	}
	ibv_close_device(ctx);
}

static void xio_list_rdma(FILE *out)
{
	struct ibv_device **list;
	char pci[64];
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list == NULL && errno == ENOSYS) {
		fputs("RDMA devices (libibverbs): 0 (no RDMA subsystem on this machine)\n", out);
		return;
	}
	if (list == NULL) {
		fprintf(out, "RDMA devices: libibverbs cannot list them: %s\n", strerror(errno));
		return;
	}
	fprintf(out, "RDMA devices (libibverbs): %d\n", n);
	for (int i = 0; i < n; i++) {
		xio_list_pci(list[i]->ibdev_path, pci, sizeof(pci));
		fprintf(out, "rdma %s: pci %s (use: -a %s)\n", ibv_get_device_name(list[i]), pci,
			pci);
		xio_list_ibports(out, list[i]);
		xio_list_netdevs(out, list[i]->ibdev_path);
	}
	ibv_free_device_list(list);
}
#else
static void xio_list_rdma(FILE *out)
{
	fputs("RDMA devices: not listed (built without libibverbs)\n", out);
}
#endif

void xio_ethdev_list(FILE *out)
{
	uint16_t port;

	fprintf(out, "DPDK ports: %u\n", rte_eth_dev_count_avail());
	RTE_ETH_FOREACH_DEV(port)
		xio_list_port(out, port);
	xio_list_rdma(out);
}
