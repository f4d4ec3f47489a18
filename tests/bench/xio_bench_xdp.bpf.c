/* SPDX-License-Identifier: BSD-3-Clause
 * xio_bench_xdp.bpf.c: the XDP programs of the XDP benchmark
 * (scripts/bench/xdp.sh), driven by xio_bench_xdp.c:
 * - bench_pass, bench_redirect: the baselines, what `xdp-bench pass` and
 *   `xdp-bench redirect` run (xdp-tools 1.3.1's own xdp-bench cannot load on
 *   kernels without the xdp_redirect_map_err tracepoint): count the frame in
 *   a per-CPU array, look at the Ethernet header; redirect swaps the MAC
 *   addresses and calls bpf_redirect() to the egress, as xdp-bench does.
 *   Multi-buffer aware (xdp.frags), like xio-pipeline's program, so they
 *   attach to veths with a 9000-byte MTU.
 * - bench_bridge: the plain XDP bridge of the live benchmark
 *   (scripts/bench/live.sh): bpf_redirect() to the egress, frame untouched;
 *   one instance per direction joins two veths.
 * - bench_drop: the receiver, drops every frame (xdp-bench drop).
 * - bench_send: the traffic source, run through BPF_PROG_RUN in live-frame
 *   mode: writes the next frame of the capture (from frames_map) over the
 *   page and transmits it (XDP_TX on the ingress_ifindex of the run). The
 *   write is needed: the pages come back from the device under test, which
 *   narrows in place.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

#include "xio_bench_xdp.h"

const volatile __u32 cfg_ifindex_out = 0;
const volatile __u32 cfg_nframes = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rx_cnt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XIO_BENCH_MAX_FRAMES);
	__type(key, __u32);
	__type(value, struct xio_bench_frame);
} frames_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} send_next SEC(".maps");

static __always_inline int count(void)
{
	__u32 key = 0;
	__u64 *n = bpf_map_lookup_elem(&rx_cnt, &key);

	if (n == NULL)
		return -1;
	*n += 1;
	return 0;
}

SEC("xdp.frags")
int bench_pass(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + sizeof(struct ethhdr) > data_end)
		return XDP_DROP;
	count();
	return XDP_PASS;
}

SEC("xdp.frags")
int bench_drop(struct xdp_md *ctx)
{
	count();
	return XDP_DROP;
}

SEC("xdp.frags")
int bench_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	unsigned char tmp[ETH_ALEN];

	if (data + sizeof(*eth) > data_end)
		return XDP_DROP;
	count();
	__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
	return bpf_redirect(cfg_ifindex_out, 0);
}

SEC("xdp.frags")
int bench_bridge(struct xdp_md *ctx)
{
	count();
	return bpf_redirect(cfg_ifindex_out, 0);
}

SEC("xdp")
int bench_send(struct xdp_md *ctx)
{
	__u32 key = 0, idx;
	__u64 len, have; /* 64-bit: the verifier keeps the bounds */
	struct xio_bench_frame *f;
	__u32 *next = bpf_map_lookup_elem(&send_next, &key);

	if (next == NULL)
		return XDP_ABORTED;
	idx = *next;
	*next = idx + 1 < cfg_nframes ? idx + 1 : 0;
	f = bpf_map_lookup_elem(&frames_map, &idx);
	if (f == NULL)
		return XDP_ABORTED;
	len = f->len;
	if (len < sizeof(struct ethhdr) || len > XIO_BENCH_MAX_LEN)
		return XDP_ABORTED;
	have = ctx->data_end - ctx->data;
	if (have != len && bpf_xdp_adjust_tail(ctx, (int)len - (int)have) != 0)
		return XDP_ABORTED;
	if (bpf_xdp_store_bytes(ctx, 0, f->data, len) != 0)
		return XDP_ABORTED;
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
