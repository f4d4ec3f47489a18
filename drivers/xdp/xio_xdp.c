/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xdp.c: xio_xdp_run(), the XDP path of xio-pipeline. Loads the XDP
 * program from its skeleton with the stage configuration in .rodata, opens
 * one AF_XDP worker per ingress queue (xio_xsk.c), fills the DEVMAP and
 * XSKMAP, attaches with libbpf's bpf_xdp_attach (native, else generic), then
 * hands the run layer (pipeline/xio_run.h) its operations: the per-CPU
 * counters for idle-exit and the stats line; at the stop, detach and let
 * the workers finish what they hold; the totals are kernel plus user space.
 *
 * --bidirectional: a second instance of the program (its own maps and
 * counters) on the egress, redirecting to the ingress; the workers take
 * both directions. Each direction's counters are its program's plus its
 * workers' share.
 *
 * Not libxdp's multi-program dispatcher: the dispatcher of Debian's libxdp
 * 1.3.1 is refused by newer kernels for programs that change the packet
 * size (bpf_xdp_adjust_tail), and this one does (docs/xdp.md).
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "xio_log.h"
#include "xio_xdp.h"
#include "xio_xdp.skel.h"
#include "xio_xdp_shared.h"
#include "xio_xsk.h"

_Static_assert(XIO_XDP_NREASONS == XIO_R_COUNT, "xio_xdp_stats.reasons must match enum xio_reason");

#define XDP_POLL_US 5000 /* control loop period */

/* One interface with a program of ours: the ingress (side 0) and, with
 * --bidirectional, the egress (side 1), each redirecting to the other. */
struct xdp_side {
	const char *name;
	int ifindex;
	struct xio_xdp_bpf *skel;
	bool generic;
	bool attached;
};

struct xdp_run {
	const struct xio_config *cfg;
	const char *egress;
	int egress_ifindex;
	bool same;
	enum xio_xdp_mode mode;
	struct xdp_side side[XIO_MAX_DIRS];
	unsigned nsides;
	struct xio_xsk *xsk[XIO_XDP_MAX_QUEUES];
	unsigned nq;
	int ncpus;
	__u64 seen;       /* frames the programs had seen at last_rx_s */
	double last_rx_s; /* when that count last moved */
	__u64 lost;       /* frames lost before AF_XDP, once stopped */
	bool stopped;
};

static const char *mode_name(enum xio_xdp_mode m)
{
	return m == XIO_XDP_MODE_AFXDP ? "afxdp" : "kernel";
}

/* Queues of an interface as sysfs lists them (queues/rx-N or tx-N). */
static unsigned count_queues(const char *ifname, const char *prefix)
{
	char path[128];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return 1;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n ? n : 1;
}

static int numa_node_of(const char *ifname)
{
	char path[128];
	int node = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/numa_node", ifname);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node;
}

/* The q-th core of the interface's NUMA node (any core when unknown). */
static int cpu_for_queue(int node, unsigned q)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct bitmask *cpus;
	int cpu = -1, seen = 0, i, n = 0;

	if (ncpu < 1)
		return -1;
	if (node < 0 || numa_available() < 0)
		return (int)(q % ncpu);
	cpus = numa_allocate_cpumask();
	if (!cpus || numa_node_to_cpus(node, cpus) < 0) {
		numa_free_cpumask(cpus);
		return (int)(q % ncpu);
	}
	for (i = 0; i < ncpu; i++)
		n += numa_bitmask_isbitset(cpus, i);
	for (i = 0; n && i < ncpu; i++) {
		if (numa_bitmask_isbitset(cpus, i) && seen++ == (int)(q % n)) {
			cpu = i;
			break;
		}
	}
	numa_free_cpumask(cpus);
	return cpu >= 0 ? cpu : (int)(q % ncpu);
}

static int load_prog(struct xdp_run *r, struct xdp_side *sd, enum xio_xdp_mode mode)
{
	const struct xio_config *cfg = r->cfg;
	int err;

	sd->skel = xio_xdp_bpf__open();
	if (!sd->skel) {
		XIO_LOG(ERR, "xdp: cannot open the XDP program: %s", strerror(errno));
		return -1;
	}
	sd->skel->rodata->cfg_udp_port = cfg->stage.udp_port;
	sd->skel->rodata->cfg_overflow = (__u8)cfg->stage.overflow;
	sd->skel->rodata->cfg_drop_invalid = cfg->stage.drop_invalid;
	sd->skel->rodata->cfg_all_to_user = mode == XIO_XDP_MODE_AFXDP;
	sd->skel->rodata->cfg_tx_same = r->same;
	err = xio_xdp_bpf__load(sd->skel);
	if (err) {
		XIO_LOG(ERR, "xdp: the kernel refused the XDP program (%s mode): %s%s",
			mode_name(mode), strerror(-err),
			err == -EPERM ? " (needs root or CAP_BPF + CAP_NET_ADMIN)" : "");
		xio_xdp_bpf__destroy(sd->skel);
		sd->skel = NULL;
		return -1;
	}
	return 0;
}

/* The program on every side, in kernel mode when it can (or was asked),
 * else afxdp; each side's DEVMAP holds the other end. */
static int load_progs(struct xdp_run *r)
{
	enum xio_xdp_mode want = r->cfg->xdp_mode;
	unsigned i;

	r->mode = want == XIO_XDP_MODE_AFXDP ? XIO_XDP_MODE_AFXDP : XIO_XDP_MODE_KERNEL;
	if (load_prog(r, &r->side[0], r->mode)) {
		if (want != XIO_XDP_MODE_AUTO || load_prog(r, &r->side[0], XIO_XDP_MODE_AFXDP))
			return -1;
		XIO_LOG(NOTICE, "xdp: using afxdp mode instead");
		r->mode = XIO_XDP_MODE_AFXDP;
	}
	for (i = 1; i < r->nsides; i++)
		if (load_prog(r, &r->side[i], r->mode))
			return -1;
	for (i = 0; i < r->nsides && !r->same; i++) {
		__u32 key = 0, ifx = (__u32)(i ? r->side[0].ifindex : r->egress_ifindex);

		if (bpf_map_update_elem(bpf_map__fd(r->side[i].skel->maps.xio_egress), &key, &ifx,
					BPF_ANY)) {
			XIO_LOG(ERR, "xdp: %s cannot be a redirect target: %s",
				i ? r->side[0].name : r->egress, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int attach(struct xdp_side *sd)
{
	int fd = bpf_program__fd(sd->skel->progs.xio_xdp), err;
	__u32 base = XDP_FLAGS_UPDATE_IF_NOEXIST;

	if (!sd->generic) {
		err = bpf_xdp_attach(sd->ifindex, fd, base | XDP_FLAGS_DRV_MODE, NULL);
		if (!err)
			goto done;
		if (err == -EBUSY || err == -EEXIST)
			goto busy;
		XIO_LOG(NOTICE, "xdp: native XDP on %s failed (%s); falling back to generic XDP",
			sd->name, strerror(-err));
		sd->generic = true;
	}
	err = bpf_xdp_attach(sd->ifindex, fd, base | XDP_FLAGS_SKB_MODE, NULL);
	if (!err)
		goto done;
	if (err == -EBUSY || err == -EEXIST)
		goto busy;
	XIO_LOG(ERR, "xdp: cannot attach the XDP program to %s: %s", sd->name,
		strerror(-err));
	return -1;
done:
	sd->attached = true;
	return 0;
busy:
	XIO_LOG(ERR, "xdp: %s already has an XDP program; remove it first (ip link set dev %s xdp off)",
		sd->name, sd->name);
	return -1;
}

static void detach(struct xdp_run *r)
{
	for (unsigned i = 0; i < r->nsides; i++) {
		struct xdp_side *sd = &r->side[i];

		if (!sd->attached)
			continue;
		bpf_xdp_detach(sd->ifindex, sd->generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE,
			       NULL);
		sd->attached = false;
	}
}

/* Queues: one worker per ingress RX queue; the egress needs as many TX
 * queues, and with --bidirectional as many RX queues too, and the ingress
 * as many TX queues. */
static int check_queues(struct xdp_run *r)
{
	const char *a = r->cfg->iface, *b = r->egress;
	unsigned b_txq = count_queues(b, "tx-");

	r->nq = count_queues(a, "rx-");
	if (r->nq > XIO_XDP_MAX_QUEUES) {
		XIO_LOG(ERR, "xdp: %s has %u RX queues, at most %d are supported "
			"(ethtool -L %s combined N)", a, r->nq, XIO_XDP_MAX_QUEUES, a);
		return -1;
	}
	if (!r->same && b_txq < r->nq) {
		XIO_LOG(ERR, "xdp: egress %s has %u TX queues for %u RX queues on %s; "
			"give it as many (ethtool -L) or fewer to %s", b, b_txq, r->nq, a, a);
		return -1;
	}
	if (r->nsides > 1 && (count_queues(b, "rx-") != r->nq || count_queues(a, "tx-") < r->nq)) {
		XIO_LOG(ERR, "xdp: --bidirectional needs as many RX queues on %s as on %s (%u "
			"and %u) and as many TX queues on each (ethtool -L IF combined N)", b, a,
			count_queues(b, "rx-"), r->nq);
		return -1;
	}
	return 0;
}

static int open_workers(struct xdp_run *r)
{
	int node = numa_node_of(r->cfg->iface);
	unsigned q, i;

	if (check_queues(r))
		return -1;
	for (q = 0; q < r->nq; q++) {
		struct xio_xsk_params p = {
			.iface = r->cfg->iface,
			.egress = r->egress,
			.bidirectional = r->nsides > 1,
			.queue = q,
			.copy = r->side[0].generic,
			.numa_node = node,
			.cpu = cpu_for_queue(node, q),
			.burst = r->cfg->burst ? r->cfg->burst : XIO_DEFAULT_BURST,
			.stage = &r->cfg->stage,
		};

		for (i = 0; i < r->nsides; i++)
			p.pending[i] = (uint64_t *)&r->side[i].skel->bss->xio_pending[q];
		if (xio_xsk_open(&r->xsk[q], &p))
			return -1;
		for (i = 0; i < r->nsides; i++) {
			int fd = xio_xsk_fd(r->xsk[q], i);

			if (bpf_map_update_elem(bpf_map__fd(r->side[i].skel->maps.xio_xsks), &q, &fd,
						BPF_ANY)) {
				XIO_LOG(ERR, "xdp: XSKMAP entry for %s queue %u: %s",
					r->side[i].name, q, strerror(errno));
				return -1;
			}
		}
		if (xio_xsk_start(r->xsk[q]))
			return -1;
	}
	return 0;
}

/* The kernel counters of one side's program, summed over the CPUs. The
 * control loop and the --metrics thread both read them: each call has its
 * own per-CPU buffer (the control path, never the data path). */
static int side_stats(struct xdp_run *r, unsigned side, struct xio_xdp_stats *sum)
{
	struct xio_xdp_stats *percpu = calloc((size_t)r->ncpus, sizeof(*percpu));
	__u32 key = 0;
	int c, i;

	memset(sum, 0, sizeof(*sum));
	if (!percpu ||
	    bpf_map_lookup_elem(bpf_map__fd(r->side[side].skel->maps.xio_stats), &key, percpu)) {
		free(percpu);
		return -1;
	}
	for (c = 0; c < r->ncpus; c++) {
		const __u64 *v = (const __u64 *)&percpu[c];
		__u64 *s = (__u64 *)sum;

		for (i = 0; i < (int)(sizeof(*sum) / sizeof(__u64)); i++)
			s[i] += v[i];
	}
	free(percpu);
	return 0;
}

/* Every side's kernel counters, added up in k; per side in per (may be
 * NULL). */
static int kernel_stats(struct xdp_run *r, struct xio_xdp_stats *k,
			struct xio_xdp_stats per[XIO_MAX_DIRS])
{
	struct xio_xdp_stats one;

	memset(k, 0, sizeof(*k));
	for (unsigned i = 0; i < r->nsides; i++) {
		const __u64 *v = (const __u64 *)&one;
		__u64 *s = (__u64 *)k;

		if (side_stats(r, i, &one))
			return -1;
		for (unsigned j = 0; j < sizeof(one) / sizeof(__u64); j++)
			s[j] += v[j];
		if (per)
			per[i] = one;
	}
	return 0;
}

static void kernel_counters(const struct xio_xdp_stats *k, struct xio_counters *c)
{
	unsigned r;

	memset(c, 0, sizeof(*c));
	c->rx_packets = k->rx_packets;
	c->tx_packets = k->tx_packets;
	c->dropped_packets = k->dropped_packets;
	c->narrowed_packets = k->narrowed_packets;
	c->tokens_narrowed = k->tokens_narrowed;
	c->tokens_saturated = k->tokens_saturated;
	c->bytes_in = k->bytes_in;
	c->bytes_out = k->bytes_out;
	for (r = 0; r < XIO_R_COUNT; r++)
		c->reasons[r] = k->reasons[r];
}

/* Direction dir (every direction: XIO_MAX_DIRS), kernel plus user space,
 * from the kernel counters k of its side(s); *user gets the AF_XDP part
 * alone. */
static void total_counters(struct xdp_run *r, unsigned dir, const struct xio_xdp_stats *k,
			   struct xio_counters *total, struct xio_counters *user)
{
	struct xio_counters w;
	unsigned q, d;

	memset(user, 0, sizeof(*user));
	for (q = 0; q < r->nq; q++) {
		if (!r->xsk[q])
			continue;
		for (d = 0; d < r->nsides; d++) {
			if (dir != XIO_MAX_DIRS && d != dir)
				continue;
			xio_xsk_counters(r->xsk[q], d, &w);
			xio_counters_add(user, &w);
		}
	}
	kernel_counters(k, total);
	xio_counters_add(total, user);
}

/* The run layer's operations (pipeline/xio_run.h) on the XDP data path. */
static void xdp_counters(void *drv, struct xio_counters *c)
{
	struct xdp_run *r = drv;
	struct xio_xdp_stats k;
	struct xio_counters u;

	if (kernel_stats(r, &k, NULL))
		memset(&k, 0, sizeof(k));
	total_counters(r, XIO_MAX_DIRS, &k, c, &u);
}

static unsigned xdp_directions(void *drv, struct xio_direction d[XIO_MAX_DIRS])
{
	struct xdp_run *r = drv;
	struct xio_xdp_stats k, per[XIO_MAX_DIRS];
	struct xio_counters u;

	if (kernel_stats(r, &k, per))
		memset(per, 0, sizeof(per));
	for (unsigned i = 0; i < r->nsides; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		total_counters(r, r->nsides > 1 ? i : XIO_MAX_DIRS, &per[i], &d[i].c, &u);
		d[i].iface = r->side[i].name;
		d[i].egress = r->nsides > 1 ? r->side[1 - i].name : r->egress;
	}
	return r->nsides;
}

/* Idle since the programs' count of frames seen last moved. */
static double xdp_idle_s(void *drv, double now, double *ago_s)
{
	struct xdp_run *r = drv;
	struct xio_xdp_stats k;
	__u64 s;

	if (r->last_rx_s == 0)
		r->last_rx_s = now;
	if (!kernel_stats(r, &k, NULL)) {
		s = k.rx_packets + k.to_user + k.no_socket;
		if (s != r->seen) {
			r->seen = s;
			r->last_rx_s = now;
		}
	}
	*ago_s = now - r->last_rx_s;
	return *ago_s;
}

/* Detaches, then lets the workers finish what they hold. */
static void xdp_quit(void *drv)
{
	struct xdp_run *r = drv;

	detach(r);
	for (unsigned q = 0; q < r->nq; q++) {
		xio_xsk_stop(r->xsk[q]);
		for (unsigned i = 0; i < r->nsides; i++)
			r->lost += xio_xsk_lost(r->xsk[q], i);
	}
	r->stopped = true;
}

static bool xdp_done(void *drv, double since_quit_s)
{
	(void)since_quit_s;
	return ((struct xdp_run *)drv)->stopped;
}

/* What went through AF_XDP, of the totals. */
static void xdp_line_tail(void *drv, struct xio_buf *b)
{
	struct xdp_run *r = drv;
	struct xio_xdp_stats k;
	struct xio_counters c, u;

	if (kernel_stats(r, &k, NULL))
		memset(&k, 0, sizeof(k));
	total_counters(r, XIO_MAX_DIRS, &k, &c, &u);
	xio_buf_printf(b, " | %s mode, AF_XDP rx %llu", mode_name(r->mode),
		       (unsigned long long)u.rx_packets);
}

static const struct xio_run_ops xdp_ops = {
	.driver = "xdp",
	.period_us = XDP_POLL_US,
	.counters = xdp_counters,
	.directions = xdp_directions,
	.idle_s = xdp_idle_s,
	.quit = xdp_quit,
	.done = xdp_done,
	.line_tail = xdp_line_tail,
};

static void cleanup(struct xdp_run *r)
{
	unsigned q;

	detach(r);
	for (q = 0; q < XIO_XDP_MAX_QUEUES; q++)
		xio_xsk_close(r->xsk[q]);
	for (q = 0; q < XIO_MAX_DIRS; q++)
		xio_xdp_bpf__destroy(r->side[q].skel);
}

/* The interfaces, and what --bidirectional needs of them. */
static int resolve(struct xdp_run *r)
{
	const struct xio_config *cfg = r->cfg;

	if (!cfg->iface || !*cfg->iface) {
		XIO_LOG(ERR, "xdp: no interface: give --iface IF");
		return -1;
	}
	r->egress = cfg->egress && *cfg->egress ? cfg->egress : cfg->iface;
	r->side[0].name = cfg->iface;
	r->side[0].ifindex = (int)if_nametoindex(cfg->iface);
	if (!r->side[0].ifindex) {
		XIO_LOG(ERR, "xdp: no interface named '%s' (--iface)", cfg->iface);
		return -1;
	}
	r->egress_ifindex = (int)if_nametoindex(r->egress);
	if (!r->egress_ifindex) {
		XIO_LOG(ERR, "xdp: no interface named '%s' (--egress)", r->egress);
		return -1;
	}
	r->same = r->egress_ifindex == r->side[0].ifindex;
	r->nsides = 1;
	if (cfg->bidirectional) {
		if (r->same) {
			XIO_LOG(ERR, "xdp: --bidirectional needs two interfaces: --iface A "
				"--egress B (both are %s)", cfg->iface);
			return -1;
		}
		r->side[1].name = r->egress;
		r->side[1].ifindex = r->egress_ifindex;
		r->nsides = 2;
	}
	for (unsigned i = 0; i < r->nsides; i++)
		r->side[i].generic = cfg->xdp_attach == XIO_XDP_ATTACH_GENERIC;
	return 0;
}

int xio_xdp_run(const struct xio_config *cfg, const int *stop, struct xio_run_result *res)
{
	struct xio_xdp_stats k;
	struct xio_counters user;
	struct xdp_run r;
	unsigned i;

	memset(&r, 0, sizeof(r));
	r.cfg = cfg;
	if (resolve(&r))
		return -1;
	r.ncpus = libbpf_num_possible_cpus();
	if (r.ncpus <= 0) {
		XIO_LOG(ERR, "xdp: cannot size the per-CPU counters");
		return -1;
	}
	if (load_progs(&r) || open_workers(&r))
		goto fail;
	for (i = 0; i < r.nsides; i++)
		if (attach(&r.side[i]))
			goto fail;
	XIO_LOG(INFO, "xdp: %s mode on %s (%s XDP), egress %s%s, %u queue(s), UDP port %u",
		mode_name(r.mode), cfg->iface, r.side[0].generic ? "generic" : "native", r.egress,
		r.same ? " (XDP_TX)" : " (DEVMAP redirect)", r.nq, cfg->stage.udp_port);
	if (r.nsides > 1)
		XIO_LOG(INFO, "xdp: bidirectional: %s mode on %s (%s XDP) too, egress %s "
			"(DEVMAP redirect)", mode_name(r.mode), r.side[1].name,
			r.side[1].generic ? "generic" : "native", cfg->iface);

	xio_run_loop(cfg, &xdp_ops, &r, stop, res);

	if (kernel_stats(&r, &k, NULL)) {
		XIO_LOG(ERR, "xdp: cannot read the kernel counters: %s", strerror(errno));
		goto fail;
	}
	total_counters(&r, XIO_MAX_DIRS, &k, &res->total, &user);
	XIO_LOG(INFO, "xdp: %llu frame(s) finished in the kernel, %llu through AF_XDP",
		(unsigned long long)(res->total.rx_packets - user.rx_packets),
		(unsigned long long)user.rx_packets);
	if (r.lost || k.no_socket)
		XIO_LOG(ERR, "xdp: ERROR: %llu frame(s) lost before AF_XDP (socket rings full), "
			"%llu on queues without a socket", (unsigned long long)r.lost,
			(unsigned long long)k.no_socket);
	/* the driver's own members: nothing may be lost on the way to AF_XDP */
	xio_json_str(&res->json, "xdp_mode", mode_name(r.mode));
	xio_json_u64(&res->json, "afxdp_lost", r.lost);
	xio_json_u64(&res->json, "afxdp_no_socket", k.no_socket);
	cleanup(&r);
	return 0;
fail:
	cleanup(&r);
	return -1;
}
