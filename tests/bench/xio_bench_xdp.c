/* SPDX-License-Identifier: BSD-3-Clause
 * xio_bench_xdp.c: the XDP side of `make bench` (scripts/bench/xdp.sh):
 *   pass IF            the `xdp-bench pass` baseline on IF
 *   redirect IN OUT    the `xdp-bench redirect` baseline, IN to OUT
 *   bridge IN OUT      the live benchmark's plain bridge, IN to OUT, frames
 *                      untouched (scripts/bench/live.sh runs one each way)
 *   drop IF            the receiver: drops every frame
 *   send IF CAP.pcap   the traffic source: replays the capture's frames in a
 *                      loop out of IF, as fast as the kernel takes them
 *                      (BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES)
 * Programs are attached in native mode (--generic: skb mode) until SIGINT,
 * SIGTERM or --duration S; at exit one line gives the frames counted (sent).
 * A benchmark tool, never a test.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "xio_bench_xdp.h"
#include "xio_bench_xdp.skel.h"
#include "xio_pcap.h"

#define SEND_REPEAT 65536

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xio-bench-xdp pass IF | drop IF | redirect IN OUT | bridge IN OUT |\n"
		"                     send IF CAP.pcap\n"
		"                     [--duration S] [--generic]\n"
		"  pass, drop, redirect, bridge: attach the baseline program (native XDP unless\n"
		"  --generic) until SIGINT/SIGTERM or S seconds, then print the frames seen.\n"
		"  send: replay the capture's frames (Ethernet, up to %d bytes, at most %d\n"
		"  frames) out of IF in a loop for S seconds (default 5), then print the\n"
		"  frames sent and the rate.\n",
		XIO_BENCH_MAX_LEN, XIO_BENCH_MAX_FRAMES);
}

static int ifindex_of(const char *name)
{
	unsigned idx = if_nametoindex(name);

	if (idx == 0)
		fprintf(stderr, "xio-bench-xdp: no interface '%s'\n", name);
	return (int)idx;
}

static uint64_t rx_count(struct xio_bench_xdp_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;
	uint32_t key = 0;

	if (ncpu <= 0 || (vals = calloc((size_t)ncpu, sizeof(*vals))) == NULL)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.rx_cnt), &key, vals) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

/* Reads every frame of the capture into *out (malloc'ed); returns how many. */
static int read_frames(const char *path, struct xio_bench_frame **out)
{
	char err[XIO_PCAP_ERRLEN] = "";
	struct xio_pcap_reader *r = xio_pcap_open_read(path, err, sizeof(err));
	struct xio_bench_frame *fr;
	struct xio_pcap_pkt pkt;
	int n = 0, rc;

	if (r == NULL) {
		fprintf(stderr, "xio-bench-xdp: %s\n", err);
		return -1;
	}
	fr = calloc(XIO_BENCH_MAX_FRAMES, sizeof(*fr));
	if (fr == NULL) {
		xio_pcap_close_read(r);
		return -1;
	}
	while ((rc = xio_pcap_next(r, &pkt, err, sizeof(err))) == 1) {
		if (n == XIO_BENCH_MAX_FRAMES || pkt.caplen != pkt.len || pkt.caplen < 14 ||
		    pkt.caplen > XIO_BENCH_MAX_LEN) {
			snprintf(err, sizeof(err),
				 "%s: frame %d: only whole frames of 14..%d bytes, at most %d frames",
				 path, n + 1, XIO_BENCH_MAX_LEN, XIO_BENCH_MAX_FRAMES);
			rc = -1;
			break;
		}
		fr[n].len = pkt.caplen;
		memcpy(fr[n].data, pkt.data, pkt.caplen);
		n++;
	}
	xio_pcap_close_read(r);
	if (rc == 0 && n == 0) {
		snprintf(err, sizeof(err), "%s: no frames", path);
		rc = -1;
	}
	if (rc < 0) {
		fprintf(stderr, "xio-bench-xdp: %s\n", err);
		free(fr);
		return -1;
	}
	*out = fr;
	return n;
}

static int fill_frames(struct xio_bench_xdp_bpf *skel, const struct xio_bench_frame *fr, int n)
{
	for (uint32_t i = 0; i < (uint32_t)n; i++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.frames_map), &i, &fr[i], BPF_ANY) != 0) {
			fprintf(stderr, "xio-bench-xdp: frames_map: %s\n", strerror(errno));
			return -1;
		}
	return 0;
}

/* The run's template is one byte longer than the longest frame, so the
 * program always moves the frame's end (bpf_xdp_adjust_tail): the kernel
 * then rebuilds the page's xdp_frame from the program's context on every
 * send. Without that, a page coming back from a device under test that
 * shrank the frame (narrowing) would go out again at the shrunk length. */
static int do_send(struct xio_bench_xdp_bpf *skel, int ifindex, const struct xio_bench_frame *fr,
		   int n, double duration)
{
	static uint8_t tmpl[XIO_BENCH_MAX_LEN + 1];
	uint32_t tlen = 0;
	struct xdp_md ctx = { .ingress_ifindex = (uint32_t)ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = tmpl, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = SEND_REPEAT,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);
	int fd = bpf_program__fd(skel->progs.bench_send);
	double t0 = now_s(), t;
	uint64_t runs = 0;

	for (int i = 0; i < n; i++)
		tlen = fr[i].len > tlen ? fr[i].len : tlen;
	tlen++;
	memcpy(tmpl, fr[0].data, fr[0].len);
	opts.data_size_in = tlen;
	ctx.data_end = tlen;
	do {
		if (bpf_prog_test_run_opts(fd, &opts) != 0) {
			if (errno == EINTR)
				break;
			fprintf(stderr, "xio-bench-xdp: BPF_PROG_RUN (live frames): %s\n",
				strerror(errno));
			return 1;
		}
		runs++;
		t = now_s();
	} while (!stop && t - t0 < duration);
	t = now_s() - t0;
	printf("xio-bench-xdp: sent %" PRIu64 " frames in %.3f s (%.3f Mpps offered)\n",
	       runs * SEND_REPEAT, t, (double)(runs * SEND_REPEAT) / t / 1e6);
	return 0;
}

static int do_attach(struct xio_bench_xdp_bpf *skel, struct bpf_program *prog, int ifindex,
		     const char *name, uint32_t mode, double duration)
{
	uint32_t flags = mode | XDP_FLAGS_UPDATE_IF_NOEXIST;
	double t0;
	int rc;

	rc = bpf_xdp_attach(ifindex, bpf_program__fd(prog), flags, NULL);
	if (rc != 0) {
		fprintf(stderr, "xio-bench-xdp: attach %s to %s: %s\n", bpf_program__name(prog),
			name, strerror(-rc));
		return 1;
	}
	printf("xio-bench-xdp: %s attached to %s\n", bpf_program__name(prog), name);
	fflush(stdout);
	t0 = now_s();
	while (!stop && (duration <= 0 || now_s() - t0 < duration))
		usleep(20000);
	bpf_xdp_detach(ifindex, mode, NULL);
	printf("xio-bench-xdp: %s on %s saw %" PRIu64 " frames in %.3f s\n", bpf_program__name(prog),
	       name, rx_count(skel), now_s() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t mode = XDP_FLAGS_DRV_MODE;
	const char *pos[3] = { NULL, NULL, NULL };
	struct xio_bench_frame *frames = NULL;
	struct xio_bench_xdp_bpf *skel;
	double duration = -1;
	int npos = 0, rc = 1, in, out = 0, nframes = 0, bridge;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--duration") == 0 && a + 1 < argc) {
			char *end;

			duration = strtod(argv[++a], &end);
			if (*end != '\0' || !(duration > 0) || duration > 86400) {
				fprintf(stderr, "xio-bench-xdp: --duration: '%s' is not in (0, 86400]\n",
					argv[a]);
				return 2;
			}
		} else if (strcmp(argv[a], "--generic") == 0) {
			mode = XDP_FLAGS_SKB_MODE;
		} else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (argv[a][0] == '-' || npos == 3) {
			usage(stderr);
			return 2;
		} else {
			pos[npos++] = argv[a];
		}
	}
	bridge = npos > 0 && strcmp(pos[0], "bridge") == 0;
	if (npos < 2 || (strcmp(pos[0], "pass") != 0 && strcmp(pos[0], "drop") != 0 &&
			 strcmp(pos[0], "redirect") != 0 && strcmp(pos[0], "send") != 0 && !bridge) ||
	    npos != (strcmp(pos[0], "redirect") == 0 || strcmp(pos[0], "send") == 0 || bridge ? 3 : 2)) {
		usage(stderr);
		return 2;
	}
	if ((in = ifindex_of(pos[1])) == 0 ||
	    ((strcmp(pos[0], "redirect") == 0 || bridge) && (out = ifindex_of(pos[2])) == 0))
		return 1;
	if (strcmp(pos[0], "send") == 0 && (nframes = read_frames(pos[2], &frames)) < 0)
		return 1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = xio_bench_xdp_bpf__open();
	if (skel == NULL) {
		fprintf(stderr, "xio-bench-xdp: cannot open the BPF object: %s\n", strerror(errno));
		free(frames);
		return 1;
	}
	skel->rodata->cfg_ifindex_out = (uint32_t)out;
	skel->rodata->cfg_nframes = nframes > 0 ? (uint32_t)nframes : 1;
	if (xio_bench_xdp_bpf__load(skel) != 0) {
		fprintf(stderr, "xio-bench-xdp: cannot load the BPF programs: %s\n", strerror(errno));
	} else if (strcmp(pos[0], "pass") == 0) {
		rc = do_attach(skel, skel->progs.bench_pass, in, pos[1], mode, duration);
	} else if (strcmp(pos[0], "drop") == 0) {
		rc = do_attach(skel, skel->progs.bench_drop, in, pos[1], mode, duration);
	} else if (strcmp(pos[0], "redirect") == 0) {
		rc = do_attach(skel, skel->progs.bench_redirect, in, pos[1], mode, duration);
	} else if (bridge) {
		rc = do_attach(skel, skel->progs.bench_bridge, in, pos[1], mode, duration);
	} else if (fill_frames(skel, frames, nframes) == 0) {
		rc = do_send(skel, in, frames, nframes, duration > 0 ? duration : 5);
	}
	free(frames);
	xio_bench_xdp_bpf__destroy(skel);
	return rc;
}
