/* SPDX-License-Identifier: BSD-3-Clause
 * bench_kernels.c: speed of every narrowing kernel this CPU runs (both
 * policies, in-range tokens, out of place, buffers in cache) next to memcpy
 * and ISA-L CRC32C of the same input bytes, for packet-sized buffers from
 * 64 B to 9000 B. Prints GB/s of input and tokens per cycle (x86: rdtsc; arm:
 * the generic timer, cntvct_el0), and the speed against memcpy as the median
 * of rounds that time memcpy and the function back to back; --csv FILE also
 * writes the numbers as CSV.
 * A benchmark, never a test: nothing here passes or fails on a timing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "xio_crc.h"
#include "xio_narrow.h"

#define MAX_BYTES 9000

enum kind { K_MEMCPY, K_CRC32C, K_CHECKED, K_SATURATE };

struct job {
	enum kind kind;
	const struct xio_narrow_ops *ops;
	uint8_t *dst;
	const uint8_t *src;
	size_t bytes;
};

struct result {
	double ns;    /* per call */
	double ticks; /* per call */
};

static volatile uint64_t sink;

static inline uint64_t ticks_now(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

static const char *ticks_name(void)
{
#if defined(__x86_64__)
	return "TSC cycle (rdtsc)";
#elif defined(__aarch64__)
	static char buf[64];
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	snprintf(buf, sizeof(buf), "generic-timer tick (cntvct_el0, %.1f MHz)", (double)f / 1e6);
	return buf;
#else
	return "n/a";
#endif
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run_batch(const struct job *j, uint64_t iters)
{
	uint64_t acc = 0;

	while (iters-- > 0) {
		switch (j->kind) {
		case K_MEMCPY:
			memcpy(j->dst, j->src, j->bytes);
			break;
		case K_CRC32C:
			acc += xio_crc32c(j->src, j->bytes);
			break;
		case K_CHECKED: {
			uint64_t sum = 0; /* fresh per call, as the stage core's */

			acc += j->ops->narrow_checked(j->dst, j->src, j->bytes / 4, &sum) + sum;
			break;
		}
		case K_SATURATE:
			acc += j->ops->narrow_saturate(j->dst, j->src, j->bytes / 4);
			break;
		}
		__asm__ volatile("" : : "r"(j->dst) : "memory");
	}
	sink += acc;
}

/* Iterations that make a batch of about ms. */
static uint64_t calibrate(const struct job *j, double ms)
{
	uint64_t iters = 1;
	double t0, el;

	for (;;) { /* a batch of at least 1 ms */
		t0 = now_ns();
		run_batch(j, iters);
		el = now_ns() - t0;
		if (el >= 1e6)
			break;
		iters *= 2;
	}
	return (uint64_t)((double)iters * ms * 1e6 / el) + 1;
}

static void timed_batch(const struct job *j, uint64_t iters, struct result *r)
{
	uint64_t c0 = ticks_now();
	double t0 = now_ns();

	run_batch(j, iters);
	r->ns = (now_ns() - t0) / (double)iters;
	r->ticks = (double)(ticks_now() - c0) / (double)iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* reps rounds of one memcpy batch then one batch of j, each about ms long:
 * j's best batch, and the median over the rounds of memcpy's time / j's
 * time in the same round (a slow phase of the machine hits both). */
static struct result measure(const struct job *mem, const struct job *j, double ms, int reps,
			     double *vs_memcpy)
{
	struct result best = { 1e30, 1e30 }, m, r;
	uint64_t mi = calibrate(mem, ms), ji = calibrate(j, ms);
	double ratio[64];
	int k;

	if (reps > 64)
		reps = 64;
	for (k = 0; k < reps; k++) {
		timed_batch(mem, mi, &m);
		timed_batch(j, ji, &r);
		ratio[k] = m.ns / r.ns;
		if (r.ns < best.ns)
			best = r;
	}
	qsort(ratio, (size_t)reps, sizeof(ratio[0]), cmp_double);
	*vs_memcpy = reps % 2 ? ratio[reps / 2] : (ratio[reps / 2 - 1] + ratio[reps / 2]) / 2;
	return best;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--csv FILE] [--ms N] [--reps N]\n"
		"  every narrowing kernel this CPU runs, memcpy and CRC32C on 64 B..9000 B\n"
		"  --csv FILE  also write the results as CSV\n"
		"  --ms N      length of one timed batch in ms (default 5)\n"
		"  --reps N    rounds of memcpy then the function (default 9, at most 64)\n",
		prog);
}

static int parse_pos(const char *opt, const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno != 0 || *end != '\0' || !(*out > 0) || *out > 10000) {
		fprintf(stderr, "bench_kernels: %s: '%s' is not a number in (0, 10000]\n", opt, v);
		return -1;
	}
	return 0;
}

/* Each kernel must agree with the scalar reference before it is timed. */
static int verify(const struct xio_narrow_ops *ops, const uint8_t *src, size_t n)
{
	static uint8_t a[MAX_BYTES / 2], b[MAX_BYTES / 2];
	uint64_t sa = 0, sb = 0;

	if (xio_narrow_scalar.narrow_checked(a, src, n, &sa) != ops->narrow_checked(b, src, n, &sb) ||
	    sa != sb || memcmp(a, b, 2 * n) != 0 ||
	    xio_narrow_scalar.narrow_saturate(a, src, n) != ops->narrow_saturate(b, src, n) ||
	    memcmp(a, b, 2 * n) != 0) {
		fprintf(stderr, "bench_kernels: %s differs from the scalar reference (n=%zu)\n", ops->name, n);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 128, 256, 512, 1024, 1456, 2048, 4096, 8192, 9000 };
	/* cache-line aligned, both: where the linker put them decided before
	 * whether 64-byte loads and stores split lines */
	static uint8_t src[MAX_BYTES] __attribute__((aligned(64)));
	static uint8_t dst[MAX_BYTES] __attribute__((aligned(64)));
	const struct xio_narrow_ops *const *all = xio_narrow_all();
	const char *csv_path = NULL;
	double ms = 5, reps = 9;
	FILE *csv = NULL;
	size_t s, i;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--csv") == 0 && a + 1 < argc) {
			csv_path = argv[++a];
		} else if (strcmp(argv[a], "--ms") == 0 && a + 1 < argc) {
			if (parse_pos("--ms", argv[++a], &ms) != 0)
				return 2;
		} else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
			if (parse_pos("--reps", argv[++a], &reps) != 0)
				return 2;
		} else {
			usage(argv[0]);
			return strcmp(argv[a], "--help") == 0 ? 0 : 2;
		}
	}
	if (csv_path != NULL && (csv = fopen(csv_path, "w")) == NULL) {
		fprintf(stderr, "bench_kernels: --csv %s: %s\n", csv_path, strerror(errno));
		return 2;
	}
	for (i = 0; i < MAX_BYTES / 4; i++) { /* in-range tokens: the common case */
		uint32_t t = (uint32_t)(i * 2654435761u) >> 16;

		memcpy(src + 4 * i, &t, 4);
	}
	for (i = 0; all[i] != NULL; i++)
		if (xio_narrow_supported(all[i]) && verify(all[i], src, MAX_BYTES / 4) != 0)
			return 1;

	printf("narrowing kernels vs memcpy and CRC32C of the same input bytes: %.0f rounds of a %.0f ms\n"
	       "memcpy batch then a %.0f ms batch of the function; time: the best batch; x memcpy: the\n"
	       "median over the rounds of memcpy's time / the function's time in the same round\n",
	       reps, ms, ms);
	printf("tokens/cycle: INT32 tokens (input bytes / 4) per %s; default kernel: %s\n\n",
	       ticks_name(), xio_narrow_ops()->name);
	printf("%6s  %-16s %9s %9s %13s %10s\n", "bytes", "function", "ns/call", "GB/s", "tokens/cycle",
	       "x memcpy");
	if (csv != NULL)
		fprintf(csv, "bytes,function,ns_per_call,gb_per_s,tokens_per_cycle,speed_vs_memcpy\n");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t bytes = sizes[s];
		struct job mj = { K_MEMCPY, NULL, dst, src, bytes };
		struct job jobs[2 * 8 + 2];
		size_t nj = 0, k;

		jobs[nj++] = mj;
		jobs[nj++] = (struct job){ K_CRC32C, NULL, dst, src, bytes };
		for (i = 0; all[i] != NULL && nj + 2 <= sizeof(jobs) / sizeof(jobs[0]); i++) {
			if (!xio_narrow_supported(all[i]))
				continue;
			jobs[nj++] = (struct job){ K_CHECKED, all[i], dst, src, bytes };
			jobs[nj++] = (struct job){ K_SATURATE, all[i], dst, src, bytes };
		}
		for (k = 0; k < nj; k++) {
			double vs;
			struct result r = measure(&mj, &jobs[k], ms, (int)reps, &vs);
			char name[40];

			if (jobs[k].kind == K_MEMCPY || jobs[k].kind == K_CRC32C)
				snprintf(name, sizeof(name), "%s", jobs[k].kind == K_MEMCPY ? "memcpy" : "crc32c");
			else
				snprintf(name, sizeof(name), "%s %s", jobs[k].ops->name,
					 jobs[k].kind == K_CHECKED ? "checked" : "saturate");
			printf("%6zu  %-16s %9.1f %9.2f %13.3f %10.2f\n", bytes, name, r.ns, (double)bytes / r.ns,
			       (double)(bytes / 4) / r.ticks, vs);
			if (csv != NULL)
				fprintf(csv, "%zu,%s,%.3f,%.4f,%.5f,%.4f\n", bytes, name, r.ns,
					(double)bytes / r.ns, (double)(bytes / 4) / r.ticks, vs);
		}
		printf("\n");
	}
	if (csv != NULL && fclose(csv) != 0) {
		fprintf(stderr, "bench_kernels: --csv %s: %s\n", csv_path, strerror(errno));
		return 1;
	}
	if (csv != NULL)
		printf("CSV written to %s\n", csv_path);
	return 0;
}
