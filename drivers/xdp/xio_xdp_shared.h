/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xdp_shared.h: what the XDP program (xio_xdp.bpf.c) and its loader
 * share: the layout of the per-CPU counter map, map sizes and the limits of
 * what the kernel finishes itself. Kernel types only (linux/types.h), so
 * both the BPF build and user space include it.
 */
#ifndef XIO_XDP_SHARED_H
#define XIO_XDP_SHARED_H

#include <linux/types.h>

/* Queues an interface may have (a power of two): the XSKMAP and the order
 * barrier. */
#define XIO_XDP_MAX_QUEUES 64

/* The kernel finishes a frame only when it is linear and at most this long;
 * longer or multi-buffer XIO frames go to the AF_XDP sockets. It bounds the
 * checksum and narrowing loops for the verifier. */
#define XIO_XDP_MAX_LINEAR 4096
#define XIO_XDP_MAX_TOKENS (XIO_XDP_MAX_LINEAR / 4)

/* The counters the kernel keeps, one copy per CPU (BPF_MAP_TYPE_PERCPU_ARRAY,
 * key 0). The first fields match struct xio_counters (pipeline/xio_counters.h)
 * and count the frames the kernel finished; frames handed to AF_XDP are
 * counted in user space once they are finished there. */
#define XIO_XDP_NREASONS 15 /* == XIO_R_COUNT, checked in xio_xdp.c */

struct xio_xdp_stats {
	__u64 rx_packets;
	__u64 tx_packets;
	__u64 dropped_packets;
	__u64 narrowed_packets;
	__u64 tokens_narrowed;
	__u64 tokens_saturated;
	__u64 bytes_in;
	__u64 bytes_out;
	__u64 reasons[XIO_XDP_NREASONS];
	__u64 to_user;   /* frames redirected to an AF_XDP socket */
	__u64 no_socket; /* frames for AF_XDP on a queue without a socket: dropped */
};

#endif /* XIO_XDP_SHARED_H */
