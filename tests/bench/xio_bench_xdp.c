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
 *   prog OBJ CAP.pcap  no interface: what program --prog NAME (default
 *                      xio_xdp) of the BPF object OBJ, .rodata as compiled,
 *                      costs a frame on its own (`make bench-xdp-prog`):
 *                      every frame through BPF_PROG_TEST_RUN, one run a
 *                      call, --rounds N (default 15); prints the mean over
 *                      the frames of each frame's fastest run (what a busy
 *                      machine disturbs least) and the median round's mean
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
#define PROG_MAX_ROUNDS 1000

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
		"       xio-bench-xdp prog OBJ CAP.pcap [--prog NAME] [--rounds N]\n"
		"  pass, drop, redirect, bridge: attach the baseline program (native XDP unless\n"
		"  --generic) until SIGINT/SIGTERM or S seconds, then print the frames seen.\n"
		"  send: replay the capture's frames (Ethernet, up to %d bytes, at most %d\n"
		"  frames) out of IF in a loop for S seconds (default 5), then print the\n"
		"  frames sent and the rate.\n"
		"  prog: BPF_PROG_TEST_RUN ns/frame of program NAME (default xio_xdp) of the\n"
		"  BPF object OBJ over the capture's frames, N rounds (default 15, at most %d).\n",
		XIO_BENCH_MAX_LEN, XIO_BENCH_MAX_FRAMES, PROG_MAX_ROUNDS);
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* prog: every frame once a round through BPF_PROG_TEST_RUN (repeat 1: the
 * program narrows in place, so each run needs the frame afresh). */
static int do_prog(const char *path, const char *name, const struct xio_bench_frame *fr, int n,
		   int rounds)
{
	static uint8_t out[XIO_BENCH_MAX_LEN];
	static uint32_t fastest[XIO_BENCH_MAX_FRAMES];
	static double mean[PROG_MAX_ROUNDS];
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	double best = 0;
	int fd;

	if (obj == NULL) {
		fprintf(stderr, "xio-bench-xdp: %s: cannot open: %s\n", path, strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, name);
	if (prog == NULL || bpf_object__load(obj) != 0) {
		fprintf(stderr, "xio-bench-xdp: %s: %s\n", path,
			prog == NULL ? "no such program" : "cannot load the program");
		bpf_object__close(obj);
		return 1;
	}
	fd = bpf_program__fd(prog);
	for (int r = 0; r < rounds; r++) {
		uint64_t total = 0;

		for (int i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = fr[i].data,
				    .data_size_in = fr[i].len, .data_out = out,
				    .data_size_out = sizeof(out), .repeat = 1);

			if (bpf_prog_test_run_opts(fd, &opts) != 0) {
				fprintf(stderr, "xio-bench-xdp: BPF_PROG_TEST_RUN: %s\n",
					strerror(errno));
				bpf_object__close(obj);
				return 1;
			}
			total += opts.duration;
			if (r == 0 || opts.duration < fastest[i])
				fastest[i] = opts.duration;
		}
		mean[r] = (double)total / n;
	}
	bpf_object__close(obj);
	for (int i = 0; i < n; i++)
		best += fastest[i];
	qsort(mean, (size_t)rounds, sizeof(mean[0]), cmp_double);
	printf("xio-bench-xdp: %s %s: %d frames x %d rounds: %.1f ns/frame (each frame's fastest "
	       "run), median round %.1f ns/frame\n",
	       path, name, n, rounds, best / n, mean[rounds / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t mode = XDP_FLAGS_DRV_MODE;
	const char *pos[3] = { NULL, NULL, NULL }, *prog_name = "xio_xdp";
	struct xio_bench_frame *frames = NULL;
	struct xio_bench_xdp_bpf *skel;
	double duration = -1;
	int npos = 0, rc = 1, in, out = 0, nframes = 0, bridge, rounds = 15;

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
		} else if (strcmp(argv[a], "--prog") == 0 && a + 1 < argc) {
			prog_name = argv[++a];
		} else if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc) {
			char *end;
			long v = strtol(argv[++a], &end, 10);

			if (*end != '\0' || v < 1 || v > PROG_MAX_ROUNDS) {
				fprintf(stderr, "xio-bench-xdp: --rounds: '%s' is not in 1..%d\n",
					argv[a], PROG_MAX_ROUNDS);
				return 2;
			}
			rounds = (int)v;
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
	if (npos == 3 && strcmp(pos[0], "prog") == 0) {
		if ((nframes = read_frames(pos[2], &frames)) < 0)
			return 1;
		rc = do_prog(pos[1], prog_name, frames, nframes, rounds);
		free(frames);
		return rc;
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
