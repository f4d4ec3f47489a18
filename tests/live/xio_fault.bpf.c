/* SPDX-License-Identifier: BSD-3-Clause
 * xio_fault.bpf.c: seeded loss, duplication and reordering of XIO datagrams
 * for the live test, at the tc clsact egress hook of an interface (there a
 * copy sent with bpf_clone_redirect leaves before the skb that made it; at
 * ingress it would be queued behind it). Only IPv4 UDP datagrams from the XIO
 * port that start with the XIO magic are touched (replies and errors of a
 * server); ARP, requests and everything else pass. Which fault a datagram
 * gets follows from the seed alone (tests/live/xio_fault.h), so a run is
 * reproducible and a test can predict it.
 *
 * - loss: TC_ACT_SHOT;
 * - duplication: bpf_clone_redirect of the skb to its own interface, then the
 *   skb itself goes on;
 * - reordering: datagram N is copied into a map and dropped; the next XIO
 *   datagram N+1 is sent first (a clone), then the skb is rewritten into N
 *   (bpf_skb_change_tail + bpf_skb_store_bytes) and goes on: N leaves after
 *   N+1. A held datagram with no follower leaves with the next one, late.
 *
 * The program's own copies carry XIO_FAULT_MARK and pass the hook untouched
 * when they come through it again. Counters in .bss, configuration in .data
 * (both mmapped by the loader).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xio_fault.h"

#define XIO_MAGIC 0x5849

struct xio_fault_cfg xio_fault_cfg = { .port = 7910 };
__u64 xio_fault_count[XIO_FAULT_NCOUNTERS];
__u64 xio_fault_draws;

enum { SLOT_EMPTY, SLOT_BUSY, SLOT_FULL };

struct held {
	__u32 state;
	__u32 len;
	__u8 data[XIO_FAULT_MAX_FRAME];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct held);
} xio_fault_held SEC(".maps");

static __always_inline void count(int c)
{
	__sync_fetch_and_add(&xio_fault_count[c], 1);
}

/* An IPv4 UDP datagram from the XIO port whose payload starts with the magic. */
static __always_inline int is_xio_reply(struct __sk_buff *skb)
{
	struct {
		struct ethhdr eth;
		struct iphdr ip;
	} __attribute__((packed)) h;
	struct udphdr udp;
	__u16 magic;
	__u32 off;

	if (bpf_skb_load_bytes(skb, 0, &h, sizeof(h)))
		return 0;
	if (h.eth.h_proto != bpf_htons(ETH_P_IP) || h.ip.version != 4 || h.ip.ihl < 5 ||
	    h.ip.protocol != IPPROTO_UDP || (h.ip.frag_off & bpf_htons(0x3fff)))
		return 0;
	off = sizeof(h.eth) + h.ip.ihl * 4;
	if (bpf_skb_load_bytes(skb, off, &udp, sizeof(udp)) ||
	    udp.source != bpf_htons(xio_fault_cfg.port))
		return 0;
	if (bpf_skb_load_bytes(skb, off + sizeof(udp), &magic, sizeof(magic)))
		return 0;
	return magic == bpf_htons(XIO_MAGIC);
}

/* An IPv4 TCP segment from port that carries data. */
static __always_inline int is_tcp_data(struct __sk_buff *skb, __u16 port)
{
	struct {
		struct ethhdr eth;
		struct iphdr ip;
	} __attribute__((packed)) h;
	struct tcphdr tcp;
	__u32 off;

	if (!port || bpf_skb_load_bytes(skb, 0, &h, sizeof(h)))
		return 0;
	if (h.eth.h_proto != bpf_htons(ETH_P_IP) || h.ip.version != 4 || h.ip.ihl < 5 ||
	    h.ip.protocol != IPPROTO_TCP)
		return 0;
	off = sizeof(h.eth) + h.ip.ihl * 4;
	if (bpf_skb_load_bytes(skb, off, &tcp, sizeof(tcp)) || tcp.source != bpf_htons(port))
		return 0;
	return bpf_ntohs(h.ip.tot_len) > h.ip.ihl * 4 + tcp.doff * 4;
}

/* A copy of skb out of its own interface now, ahead of skb itself; it comes
 * through this hook again, marked. */
static __always_inline int send_copy(struct __sk_buff *skb)
{
	__u32 mark = skb->mark;
	int err;

	skb->mark = XIO_FAULT_MARK;
	err = bpf_clone_redirect(skb, skb->ifindex, 0);
	skb->mark = mark;
	return err;
}

/* A fault of a kind whose cap (0: none) is not reached yet. */
static __always_inline int allowed(__u64 max, int c)
{
	return !max || xio_fault_count[c] < max;
}

static __always_inline int hold(struct __sk_buff *skb, struct held *slot)
{
	__u32 len = skb->len;

	if (__sync_val_compare_and_swap(&slot->state, SLOT_EMPTY, SLOT_BUSY) != SLOT_EMPTY) {
		count(XIO_FAULT_PASSED); /* another CPU holds one */
		return TC_ACT_OK;
	}
	if (len < ETH_HLEN || len > XIO_FAULT_MAX_FRAME ||
	    bpf_skb_load_bytes(skb, 0, slot->data, len)) {
		slot->state = SLOT_EMPTY;
		count(XIO_FAULT_ERRORS);
		return TC_ACT_OK;
	}
	slot->len = len;
	__sync_lock_test_and_set(&slot->state, SLOT_FULL);
	count(XIO_FAULT_HELD);
	return TC_ACT_SHOT;
}

/* skb goes out first (a copy), then skb becomes the held datagram. */
static __always_inline int release(struct __sk_buff *skb, struct held *slot)
{
	__u32 len = slot->len;

	if (send_copy(skb)) {
		slot->state = SLOT_FULL; /* try again with the next one */
		count(XIO_FAULT_ERRORS);
		return TC_ACT_OK;
	}
	if (len < ETH_HLEN || len > XIO_FAULT_MAX_FRAME || bpf_skb_change_tail(skb, len, 0) ||
	    bpf_skb_store_bytes(skb, 0, slot->data, len, 0)) {
		slot->state = SLOT_EMPTY;
		count(XIO_FAULT_ERRORS); /* the held one is lost; skb went as the copy */
		return TC_ACT_SHOT;
	}
	slot->state = SLOT_EMPTY;
	count(XIO_FAULT_RELEASED);
	return TC_ACT_OK;
}

SEC("tc")
int xio_fault(struct __sk_buff *skb)
{
	const struct xio_fault_cfg *cfg = &xio_fault_cfg;
	struct held *slot;
	__u32 key = 0;
	__u64 u;

	if (skb->mark == XIO_FAULT_MARK) {
		skb->mark = 0;
		return TC_ACT_OK;
	}
	if (is_tcp_data(skb, cfg->tcp_port)) {
		count(XIO_FAULT_TCP_SEEN);
		u = xio_fault_rand(cfg->seed, __sync_fetch_and_add(&xio_fault_draws, 1)) >> 32;
		if (u < cfg->t_loss && allowed(cfg->max_loss, XIO_FAULT_TCP_DROPPED)) {
			count(XIO_FAULT_TCP_DROPPED);
			return TC_ACT_SHOT;
		}
		return TC_ACT_OK;
	}
	if (!is_xio_reply(skb)) {
		count(XIO_FAULT_OTHER);
		return TC_ACT_OK;
	}
	slot = bpf_map_lookup_elem(&xio_fault_held, &key);
	if (!slot)
		return TC_ACT_OK;
	count(XIO_FAULT_SEEN);
	u = xio_fault_rand(cfg->seed, __sync_fetch_and_add(&xio_fault_draws, 1)) >> 32;

	if (slot->state == SLOT_FULL &&
	    __sync_val_compare_and_swap(&slot->state, SLOT_FULL, SLOT_BUSY) == SLOT_FULL)
		return release(skb, slot);

	if (u < cfg->t_loss) {
		if (allowed(cfg->max_loss, XIO_FAULT_DROPPED)) {
			count(XIO_FAULT_DROPPED);
			return TC_ACT_SHOT;
		}
	} else if (u < cfg->t_dup) {
		if (allowed(cfg->max_dup, XIO_FAULT_DUPLICATED)) {
			if (send_copy(skb))
				count(XIO_FAULT_ERRORS);
			else
				count(XIO_FAULT_DUPLICATED);
			return TC_ACT_OK;
		}
	} else if (u < cfg->t_reorder) {
		if (allowed(cfg->max_reorder, XIO_FAULT_HELD))
			return hold(skb, slot);
	}
	count(XIO_FAULT_PASSED);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
