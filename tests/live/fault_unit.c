/* SPDX-License-Identifier: BSD-3-Clause
 * fault_unit.c: the live test's fault injector (tests/live/xio_fault.bpf.c)
 * proved on its own, in a network namespace of its own (unshare):
 * - BPF_PROG_TEST_RUN: ARP, requests to the XIO port, other ports, frames
 *   without the XIO magic, IPv4 fragments and IPv6 pass untouched even at
 *   100 % loss; a cap stops the faults after N;
 * - on the egress of a veth pair, datagrams sent through it: the other end
 *   must receive exactly the sequence a model of xio_fault.h's rules predicts
 *   from the seed (drops, duplicates, held datagrams after their follower),
 *   each frame byte for byte as sent, and the counters must match the model.
 *
 *   fault_unit [TEST...]      (root)
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>

#include "xio_csum.h"
#include "xio_fault.h"
#include "xio_fault.skel.h"
#include "xio_unit.h"

#define TX_IF    "xlv-ua"
#define RX_IF    "xlv-ub"
#define NFRAMES  400
#define FRAME_MAX 1514
#define XIO_PORT 7910

static struct xio_fault_bpf *skel;
static uint8_t rx_mac[6], tx_mac[6];

enum kind { K_REPLY, K_ARP, K_REQUEST, K_NO_MAGIC, K_FRAGMENT, K_OTHER_PORT, K_IPV6 };

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, (uint16_t)v); }

/* A frame of kind k, number seq, len bytes (>= 14 + 40 + 8 + 32 for IP kinds). */
static unsigned frame(uint8_t *f, enum kind k, uint32_t seq, unsigned len)
{
	uint8_t *ip = f + 14, *udp = ip + 20, *xio = udp + 8;

	memset(f, 0, len);
	memcpy(f, rx_mac, 6);
	memcpy(f + 6, tx_mac, 6);
	if (k == K_ARP) {
		put16(f + 12, ETH_P_ARP);
		put16(ip, 1), put16(ip + 2, ETH_P_IP), ip[4] = 6, ip[5] = 4, put16(ip + 6, 1);
		return 60;
	}
	if (k == K_IPV6) {
		put16(f + 12, ETH_P_IPV6);
		ip[0] = 0x60, put16(ip + 4, (uint16_t)(len - 54)), ip[6] = 17, ip[7] = 64;
		udp = ip + 40, xio = udp + 8;
		put16(udp, XIO_PORT), put16(udp + 2, 40000), put16(udp + 4, (uint16_t)(len - 54));
		put16(xio, 0x5849), xio[2] = 1, xio[3] = 2;
		return len;
	}
	put16(f + 12, ETH_P_IP);
	ip[0] = 0x45, put16(ip + 2, (uint16_t)(len - 14)), put16(ip + 4, (uint16_t)seq);
	ip[8] = 64, ip[9] = 17;
	put32(ip + 12, 0x0a4d0901), put32(ip + 16, 0x0a4d0902);
	if (k == K_FRAGMENT)
		put16(ip + 6, 0x2000); /* MF */
	put16(ip + 10, xio_ipv4_hdr_csum(ip, 20));
	put16(udp, k == K_REQUEST ? 40000 : k == K_OTHER_PORT ? XIO_PORT + 1 : XIO_PORT);
	put16(udp + 2, k == K_REQUEST ? XIO_PORT : 40000);
	put16(udp + 4, (uint16_t)(len - 34));
	if (k != K_NO_MAGIC)
		put16(xio, 0x5849);
	xio[2] = 1, xio[3] = k == K_REQUEST ? 1 : 2, xio[5] = 1, put16(xio + 6, 32);
	put32(xio + 8, 1), put32(xio + 12, seq);
	return len;
}

/* Frame i of a sequence: lengths from 96 to 1514 bytes, so that a held frame
 * is put back into a follower longer or shorter than itself. */
static unsigned seq_len(unsigned i)
{
	return 96 + (i * 389) % (FRAME_MAX - 96 + 1);
}

static void reset(double loss, double dup, double reorder, uint64_t max, uint64_t seed)
{
	static struct { uint32_t state, len; uint8_t data[XIO_FAULT_MAX_FRAME]; } empty;
	struct xio_fault_cfg *c = &skel->data->xio_fault_cfg;
	uint32_t key = 0;

	memset(skel->bss->xio_fault_count, 0, sizeof(skel->bss->xio_fault_count));
	skel->bss->xio_fault_draws = 0;
	bpf_map_update_elem(bpf_map__fd(skel->maps.xio_fault_held), &key, &empty, BPF_ANY);
	c->seed = seed;
	c->t_loss = (uint64_t)(loss * 4294967296.0);
	c->t_dup = (uint64_t)((loss + dup) * 4294967296.0);
	c->t_reorder = (uint64_t)((loss + dup + reorder) * 4294967296.0);
	c->max_loss = c->max_dup = c->max_reorder = max;
}

static int test_run(const uint8_t *in, unsigned len, uint8_t *out, unsigned *out_len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len, .data_out = out,
		    .data_size_out = FRAME_MAX, .repeat = 1);
	int err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xio_fault), &o);

	XIO_CHECK(!err, "BPF_PROG_TEST_RUN: %s", strerror(errno));
	*out_len = o.data_size_out;
	return (int)o.retval;
}

static void test_untouched(void)
{
	static const char *const names[] = { "reply", "ARP", "request", "no magic",
					     "fragment", "other port", "IPv6" };
	uint8_t in[FRAME_MAX], out[FRAME_MAX];
	unsigned len, out_len;
	int k, rc;

	reset(1.0, 0, 0, 0, 1);
	for (k = K_ARP; k <= K_IPV6; k++) {
		len = frame(in, (enum kind)k, 7, 200);
		rc = test_run(in, len, out, &out_len);
		XIO_CHECK(rc == TC_ACT_OK, "%s at 100%% loss: verdict %d", names[k], rc);
		XIO_CHECK(out_len == len && !memcmp(in, out, len), "%s: changed", names[k]);
	}
	XIO_CHECK(skel->bss->xio_fault_count[XIO_FAULT_OTHER] == K_IPV6,
		  "other %llu, expected %d", (unsigned long long)skel->bss->xio_fault_count[XIO_FAULT_OTHER],
		  K_IPV6);
	len = frame(in, K_REPLY, 7, 200);
	rc = test_run(in, len, out, &out_len);
	XIO_CHECK(rc == TC_ACT_SHOT, "reply at 100%% loss: verdict %d", rc);
	XIO_CHECK(skel->bss->xio_fault_count[XIO_FAULT_SEEN] == 1 &&
		  skel->bss->xio_fault_count[XIO_FAULT_DROPPED] == 1, "seen/dropped not 1/1");
}

static void test_cap(void)
{
	uint8_t in[FRAME_MAX], out[FRAME_MAX];
	unsigned len = frame(in, K_REPLY, 1, 300), out_len, i;

	reset(1.0, 0, 0, 3, 1);
	for (i = 0; i < 10; i++) {
		int want = i < 3 ? TC_ACT_SHOT : TC_ACT_OK, rc = test_run(in, len, out, &out_len);

		if (!XIO_CHECK(rc == want, "datagram %u: verdict %d, expected %d", i, rc, want))
			return;
	}
	XIO_CHECK(skel->bss->xio_fault_count[XIO_FAULT_DROPPED] == 3 &&
		  skel->bss->xio_fault_count[XIO_FAULT_PASSED] == 7, "dropped %llu passed %llu",
		  (unsigned long long)skel->bss->xio_fault_count[XIO_FAULT_DROPPED],
		  (unsigned long long)skel->bss->xio_fault_count[XIO_FAULT_PASSED]);
}

/* What the rules of xio_fault.h make of datagrams 0..n-1: the numbers in the
 * order they leave, their count, and the counters. */
static unsigned model(const struct xio_fault_cfg *c, unsigned n, uint32_t *out, uint64_t *cnt)
{
	unsigned i, k = 0;
	int held = -1;

	memset(cnt, 0, XIO_FAULT_NCOUNTERS * sizeof(*cnt));
	for (i = 0; i < n; i++) {
		uint64_t u = xio_fault_rand(c->seed, i) >> 32;

		cnt[XIO_FAULT_SEEN]++;
		if (held >= 0) {
			out[k++] = i, out[k++] = (uint32_t)held, held = -1;
			cnt[XIO_FAULT_RELEASED]++;
		} else if (u < c->t_loss && (!c->max_loss || cnt[XIO_FAULT_DROPPED] < c->max_loss)) {
			cnt[XIO_FAULT_DROPPED]++;
		} else if (u >= c->t_loss && u < c->t_dup &&
			   (!c->max_dup || cnt[XIO_FAULT_DUPLICATED] < c->max_dup)) {
			out[k++] = i, out[k++] = i;
			cnt[XIO_FAULT_DUPLICATED]++;
		} else if (u >= c->t_dup && u < c->t_reorder &&
			   (!c->max_reorder || cnt[XIO_FAULT_HELD] < c->max_reorder)) {
			held = (int)i;
			cnt[XIO_FAULT_HELD]++;
		} else {
			out[k++] = i;
			cnt[XIO_FAULT_PASSED]++;
		}
	}
	return k;
}

static int packet_socket(const char *ifname, int proto)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(proto),
				 .sll_ifindex = (int)if_nametoindex(ifname) };
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto)), buf = 16 << 20;

	/* room for every frame of a sequence: the receiver reads after the sends */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		XIO_CHECK(0, "packet socket on %s: %s", ifname, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Receives XIO reply frames on fd until none came for ms: their numbers. */
static unsigned receive(int fd, uint8_t (*sent)[FRAME_MAX], uint32_t *got, unsigned max, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t f[FRAME_MAX + 64];
	unsigned n = 0;

	while (poll(&p, 1, ms) == 1) {
		ssize_t len = recv(fd, f, sizeof(f), 0);
		uint32_t seq;

		if (len < 14 + 20 + 8 + 32 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17 ||
		    (f[34] << 8 | f[35]) != XIO_PORT)
			continue; /* not one of ours */
		seq = (uint32_t)f[54] << 24 | f[55] << 16 | f[56] << 8 | f[57];
		if (!XIO_CHECK(seq < NFRAMES && (unsigned)len == seq_len(seq) &&
			       !memcmp(f, sent[seq], (size_t)len),
			       "frame %u received (%zd bytes) differs from the one sent", seq, len) ||
		    !XIO_CHECK(n < max, "more than %u frames received", max))
			break;
		got[n++] = seq;
	}
	return n;
}

/* NFRAMES datagrams through the program on TX_IF's egress, against the model. */
static void sequence(double loss, double dup, double reorder, uint64_t max, uint64_t seed)
{
	static uint8_t sent[NFRAMES][FRAME_MAX];
	static uint32_t want[2 * NFRAMES], got[2 * NFRAMES];
	uint64_t cnt[XIO_FAULT_NCOUNTERS];
	static const char *const names[] = XIO_FAULT_COUNTER_NAMES;
	int tx = -1, rx = -1, i, err;
	unsigned nwant, ngot, f;
	bool attached = false;

	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)if_nametoindex(TX_IF),
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tc, .handle = 1, .priority = 1,
			    .prog_fd = bpf_program__fd(skel->progs.xio_fault));

	reset(loss, dup, reorder, max, seed);
	nwant = model(&skel->data->xio_fault_cfg, NFRAMES, want, cnt);
	for (i = XIO_FAULT_DROPPED; i <= XIO_FAULT_RELEASED; i++)
		XIO_CHECK(!(i == XIO_FAULT_DROPPED ? loss : i == XIO_FAULT_DUPLICATED ? dup : reorder) ||
			  cnt[i] > 0, "seed %llu gives no %s: a test that proves nothing",
			  (unsigned long long)seed, names[i]);

	err = bpf_tc_hook_create(&hook);
	if (!XIO_CHECK(!err || err == -EEXIST, "clsact on %s: %s", TX_IF, strerror(-err)))
		return;
	err = bpf_tc_attach(&hook, &tc);
	if (!XIO_CHECK(!err, "attach on %s egress: %s", TX_IF, strerror(-err)))
		goto out;
	attached = true;
	tx = packet_socket(TX_IF, 0);
	rx = packet_socket(RX_IF, ETH_P_IP);
	if (tx < 0 || rx < 0)
		goto out;
	for (f = 0; f < NFRAMES; f++) {
		unsigned len = frame(sent[f], K_REPLY, f, seq_len(f));
		ssize_t rc = send(tx, sent[f], len, 0);

		/* a frame the program drops is ENOBUFS (NET_XMIT_DROP) to a packet socket */
		if (!XIO_CHECK(rc == (ssize_t)len || (rc < 0 && errno == ENOBUFS),
			       "send of frame %u: %zd, %s", f, rc, strerror(errno)))
			goto out;
	}
	ngot = receive(rx, sent, got, 2 * NFRAMES, 300);
	for (f = 0; f < ngot && f < nwant; f++)
		if (!XIO_CHECK(got[f] == want[f], "frame %u received is datagram %u, the model says %u",
			       f, got[f], want[f]))
			break;
	XIO_CHECK(ngot == nwant, "%u frames received, the model says %u", ngot, nwant);
	for (i = 0; i < XIO_FAULT_NCOUNTERS; i++)
		XIO_CHECK(skel->bss->xio_fault_count[i] == cnt[i], "counter %s: %llu, the model says %llu",
			  names[i], (unsigned long long)skel->bss->xio_fault_count[i],
			  (unsigned long long)cnt[i]);
	printf("(%u sent, %u received: %llu dropped, %llu duplicated, %llu reordered) ", NFRAMES, ngot,
	       (unsigned long long)cnt[XIO_FAULT_DROPPED], (unsigned long long)cnt[XIO_FAULT_DUPLICATED],
	       (unsigned long long)cnt[XIO_FAULT_RELEASED]);
out:
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	if (attached) {
		tc.prog_fd = tc.prog_id = tc.flags = 0;
		bpf_tc_detach(&hook, &tc);
	}
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook);
}

static void test_veth_faults(void)
{
	sequence(0.1, 0.1, 0.15, 0, 42);
}

static void test_veth_caps(void)
{
	sequence(0.2, 0.2, 0.2, 5, 7);
}

/* A namespace of our own with lo and the veth pair up, IPv6 off. */
static int setup(void)
{
	struct ifreq r;
	int fd;

	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "fault_unit: unshare(CLONE_NEWNET): %s (needs root)\n", strerror(errno));
		return -1;
	}
	if (system("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&"
		   " ip link set lo up && ip link add " TX_IF " type veth peer name " RX_IF " &&"
		   " ip link set " TX_IF " up && ip link set " RX_IF " up")) {
		fprintf(stderr, "fault_unit: cannot make the veth pair\n");
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&r, 0, sizeof(r));
	snprintf(r.ifr_name, sizeof(r.ifr_name), RX_IF);
	if (ioctl(fd, SIOCGIFHWADDR, &r))
		return -1;
	memcpy(rx_mac, r.ifr_hwaddr.sa_data, 6);
	snprintf(r.ifr_name, sizeof(r.ifr_name), TX_IF);
	if (ioctl(fd, SIOCGIFHWADDR, &r))
		return -1;
	memcpy(tx_mac, r.ifr_hwaddr.sa_data, 6);
	close(fd);
	skel = xio_fault_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "fault_unit: cannot load the program: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int cleanup(void)
{
	xio_fault_bpf__destroy(skel);
	return 0;
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_untouched), XIO_UNIT_TEST(test_cap), XIO_UNIT_TEST(test_veth_faults),
	XIO_UNIT_TEST(test_veth_caps), { NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "xio_fault", tests, setup, cleanup);
}
