/* SPDX-License-Identifier: BSD-3-Clause
 * bench_stage.c: where a frame's time goes in the stage core, outside DPDK
 * (make bench-stage; never make test). The bench-pipeline frame (IPv4, UDP
 * checksum on, 364 in-range INT32 tokens) is copied into a burst of
 * buffers laid out as mbufs (2 KiB apart, 128 bytes of headroom), as
 * net_pcap's infinite_rx copies it into fresh mbufs, and then each frame of
 * the burst goes through one configuration:
 *   copy           nothing more: the PMD's share
 *   forward        xio_process() told another XIO port: stops at rule 5
 *                  (the pipeline's forward-only baseline)
 *   narrow         xio_process(): every rule, the narrowing pass, the rewrite
 *   kernel         only the narrowing kernel over the payload: the pass alone
 * in bursts of 32 frames (48 KiB: the first frames have left L1 for L2 when
 * they are processed), and narrow and kernel again in bursts of 8 (L1).
 * Every configuration runs once per round, in the same order, ROUNDS
 * rounds; a configuration's figure is its median over the rounds of TSC
 * ticks per frame. Each narrowed frame is checked (reason and length), so a
 * broken stage cannot post a figure. Writes CSV (config,ticks_per_frame,
 * min,max) to --csv FILE or stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "xio_build.h"
#include "xio_narrow.h"
#include "xio_stage.h"

#define BENCH_TOKENS 364
#define BENCH_BURST  32
#define BENCH_POOL   64   /* buffers the bursts cycle through, as a mempool cache */
#define BENCH_ROOM   2048
#define BENCH_HEAD   128  /* RTE_PKTMBUF_HEADROOM */
#define BENCH_ROUNDS 15
#define BENCH_FRAMES (20000 * BENCH_BURST)

enum bench_cfg { B_COPY, B_FORWARD, B_NARROW, B_KERNEL, B_NARROW_8, B_KERNEL_8, B_NCFG };

static const char *const bench_name[B_NCFG] = {
	"copy", "forward", "narrow", "kernel", "narrow_burst8", "kernel_burst8",
};

static uint8_t pool[BENCH_POOL][BENCH_ROOM] __attribute__((aligned(64)));
static uint8_t frame[BENCH_ROOM];
static struct xio_build_layout lay;
static volatile uint64_t sink;

static void one(enum bench_cfg c, const struct xio_stage_cfg *xio, const struct xio_stage_cfg *other,
		uint8_t *buf, uint32_t len, const struct xio_narrow_ops *ops)
{
	struct xio_result res;
	uint64_t sum = 0;

	switch (c) {
	case B_COPY:
		sink += buf[lay.l4_off];
		return;
	case B_FORWARD:
		xio_process_buf(other, buf, len, &res);
		if (res.reason != XIO_R_OTHER_PORT) {
			fprintf(stderr, "bench_stage: forward: reason %u\n", res.reason);
			exit(1);
		}
		return;
	case B_NARROW:
	case B_NARROW_8:
		xio_process_buf(xio, buf, len, &res);
		if (res.reason != XIO_R_NARROWED || res.out_len != lay.ip_end - 2 * BENCH_TOKENS) {
			fprintf(stderr, "bench_stage: narrow: reason %u, %u bytes\n", res.reason, res.out_len);
			exit(1);
		}
		return;
	default:
		if (ops->narrow_checked(buf + lay.payload_off, buf + lay.payload_off, BENCH_TOKENS,
					&sum) != BENCH_TOKENS) {
			fprintf(stderr, "bench_stage: kernel stopped short\n");
			exit(1);
		}
		sink += sum;
	}
}

/* TSC ticks per frame of one configuration over BENCH_FRAMES frames. */
static double run(enum bench_cfg c, uint32_t len)
{
	const struct xio_narrow_ops *ops = xio_narrow_ops();
	struct xio_stage_cfg xio, other;
	int burst = c == B_NARROW_8 || c == B_KERNEL_8 ? 8 : BENCH_BURST;
	unsigned slot = 0;
	uint64_t t0;

	xio_stage_cfg_default(&xio);
	other = xio;
	other.udp_port = 9;
	t0 = __rdtsc();
	for (int b = 0; b < BENCH_FRAMES / burst; b++) {
		uint8_t *buf[BENCH_BURST];

		for (int i = 0; i < burst; i++) {
			buf[i] = pool[slot++ % BENCH_POOL] + BENCH_HEAD;
			memcpy(buf[i], frame, len);
		}
		for (int i = 0; i < burst; i++)
			one(c, &xio, &other, buf[i], len, ops);
	}
	return (double)(__rdtsc() - t0) / BENCH_FRAMES;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static double t[B_NCFG][BENCH_ROUNDS];
	int32_t tokens[BENCH_TOKENS];
	struct xio_build_spec spec;
	FILE *out = stdout;
	uint32_t len;

	if (argc == 3 && strcmp(argv[1], "--csv") == 0) {
		out = fopen(argv[2], "w");
		if (out == NULL) {
			perror(argv[2]);
			return 1;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--csv FILE]\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < BENCH_TOKENS; i++)
		tokens[i] = (int32_t)((i * 7919u) % 50257u);
	xio_build_spec_default(&spec);
	spec.token_count = BENCH_TOKENS;
	spec.tokens = tokens;
	len = xio_build_frame(&spec, frame, sizeof(frame), &lay);
	if (len == 0 || len + BENCH_HEAD > BENCH_ROOM) {
		fprintf(stderr, "bench_stage: cannot build the bench frame\n");
		return 1;
	}
	for (int r = 0; r < BENCH_ROUNDS; r++)
		for (int c = 0; c < B_NCFG; c++)
			t[c][r] = run((enum bench_cfg)c, len);
	fprintf(out, "config,ticks_per_frame,min,max,frame_bytes,kernel\n");
	for (int c = 0; c < B_NCFG; c++) {
		qsort(t[c], BENCH_ROUNDS, sizeof(double), cmp_double);
		fprintf(out, "%s,%.1f,%.1f,%.1f,%u,%s\n", bench_name[c], t[c][BENCH_ROUNDS / 2], t[c][0],
			t[c][BENCH_ROUNDS - 1], len, xio_narrow_ops()->name);
	}
	if (out != stdout && fclose(out) != 0) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
