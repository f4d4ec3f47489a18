/* SPDX-License-Identifier: BSD-3-Clause
 * xdp_prog_time.c: what one XDP program costs per frame on its own, the
 * figure the XDP kernel mode's history in docs/perf.md quotes:
 *   xdp_prog_time OBJ CAP.pcap [--prog NAME] [--rounds N]
 * loads program NAME (default xio_xdp) from the BPF object OBJ with its
 * .rodata as compiled (xio_xdp: XDP_TX, default port and policy), runs every
 * frame of the capture through BPF_PROG_TEST_RUN, one run a call, N rounds
 * (default 15), and prints the kernel's own duration of a run: the mean over
 * the frames of each frame's fastest run (what a busy machine disturbs
 * least), and the median of the rounds' means. An empty program measures the
 * test run's own cost. Two objects (this build's and another's) timed one
 * after the other in a loop give an A/B. A benchmark tool, never a test.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xio_pcap.h"

#define MAX_FRAMES 4096
#define MAX_ROUNDS 1000
#define MAX_LEN    4096

struct frame {
	uint32_t len;
	uint8_t data[MAX_LEN];
};

static void usage(FILE *out)
{
	fprintf(out, "usage: xdp_prog_time OBJ CAP.pcap [--prog NAME] [--rounds N]\n"
		     "  BPF_PROG_TEST_RUN ns/frame of program NAME (default xio_xdp) of the BPF\n"
		     "  object OBJ over the capture's frames (at most %d, up to %d bytes),\n"
		     "  N rounds (default 15, at most %d)\n",
		MAX_FRAMES, MAX_LEN, MAX_ROUNDS);
}

static int read_frames(const char *path, struct frame *fr)
{
	char err[XIO_PCAP_ERRLEN] = "";
	struct xio_pcap_reader *r = xio_pcap_open_read(path, err, sizeof(err));
	struct xio_pcap_pkt pkt;
	int n = 0, rc;

	if (r == NULL) {
		fprintf(stderr, "xdp_prog_time: %s\n", err);
		return -1;
	}
	while ((rc = xio_pcap_next(r, &pkt, err, sizeof(err))) == 1 && n < MAX_FRAMES) {
		if (pkt.caplen != pkt.len || pkt.caplen < 14 || pkt.caplen > MAX_LEN) {
			snprintf(err, sizeof(err), "%s: frame %d: only whole frames of 14..%d bytes",
				 path, n + 1, MAX_LEN);
			rc = -1;
			break;
		}
		fr[n].len = pkt.caplen;
		memcpy(fr[n].data, pkt.data, pkt.caplen);
		n++;
	}
	xio_pcap_close_read(r);
	if (rc >= 0 && n == 0) {
		snprintf(err, sizeof(err), "%s: no frames", path);
		rc = -1;
	}
	if (rc < 0) {
		fprintf(stderr, "xdp_prog_time: %s\n", err);
		return -1;
	}
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Runs every frame once per round; fills fastest[] (per frame) and mean[]
 * (per round). */
static int time_runs(int fd, const struct frame *fr, int n, int rounds, uint32_t *fastest,
		     double *mean)
{
	static uint8_t out[MAX_LEN];

	for (int r = 0; r < rounds; r++) {
		uint64_t total = 0;

		for (int i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = fr[i].data,
				    .data_size_in = fr[i].len, .data_out = out,
				    .data_size_out = sizeof(out), .repeat = 1);

			if (bpf_prog_test_run_opts(fd, &opts) != 0) {
				fprintf(stderr, "xdp_prog_time: BPF_PROG_TEST_RUN: %s\n",
					strerror(errno));
				return -1;
			}
			total += opts.duration;
			if (r == 0 || opts.duration < fastest[i])
				fastest[i] = opts.duration;
		}
		mean[r] = (double)total / n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *pos[2] = { NULL, NULL }, *prog_name = "xio_xdp";
	static struct frame frames[MAX_FRAMES];
	static uint32_t fastest[MAX_FRAMES];
	static double mean[MAX_ROUNDS];
	struct bpf_program *prog;
	struct bpf_object *obj;
	int npos = 0, rounds = 15, n, rc = 1;
	double best = 0;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--prog") == 0 && a + 1 < argc) {
			prog_name = argv[++a];
		} else if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc) {
			char *end;
			long v = strtol(argv[++a], &end, 10);

			if (*end != '\0' || v < 1 || v > MAX_ROUNDS) {
				fprintf(stderr, "xdp_prog_time: --rounds: '%s' is not in 1..%d\n",
					argv[a], MAX_ROUNDS);
				return 2;
			}
			rounds = (int)v;
		} else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (argv[a][0] == '-' || npos == 2) {
			usage(stderr);
			return 2;
		} else {
			pos[npos++] = argv[a];
		}
	}
	if (npos != 2) {
		usage(stderr);
		return 2;
	}
	if ((n = read_frames(pos[1], frames)) < 0)
		return 1;
	obj = bpf_object__open_file(pos[0], NULL);
	if (obj == NULL) {
		fprintf(stderr, "xdp_prog_time: %s: cannot open: %s\n", pos[0], strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, prog_name);
	if (prog == NULL)
		fprintf(stderr, "xdp_prog_time: %s: no program '%s'\n", pos[0], prog_name);
	else if (bpf_object__load(obj) != 0)
		fprintf(stderr, "xdp_prog_time: %s: cannot load: %s\n", pos[0], strerror(errno));
	else if (time_runs(bpf_program__fd(prog), frames, n, rounds, fastest, mean) == 0)
		rc = 0;
	bpf_object__close(obj);
	if (rc != 0)
		return rc;
	for (int i = 0; i < n; i++)
		best += fastest[i];
	qsort(mean, (size_t)rounds, sizeof(mean[0]), cmp_double);
	printf("xdp_prog_time: %s %s: %d frames x %d rounds: %.1f ns/frame (each frame's fastest "
	       "run), median round %.1f ns/frame\n",
	       pos[0], prog_name, n, rounds, best / n, mean[rounds / 2]);
	return 0;
}
