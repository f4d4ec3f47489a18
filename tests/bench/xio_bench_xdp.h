/* SPDX-License-Identifier: BSD-3-Clause
 * xio_bench_xdp.h: what the XDP benchmark's programs (xio_bench_xdp.bpf.c)
 * and their loader (xio_bench_xdp.c) share: the frames the sender replays.
 */
#ifndef XIO_BENCH_XDP_H
#define XIO_BENCH_XDP_H

#include <linux/types.h>

/* BPF_PROG_RUN live frames live in one page with XDP headroom and
 * skb_shared_info: frames up to this length (plus the one byte the
 * sender's template adds) fit. */
#define XIO_BENCH_MAX_LEN    3000
#define XIO_BENCH_MAX_FRAMES 1024

struct xio_bench_frame {
	__u32 len;
	__u8 data[XIO_BENCH_MAX_LEN];
};

#endif /* XIO_BENCH_XDP_H */
