/* SPDX-License-Identifier: BSD-3-Clause
 * xdp_unit.c: the XDP program (drivers/xdp/xio_xdp.bpf.c) through
 * BPF_PROG_TEST_RUN, frame by frame (data_in/data_out, repeat 1), on every
 * conformance vector, in three configurations: kernel mode with egress ==
 * ingress (XDP_TX / XDP_PASS), kernel mode with another egress (DEVMAP
 * redirect) and afxdp mode. A frame the program hands to AF_XDP (an XSKMAP
 * redirect, seen through the per-CPU to_user counter; the XSKMAP holds a
 * real AF_XDP socket bound to lo) must come out unchanged, and is then
 * finished by the stage core as the AF_XDP worker does. The frames that go
 * out, in order, must equal expected.pcap byte for byte, and the kernel
 * counters plus the user-space ones must equal expected.json.
 *
 *   XIO_VECTORS=DIR xdp_unit [TEST...]      (root: loads BPF programs)
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <CUnit/Basic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#include "xio_counters.h"
#include "xio_pcap.h"
#include "xio_stage.h"
#include "xio_unit.h"
#include "xio_xdp.skel.h"
#include "xio_xdp_shared.h"

#define MAX_FRAMES 1024
#define MAX_FRAME  16384
#define NVEC       16

struct frame {
	uint32_t len;
	uint8_t *data;
};

struct capture {
	unsigned n;
	struct frame f[MAX_FRAMES];
};

struct vector {
	char name[64];
	char dir[512];
	struct xio_stage_cfg stage;
	struct capture in, out;
	char *json;
};

enum unit_cfg { CFG_KERNEL_TX, CFG_KERNEL_REDIRECT, CFG_AFXDP, CFG_COUNT };
static const char *const cfg_names[CFG_COUNT] = { "kernel/XDP_TX", "kernel/DEVMAP",
						  "afxdp" };

static struct vector vec[NVEC];
static unsigned nvec;
static const char *vec_root;

/* An AF_XDP socket on lo, only so the XSKMAP has a real entry. */
static struct {
	void *area;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp, rx;
} lo_xsk;

static int read_capture(const char *path, struct capture *c)
{
	struct xio_pcap_reader *r;
	struct xio_pcap_pkt pkt;
	char err[XIO_PCAP_ERRLEN];
	int rc;

	r = xio_pcap_open_read(path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "xdp_unit: %s\n", err);
		return -1;
	}
	c->n = 0;
	while ((rc = xio_pcap_next(r, &pkt, err, sizeof(err))) == 1 && c->n < MAX_FRAMES) {
		c->f[c->n].len = pkt.caplen;
		c->f[c->n].data = malloc(pkt.caplen ? pkt.caplen : 1);
		memcpy(c->f[c->n].data, pkt.data, pkt.caplen);
		c->n++;
	}
	xio_pcap_close_read(r);
	if (rc < 0)
		fprintf(stderr, "xdp_unit: %s\n", err);
	return rc < 0 ? -1 : 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The value of "key" in expected.json (every key there is unique). */
static long long json_get(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(json, pat);
	if (!p || !(p = strchr(p + strlen(pat), ':')))
		return -1;
	return strtoll(p + 1, NULL, 10);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct vector *)a)->name, ((const struct vector *)b)->name);
}

static int load_vectors(void)
{
	DIR *d = opendir(vec_root);
	struct dirent *e;
	char path[600];

	if (!d) {
		fprintf(stderr, "xdp_unit: no vectors at %s\n", vec_root);
		return -1;
	}
	while ((e = readdir(d)) && nvec < NVEC) {
		struct vector *v = &vec[nvec];

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		xio_unit_vector_cfg(e->d_name, &v->stage);
		if (snprintf(v->name, sizeof(v->name), "%s", e->d_name) >= (int)sizeof(v->name)) {
			fprintf(stderr, "xdp_unit: vector name '%s' longer than %zu bytes\n", e->d_name,
				sizeof(v->name) - 1);
			closedir(d);
			return -1;
		}
		snprintf(v->dir, sizeof(v->dir), "%s/%s", vec_root, e->d_name);
		snprintf(path, sizeof(path), "%s/in.pcap", v->dir);
		if (read_capture(path, &v->in))
			continue;
		snprintf(path, sizeof(path), "%s/expected.pcap", v->dir);
		if (read_capture(path, &v->out))
			continue;
		snprintf(path, sizeof(path), "%s/expected.json", v->dir);
		v->json = read_file(path);
		if (v->json)
			nvec++;
	}
	closedir(d);
	qsort(vec, nvec, sizeof(vec[0]), cmp_name);
	return nvec ? 0 : -1;
}

static int open_lo_xsk(void)
{
	struct xsk_umem_config ucfg = { .fill_size = 64, .comp_size = 64, .frame_size = 4096 };
	struct xsk_socket_config scfg = {
		.rx_size = 64,
		.tx_size = 64,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	size_t len = 64 * 4096;
	int err;

	lo_xsk.area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lo_xsk.area == MAP_FAILED)
		return -1;
	err = xsk_umem__create(&lo_xsk.umem, lo_xsk.area, len, &lo_xsk.fill, &lo_xsk.comp, &ucfg);
	if (!err)
		err = xsk_socket__create(&lo_xsk.xsk, "lo", 0, lo_xsk.umem, &lo_xsk.rx, NULL, &scfg);
	if (err)
		fprintf(stderr, "xdp_unit: AF_XDP socket on lo: %s\n", strerror(-err));
	return err ? -1 : 0;
}

static struct xio_xdp_bpf *load_prog(const struct vector *v, enum unit_cfg c)
{
	struct xio_xdp_bpf *skel = xio_xdp_bpf__open();
	__u32 key = 0, lo = if_nametoindex("lo");
	int fd;

	if (!skel)
		return NULL;
	skel->rodata->cfg_udp_port = v->stage.udp_port;
	skel->rodata->cfg_overflow = (__u8)v->stage.overflow;
	skel->rodata->cfg_drop_invalid = v->stage.drop_invalid;
	skel->rodata->cfg_all_to_user = c == CFG_AFXDP;
	skel->rodata->cfg_tx_same = c == CFG_KERNEL_TX;
	if (xio_xdp_bpf__load(skel))
		goto fail;
	fd = xsk_socket__fd(lo_xsk.xsk);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xio_xsks), &key, &fd, BPF_ANY))
		goto fail;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xio_egress), &key, &lo, BPF_ANY))
		goto fail;
	return skel;
fail:
	xio_xdp_bpf__destroy(skel);
	return NULL;
}

static int kernel_stats(struct xio_xdp_bpf *skel, struct xio_xdp_stats *sum)
{
	int ncpu = libbpf_num_possible_cpus(), c, i;
	struct xio_xdp_stats *v = calloc((size_t)ncpu, sizeof(*v));
	__u32 key = 0;

	memset(sum, 0, sizeof(*sum));
	if (!v || bpf_map_lookup_elem(bpf_map__fd(skel->maps.xio_stats), &key, v)) {
		free(v);
		return -1;
	}
	for (c = 0; c < ncpu; c++)
		for (i = 0; i < (int)(sizeof(*sum) / 8); i++)
			((__u64 *)sum)[i] += ((__u64 *)&v[c])[i];
	free(v);
	return 0;
}

/* One vector through one configuration. */
static void run_vector(const struct vector *v, enum unit_cfg c)
{
	static uint8_t out[MAX_FRAME];
	struct xio_xdp_bpf *skel = load_prog(v, c);
	struct xio_counters user = { 0 }, total;
	struct xio_xdp_stats before, after;
	unsigned i, next = 0, kernel_done = 0;
	int prog;

	if (!XIO_CHECK(skel != NULL, "%s %s: the XDP program did not load", v->name, cfg_names[c]))
		return;
	prog = bpf_program__fd(skel->progs.xio_xdp);
	for (i = 0; i < v->in.n; i++) {
		const struct frame *in = &v->in.f[i];
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->data, .data_size_in = in->len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
		bool to_user, sent = false;
		uint32_t out_len = 0;
		int err;

		kernel_stats(skel, &before);
		err = bpf_prog_test_run_opts(prog, &o);
		kernel_stats(skel, &after);
		if (!XIO_CHECK(err == 0, "%s %s frame %u: test run: %s", v->name, cfg_names[c], i,
			       strerror(errno)))
			break;
		to_user = after.to_user != before.to_user;
		if (to_user) {
			struct xio_result res;

			/* handed over unchanged, then finished as xio_xsk.c does */
			if (!XIO_CHECK(o.retval == XDP_REDIRECT && o.data_size_out == in->len &&
					       memcmp(out, in->data, in->len) == 0,
				       "%s %s frame %u: handed to AF_XDP changed (verdict %u, %u bytes)",
				       v->name, cfg_names[c], i, o.retval, o.data_size_out))
				break;
			xio_process_buf(&v->stage, out, in->len, &res);
			xio_counters_account(&user, in->len, &res);
			skel->bss->xio_pending[0]--;
			sent = res.action != XIO_ACT_DROP;
			out_len = res.out_len;
		} else {
			uint32_t want = c == CFG_KERNEL_TX ? XDP_TX : XDP_REDIRECT;

			kernel_done++;
			if (o.retval == XDP_DROP) {
				sent = false;
			} else if (!XIO_CHECK(o.retval == want ||
						      (c == CFG_KERNEL_TX && o.retval == XDP_PASS),
					      "%s %s frame %u: verdict %u", v->name, cfg_names[c], i,
					      o.retval)) {
				break;
			} else {
				sent = true;
				out_len = o.data_size_out;
			}
		}
		if (!sent)
			continue;
		if (!XIO_CHECK(next < v->out.n, "%s %s frame %u: sent, expected.pcap has no more",
			       v->name, cfg_names[c], i))
			break;
		if (!XIO_CHECK(out_len == v->out.f[next].len,
			       "%s %s frame %u (out %u): %u bytes, expected %u", v->name,
			       cfg_names[c], i, next, out_len, v->out.f[next].len) ||
		    !XIO_CHECK_BYTES(out, v->out.f[next].data, out_len, v->name))
			break;
		next++;
	}
	XIO_CHECK(next == v->out.n, "%s %s: %u frames out, expected %u", v->name, cfg_names[c],
		  next, v->out.n);

	kernel_stats(skel, &after);
	memset(&total, 0, sizeof(total));
	total.rx_packets = after.rx_packets;
	total.tx_packets = after.tx_packets;
	total.dropped_packets = after.dropped_packets;
	total.narrowed_packets = after.narrowed_packets;
	total.tokens_narrowed = after.tokens_narrowed;
	total.tokens_saturated = after.tokens_saturated;
	total.bytes_in = after.bytes_in;
	total.bytes_out = after.bytes_out;
	for (i = 0; i < XIO_R_COUNT; i++)
		total.reasons[i] = after.reasons[i];
	xio_counters_add(&total, &user);
	XIO_CHECK(after.no_socket == 0, "%s %s: %llu frames without a socket", v->name,
		  cfg_names[c], (unsigned long long)after.no_socket);
	XIO_CHECK(after.rx_packets == kernel_done && after.to_user == user.rx_packets,
		  "%s %s: kernel counted %llu of %u, to_user %llu of %llu", v->name, cfg_names[c],
		  (unsigned long long)after.rx_packets, kernel_done,
		  (unsigned long long)after.to_user, (unsigned long long)user.rx_packets);
#define JSON_EQ(field)                                                                  \
	XIO_CHECK((long long)total.field == json_get(v->json, #field),                   \
		  "%s %s: " #field " %llu, expected %lld", v->name, cfg_names[c],        \
		  (unsigned long long)total.field, json_get(v->json, #field))
	JSON_EQ(rx_packets);
	JSON_EQ(tx_packets);
	JSON_EQ(dropped_packets);
	JSON_EQ(narrowed_packets);
	JSON_EQ(tokens_narrowed);
	JSON_EQ(tokens_saturated);
	JSON_EQ(bytes_in);
	JSON_EQ(bytes_out);
#undef JSON_EQ
	for (i = 0; i < XIO_R_COUNT; i++) {
		const char *name = xio_reason_name((enum xio_reason)i);

		XIO_CHECK((long long)total.reasons[i] == json_get(v->json, name),
			  "%s %s: reason %s %llu, expected %lld", v->name, cfg_names[c], name,
			  (unsigned long long)total.reasons[i], json_get(v->json, name));
	}
	/* kernel mode must finish frames itself, not pass everything up */
	if (c != CFG_AFXDP)
		XIO_CHECK(after.narrowed_packets > 0 || total.narrowed_packets == 0,
			  "%s %s: the kernel narrowed nothing", v->name, cfg_names[c]);
	printf("  %-26s %-14s %3u frames: %3u finished in the kernel, %3llu through AF_XDP\n",
	       v->name, cfg_names[c], v->in.n, kernel_done, (unsigned long long)user.rx_packets);
	xio_xdp_bpf__destroy(skel);
}

static void test_kernel_xdp_tx(void)
{
	for (unsigned i = 0; i < nvec; i++)
		run_vector(&vec[i], CFG_KERNEL_TX);
}

static void test_kernel_devmap(void)
{
	for (unsigned i = 0; i < nvec; i++)
		run_vector(&vec[i], CFG_KERNEL_REDIRECT);
}

static void test_afxdp(void)
{
	for (unsigned i = 0; i < nvec; i++)
		run_vector(&vec[i], CFG_AFXDP);
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_kernel_xdp_tx),
	XIO_UNIT_TEST(test_kernel_devmap),
	XIO_UNIT_TEST(test_afxdp),
	{ NULL, NULL },
};

static int suite_init(void)
{
	vec_root = xio_unit_vectors();
	if (load_vectors() || open_lo_xsk())
		return -1;
	printf("xdp_unit: %u vectors from %s\n", nvec, vec_root);
	return 0;
}

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "xdp", tests, suite_init, NULL);
}
