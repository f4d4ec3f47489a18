/* SPDX-License-Identifier: BSD-3-Clause
 * xio_fault.h: what the fault-injection program of the live test
 * (tests/live/xio_fault.bpf.c) and its users share: the configuration and
 * counter layout, and the seeded PRNG, so that a test can say in advance what
 * the program does to every datagram.
 *
 * Each XIO datagram from the configured port draws the next number of the
 * sequence xio_fault_rand(seed, 0), (seed, 1), ...; its upper 32 bits u pick
 * at most one fault: u < loss drops it, u < loss + dup duplicates it,
 * u < loss + dup + reorder holds it back (dropped now, sent again after the
 * next XIO datagram: the two leave swapped). A datagram that finds a held one
 * releases it instead and gets no fault of its own. A fault whose cap is
 * reached lets the datagram pass. With tcp_port set, each IPv4 TCP segment
 * from that port that carries data draws the next number as well, and
 * u < loss drops it (max_loss counts those drops apart): the same loss for a
 * TCP baseline on the same path.
 */
#ifndef XIO_FAULT_H
#define XIO_FAULT_H

#include <linux/types.h>

/* Largest frame that can be held back for reordering (a power of two). */
#define XIO_FAULT_MAX_FRAME 16384

/* skb->mark of the program's own copies (they pass it untouched). */
#define XIO_FAULT_MARK 0x584c5631

struct xio_fault_cfg {
	__u64 seed;
	/* thresholds on the draw's upper 32 bits, cumulative: loss <= dup <= reorder <= 2^32 */
	__u64 t_loss, t_dup, t_reorder;
	/* most faults of each kind, 0 = no limit */
	__u64 max_loss, max_dup, max_reorder;
	__u16 port; /* the XIO port, host order: datagrams FROM it are faulted */
	__u16 tcp_port; /* 0, or a TCP port: its segments that carry data get loss alone */
	__u16 pad[2];
};

enum xio_fault_counter {
	XIO_FAULT_SEEN,       /* XIO datagrams from the port (each drew a number) */
	XIO_FAULT_PASSED,     /* of those, sent on without a fault */
	XIO_FAULT_DROPPED,
	XIO_FAULT_DUPLICATED, /* sent twice */
	XIO_FAULT_HELD,       /* held back for reordering */
	XIO_FAULT_RELEASED,   /* held ones sent after the next datagram */
	XIO_FAULT_OTHER,      /* frames that are not XIO from the port: untouched */
	XIO_FAULT_ERRORS,     /* a helper failed: the datagram passed, or was lost if held */
	XIO_FAULT_TCP_SEEN,   /* TCP segments with data from tcp_port (each drew a number) */
	XIO_FAULT_TCP_DROPPED,
	XIO_FAULT_NCOUNTERS
};

#define XIO_FAULT_COUNTER_NAMES \
	{ "seen", "passed", "dropped", "duplicated", "held", "released", "other", "errors", \
	  "tcp_seen", "tcp_dropped" }

/* The n-th number of seed's sequence (splitmix64). */
static inline __u64 xio_fault_rand(__u64 seed, __u64 n)
{
	__u64 z = seed + (n + 1) * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

#endif /* XIO_FAULT_H */
