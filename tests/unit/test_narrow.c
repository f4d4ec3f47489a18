/* SPDX-License-Identifier: BSD-3-Clause
 * test_narrow.c: every narrowing kernel built in and runnable on this CPU
 * (under qemu-aarch64: neon) against a model written from the spec and
 * against the scalar reference: sizes 0..300 and up to a 9000-byte payload,
 * unaligned source and destination, out of place, in place and with dst
 * before src, the edge values at every position of a block, both policies,
 * checked's token sum on every call, xio_widen_inplace, and the choice of a
 * kernel (XIO_KERNEL, xio_narrow_select). Every check compares whole buffers
 * byte for byte, guard bytes around the output included.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xio_narrow.h"
#include "xio_unit.h"

#define GUARD 64        /* bytes after the output that must stay as they were */
#define MAX_TOKENS 2250 /* a 9000-byte IP MTU's worth of INT32 tokens */

static const int32_t bad_values[] = {
	INT32_MIN, INT32_MIN + 1, -65536, -1, 65536, 65537, 131071, 0x7FFF0000, INT32_MAX,
};
static const int32_t in_range_edges[] = { 0, 1, 2, 255, 256, 32767, 32768, 65534, 65535 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The kernels this CPU runs, best first. */
static const struct xio_narrow_ops *kernels[16];
static unsigned nkernels;

/* ---- the model: the spec's narrowing, token by token ---- */

/* Returns the first out-of-range index (checked) or the clamp count
 * (saturate); writes the narrowed tokens little-endian to out. */
static size_t model(int saturate, uint8_t *out, const int32_t *tok, size_t n)
{
	size_t i, clamped = 0;

	for (i = 0; i < n; i++) {
		int64_t t = tok[i];

		if (t < 0 || t > 65535) {
			if (!saturate)
				return i;
			clamped++;
			t = t < 0 ? 0 : 65535;
		}
		out[2 * i] = (uint8_t)(t & 0xFF);
		out[2 * i + 1] = (uint8_t)(t >> 8);
	}
	return saturate ? clamped : n;
}

static void put32(uint8_t *p, int32_t t)
{
	uint32_t u = (uint32_t)t;

	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
	p[2] = (uint8_t)(u >> 16);
	p[3] = (uint8_t)(u >> 24);
}

static void fill_random(uint8_t *p, size_t n)
{
	while (n-- > 0)
		*p++ = (uint8_t)xio_unit_rand();
}

static int32_t rand_in_range(void)
{
	uint64_t r = xio_unit_rand();

	if (r % 8 == 0)
		return in_range_edges[(r >> 8) % NELEM(in_range_edges)];
	return (int32_t)((r >> 16) & 0xFFFF);
}

static int32_t rand_bad(void)
{
	uint64_t r = xio_unit_rand();
	int32_t t;

	if (r % 2 == 0)
		return bad_values[(r >> 8) % NELEM(bad_values)];
	do
		t = (int32_t)(uint32_t)(xio_unit_rand() >> 32);
	while (t >= 0 && t <= 65535);
	return t;
}

static void gen_in_range(int32_t *tok, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tok[i] = rand_in_range();
}

/* Each token out of range with probability 1/every. */
static void gen_mixed(int32_t *tok, size_t n, unsigned every)
{
	size_t i;

	for (i = 0; i < n; i++)
		tok[i] = xio_unit_rand() % every == 0 ? rand_bad() : rand_in_range();
}

/* ---- one kernel call, checked against the model ---- */

enum layout { OUT_OF_PLACE, IN_PLACE, DST_BEFORE_SRC };
static const char *const layout_name[] = { "out-of-place", "in-place", "dst-before-src" };

struct kcase {
	const struct xio_narrow_ops *ops;
	int saturate;
	enum layout layout;
	size_t soff; /* bytes before the input (misaligns it) */
	size_t doff; /* out of place: bytes before the output; dst before src: the gap */
};

/* checked adds to *sum: it starts at a value of its own here. */
#define SUM_START 0x123456789ull

static size_t call(const struct kcase *c, uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	*sum = SUM_START;
	return c->saturate ? c->ops->narrow_saturate(dst, src, n) :
			     c->ops->narrow_checked(dst, src, n, sum);
}

/* What checked must leave in *sum after narrowing tokens [0, k). */
static uint64_t want_sum(const int32_t *tok, size_t k)
{
	uint64_t s = SUM_START;
	size_t i;

	for (i = 0; i < k; i++)
		s += (uint32_t)tok[i];
	return s;
}

static bool check_sum(const struct kcase *c, const char *what, uint64_t got, const int32_t *tok,
		      size_t k)
{
	uint64_t want = c->saturate ? SUM_START : want_sum(tok, k);

	return XIO_CHECK(got == want, "%s: sum %#llx, expected %#llx", what, (unsigned long long)got,
			 (unsigned long long)want);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n > 0 ? n : 1);

	if (p == NULL) {
		perror("malloc");
		exit(2);
	}
	return p;
}

/* Out of place: the input buffer ends exactly at the last token (ASan sees
 * any read past it) and must not change; the output buffer must differ from
 * its random start only in the model's bytes. */
static bool run_out_of_place(const struct kcase *c, const char *what, const int32_t *tok, size_t n,
			     const uint8_t *want, size_t wlen, size_t wret)
{
	size_t ssz = c->soff + 4 * n, dsz = c->doff + 2 * n + GUARD, i, got;
	uint8_t *src = xmalloc(ssz), *orig = xmalloc(ssz), *dst = xmalloc(dsz), *exp = xmalloc(dsz);
	uint64_t sum;
	bool ok;

	fill_random(src, c->soff);
	for (i = 0; i < n; i++)
		put32(src + c->soff + 4 * i, tok[i]);
	memcpy(orig, src, ssz);
	fill_random(dst, dsz);
	memcpy(exp, dst, dsz);
	memcpy(exp + c->doff, want, wlen);
	got = call(c, dst + c->doff, src + c->soff, n, &sum);
	ok = XIO_CHECK(got == wret, "%s: returned %zu, expected %zu", what, got, wret) &&
	     check_sum(c, what, sum, tok, wret) && XIO_CHECK_BYTES(dst, exp, dsz, what) &&
	     XIO_CHECK_BYTES(src, orig, ssz, what);
	free(src);
	free(orig);
	free(dst);
	free(exp);
	return ok;
}

/* In place (dst == src) or dst gap bytes before src: one buffer, ending at
 * the last token, that must differ from its start only in the model's
 * bytes; in particular the input from the written prefix on is intact. */
static bool run_shared(const struct kcase *c, const char *what, const int32_t *tok, size_t n,
		       const uint8_t *want, size_t wlen, size_t wret)
{
	size_t gap = c->layout == IN_PLACE ? 0 : c->doff;
	size_t sz = c->soff + gap + 4 * n, i, got;
	uint8_t *buf = xmalloc(sz), *exp = xmalloc(sz);
	uint64_t sum;
	bool ok;

	fill_random(buf, c->soff + gap);
	for (i = 0; i < n; i++)
		put32(buf + c->soff + gap + 4 * i, tok[i]);
	memcpy(exp, buf, sz);
	memcpy(exp + c->soff, want, wlen);
	got = call(c, buf + c->soff, buf + c->soff + gap, n, &sum);
	ok = XIO_CHECK(got == wret, "%s: returned %zu, expected %zu", what, got, wret) &&
	     check_sum(c, what, sum, tok, wret) && XIO_CHECK_BYTES(buf, exp, sz, what);
	free(buf);
	free(exp);
	return ok;
}

static bool run(const struct kcase *c, const int32_t *tok, size_t n)
{
	uint8_t *want = xmalloc(2 * n);
	size_t wret = model(c->saturate, want, tok, n);
	size_t wlen = c->saturate ? 2 * n : 2 * wret;
	char what[160];
	bool ok;

	snprintf(what, sizeof(what), "%s %s %s n=%zu soff=%zu doff=%zu seed=%#llx", c->ops->name,
		 c->saturate ? "saturate" : "checked", layout_name[c->layout], n, c->soff, c->doff,
		 (unsigned long long)xio_unit_seed());
	if (c->layout == OUT_OF_PLACE)
		ok = run_out_of_place(c, what, tok, n, want, wlen, wret);
	else
		ok = run_shared(c, what, tok, n, want, wlen, wret);
	free(want);
	return ok;
}

/* Every kernel, every layout, offsets 0..3 on both sides (out of place) or
 * on the input (in place; dst before src by 1..4 bytes). */
static bool run_all_layouts(int saturate, const int32_t *tok, size_t n)
{
	unsigned k;
	size_t so, d;

	for (k = 0; k < nkernels; k++) {
		for (so = 0; so < 4; so++) {
			struct kcase inp = { kernels[k], saturate, IN_PLACE, so, 0 };

			if (!run(&inp, tok, n))
				return false;
			for (d = 0; d < 4; d++) {
				struct kcase oop = { kernels[k], saturate, OUT_OF_PLACE, so, d };
				struct kcase before = { kernels[k], saturate, DST_BEFORE_SRC, so, d + 1 };

				if (!run(&oop, tok, n) || !run(&before, tok, n))
					return false;
			}
		}
	}
	return true;
}

/* Fewer layouts, for the sweeps over positions and values. */
static bool run_some_layouts(int saturate, const int32_t *tok, size_t n)
{
	unsigned k;

	for (k = 0; k < nkernels; k++) {
		struct kcase cases[] = {
			{ kernels[k], saturate, OUT_OF_PLACE, 1, 3 },
			{ kernels[k], saturate, IN_PLACE, 2, 0 },
			{ kernels[k], saturate, DST_BEFORE_SRC, 0, 4 },
		};
		unsigned j;

		for (j = 0; j < NELEM(cases); j++)
			if (!run(&cases[j], tok, n))
				return false;
	}
	return true;
}

/* Sizes that cover every position of the widest kernel's blocks and their
 * edges (AVX-512 checked: a masked block below 64 tokens; 64..127: one
 * block of 64 and a masked one; from 128: blocks of 128, one of 64 and a
 * masked one; saturate: steps of 64, 32 and 16), and a 1500-byte MTU's
 * frame (364 tokens: 128 + 128 + 64 + 44). test_checked_sizes covers the
 * sizes that end at a block's edge up to 300. */
static const size_t sweep_sizes[] = { 1,  2,  3,  4,   5,   7,   8,   9,   15,  16,  17,  31,
				      32, 33, 47, 48,  63,  64,  65,  79,  80,  96,  127, 128,
				      129, 191, 192, 193, 255, 256, 257, 364 };

/* ---- tests ---- */

struct child_out {
	char out[256];
	char err[1024];
	int status;
};

static void read_all(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t r;

	while (len + 1 < cap && (r = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
}

/* A fresh process (fork before this process picks a kernel) with
 * XIO_KERNEL=value (unset when NULL): what it picks and what it says. */
static bool kernel_of_child(const char *value, struct child_out *co)
{
	int out[2], err[2];
	pid_t pid;

	if (pipe(out) != 0 || pipe(err) != 0)
		return false;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		if (value != NULL)
			setenv("XIO_KERNEL", value, 1);
		else
			unsetenv("XIO_KERNEL");
		dup2(out[1], 1);
		dup2(err[1], 2);
		printf("%s", xio_narrow_ops()->name);
		fflush(NULL);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	read_all(out[0], co->out, sizeof(co->out));
	read_all(err[0], co->err, sizeof(co->err));
	close(out[0]);
	close(err[0]);
	return waitpid(pid, &co->status, 0) == pid;
}

/* Must run first: the children inherit this process's choice once made. */
static void test_env_kernel(void)
{
	const struct xio_narrow_ops *const *all = xio_narrow_all();
	const char *best = kernels[0]->name;
	struct child_out co;
	unsigned i;

	CU_ASSERT_FATAL(kernel_of_child(NULL, &co));
	XIO_CHECK(WIFEXITED(co.status) && WEXITSTATUS(co.status) == 0, "child status %d", co.status);
	XIO_CHECK(strcmp(co.out, best) == 0, "default kernel %s, expected %s", co.out, best);
	XIO_CHECK(co.err[0] == '\0', "default choice printed: %s", co.err);

	for (i = 0; all[i] != NULL; i++) {
		CU_ASSERT_FATAL(kernel_of_child(all[i]->name, &co));
		if (xio_narrow_supported(all[i])) {
			XIO_CHECK(strcmp(co.out, all[i]->name) == 0, "XIO_KERNEL=%s gave %s",
				  all[i]->name, co.out);
			XIO_CHECK(co.err[0] == '\0', "XIO_KERNEL=%s printed: %s", all[i]->name, co.err);
		} else {
			XIO_CHECK(strcmp(co.out, best) == 0, "unsupported XIO_KERNEL=%s gave %s",
				  all[i]->name, co.out);
			XIO_CHECK(strstr(co.err, "cannot run") != NULL, "no message for %s: '%s'",
				  all[i]->name, co.err);
		}
	}
	CU_ASSERT_FATAL(kernel_of_child("bogus", &co));
	XIO_CHECK(strcmp(co.out, best) == 0, "XIO_KERNEL=bogus gave %s", co.out);
	XIO_CHECK(strstr(co.err, "XIO_KERNEL=bogus is not a narrowing kernel") != NULL &&
			  strstr(co.err, "scalar") != NULL,
		  "XIO_KERNEL=bogus printed '%s'", co.err);
	CU_ASSERT_FATAL(kernel_of_child("", &co));
	XIO_CHECK(strcmp(co.out, best) == 0 && co.err[0] == '\0', "XIO_KERNEL= gave %s / '%s'", co.out,
		  co.err);
}

static void test_kernel_list(void)
{
	const struct xio_narrow_ops *const *all = xio_narrow_all();
	static const struct xio_narrow_ops fake = { "fake", NULL, NULL };
	const struct xio_narrow_ops *cur;
	const char *want = getenv("XIO_KERNEL");
	unsigned j, nall;
	int has_scalar = 0;

	for (nall = 0; nall < 16 && all[nall] != NULL; nall++) {
		CU_ASSERT_PTR_NOT_NULL(all[nall]->name);
		CU_ASSERT_PTR_NOT_NULL(all[nall]->narrow_checked);
		CU_ASSERT_PTR_NOT_NULL(all[nall]->narrow_saturate);
		has_scalar |= all[nall] == &xio_narrow_scalar;
		for (j = 0; j < nall; j++)
			XIO_CHECK(strcmp(all[j]->name, all[nall]->name) != 0, "%s listed twice",
				  all[j]->name);
	}
	CU_ASSERT_FATAL(nall < 16);
	CU_ASSERT_FATAL(has_scalar);
	CU_ASSERT(all[nall - 1] == &xio_narrow_scalar); /* the last resort */
	CU_ASSERT(xio_narrow_supported(&xio_narrow_scalar));
	CU_ASSERT(!xio_narrow_supported(&fake));
#if defined(__x86_64__)
	CU_ASSERT_EQUAL(nall, 4);
	CU_ASSERT_STRING_EQUAL(all[0]->name, "avx512");
	CU_ASSERT_STRING_EQUAL(all[1]->name, "avx2");
	CU_ASSERT_STRING_EQUAL(all[2]->name, "sse41");
#elif defined(__aarch64__)
	CU_ASSERT_EQUAL(nall, 2);
	CU_ASSERT_STRING_EQUAL(all[0]->name, "neon");
	CU_ASSERT(xio_narrow_supported(all[0]));
#endif
	cur = xio_narrow_ops();
	CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
	CU_ASSERT(xio_narrow_supported(cur));
	CU_ASSERT(xio_narrow_ops() == cur); /* chosen once */
	if (want == NULL || *want == '\0')
		XIO_CHECK(cur == kernels[0], "default %s, best %s", cur->name, kernels[0]->name);
}

static void test_select(void)
{
	const struct xio_narrow_ops *const *all = xio_narrow_all();
	const struct xio_narrow_ops *before = xio_narrow_ops();
	unsigned i;

	for (i = 0; all[i] != NULL; i++) {
		int r = xio_narrow_select(all[i]->name);

		if (xio_narrow_supported(all[i])) {
			XIO_CHECK(r == 0, "select(%s) = %d", all[i]->name, r);
			XIO_CHECK(xio_narrow_ops() == all[i], "select(%s) gave %s", all[i]->name,
				  xio_narrow_ops()->name);
		} else {
			XIO_CHECK(r == -1, "select(unsupported %s) = %d", all[i]->name, r);
		}
	}
	CU_ASSERT_EQUAL(xio_narrow_select("scalar"), 0);
	CU_ASSERT_EQUAL(xio_narrow_select("bogus"), -1);
	CU_ASSERT_EQUAL(xio_narrow_select(""), -1);
	CU_ASSERT_EQUAL(xio_narrow_select("SCALAR"), -1);
#if defined(__x86_64__)
	CU_ASSERT_EQUAL(xio_narrow_select("neon"), -1); /* not built for x86 */
#else
	CU_ASSERT_EQUAL(xio_narrow_select("avx2"), -1);
#endif
	CU_ASSERT(xio_narrow_ops() == &xio_narrow_scalar); /* failures changed nothing */
	CU_ASSERT_EQUAL(xio_narrow_select(before->name), 0);
	CU_ASSERT(xio_narrow_ops() == before);
}

/* The spec's edge values, expected bytes written out by hand. */
static void test_spec_values(void)
{
	static const int32_t tok[] = { INT32_MIN, -1, 0, 1, 65535, 65536, INT32_MAX, 0x12345678 };
	static const uint8_t sat[] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
				       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	static const int32_t ok_tok[] = { 0, 1, 65535, 0x1234, 65536, 7 };
	static const uint8_t ok_out[] = { 0x00, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0x34, 0x12 };
	const uint64_t ok_sum = 0 + 1 + 65535 + 0x1234; /* the four narrowed */
	uint8_t src[sizeof(tok) * 4], dst[sizeof(sat) + GUARD], exp[sizeof(sat) + GUARD];
	unsigned k, i;

	for (k = 0; k < nkernels; k++) {
		const struct xio_narrow_ops *ops = kernels[k];
		size_t r;
		uint64_t sum;

		for (i = 0; i < NELEM(tok); i++)
			put32(src + 4 * i, tok[i]);
		memset(dst, 0xA5, sizeof(dst));
		memset(exp, 0xA5, sizeof(exp));
		memcpy(exp, sat, sizeof(sat));
		r = ops->narrow_saturate(dst, src, NELEM(tok));
		XIO_CHECK(r == 5, "%s: saturate clamped %zu, expected 5", ops->name, r);
		XIO_CHECK_BYTES(dst, exp, sizeof(dst), ops->name);

		memset(dst, 0xA5, sizeof(dst));
		sum = 7;
		r = ops->narrow_checked(dst, src, NELEM(tok), &sum);
		XIO_CHECK(r == 0, "%s: checked stopped at %zu, expected 0", ops->name, r);
		XIO_CHECK(sum == 7, "%s: nothing narrowed, sum moved to %llu", ops->name,
			  (unsigned long long)sum);
		CU_ASSERT_EQUAL(dst[0], 0xA5);

		for (i = 0; i < NELEM(ok_tok); i++)
			put32(src + 4 * i, ok_tok[i]);
		memset(dst, 0xA5, sizeof(dst));
		memset(exp, 0xA5, sizeof(exp));
		memcpy(exp, ok_out, sizeof(ok_out));
		sum = 0;
		r = ops->narrow_checked(dst, src, NELEM(ok_tok), &sum);
		XIO_CHECK(r == 4, "%s: checked stopped at %zu, expected 4", ops->name, r);
		XIO_CHECK(sum == ok_sum, "%s: sum %llu, expected %llu", ops->name,
			  (unsigned long long)sum, (unsigned long long)ok_sum);
		XIO_CHECK_BYTES(dst, exp, sizeof(dst), ops->name);
	}
}

/* In-range tokens, n = 0..300: all narrowed, checked returns n. */
static void test_checked_sizes(void)
{
	int32_t tok[301];
	size_t n;

	for (n = 0; n <= 300; n++) {
		gen_in_range(tok, n);
		if (!run_all_layouts(0, tok, n))
			return;
	}
}

/* One out-of-range value at every position (and a second one after it):
 * checked returns exactly the first, writes exactly the tokens before it. */
static void test_checked_first_bad_every_position(void)
{
	int32_t tok[400];
	size_t s, p, v;

	for (s = 0; s < NELEM(sweep_sizes); s++) {
		size_t n = sweep_sizes[s];

		for (p = 0; p < n; p++) {
			for (v = 0; v < NELEM(bad_values); v++) {
				gen_in_range(tok, n);
				tok[p] = bad_values[v];
				if (p + 1 < n && v % 2 == 1)
					tok[p + 1 + xio_unit_rand() % (n - p - 1)] = rand_bad();
				if (!run_some_layouts(0, tok, n))
					return;
			}
		}
	}
}

/* Random buffers, the first out-of-range token anywhere (or nowhere). */
static void test_checked_random(void)
{
	int32_t tok[301];
	size_t n;
	unsigned rep;

	for (n = 0; n <= 300; n++) {
		for (rep = 0; rep < 2; rep++) {
			gen_mixed(tok, n, (unsigned)(n + 2) * (rep + 1));
			if (!run_all_layouts(0, tok, n))
				return;
		}
	}
}

/* Mixed tokens, n = 0..300: clamped bytes and the clamp count exact. */
static void test_saturate_sizes(void)
{
	int32_t tok[301];
	size_t n;
	unsigned every;

	for (n = 0; n <= 300; n++) {
		for (every = 1; every <= 16; every *= 4) {
			gen_mixed(tok, n, every + 1);
			if (!run_all_layouts(1, tok, n))
				return;
		}
	}
}

/* One out-of-range value at every position: clamped there, count 1; then
 * the whole buffer out of range: count n. */
static void test_saturate_every_position(void)
{
	int32_t tok[400];
	size_t s, p, v;

	for (s = 0; s < NELEM(sweep_sizes); s++) {
		size_t n = sweep_sizes[s];

		for (p = 0; p < n; p++) {
			for (v = 0; v < NELEM(bad_values); v++) {
				gen_in_range(tok, n);
				tok[p] = bad_values[v];
				if (!run_some_layouts(1, tok, n))
					return;
			}
		}
		for (p = 0; p < n; p++)
			tok[p] = rand_bad();
		if (!run_some_layouts(1, tok, n))
			return;
	}
}

/* Jumbo payloads: up to 2250 tokens (9000 bytes), bad first, in the middle,
 * last, or nowhere; saturate on mixed tokens. */
static void test_large_sizes(void)
{
	static const size_t sizes[] = { 512, 1000, 1024, 2047, 2048, 2249, MAX_TOKENS };
	static int32_t tok[MAX_TOKENS];
	size_t s, n;

	for (s = 0; s < NELEM(sizes); s++) {
		n = sizes[s];
		gen_in_range(tok, n);
		if (!run_all_layouts(0, tok, n))
			return;
		tok[n - 1] = INT32_MAX;
		if (!run_all_layouts(0, tok, n))
			return;
		tok[n / 2 + s] = -1;
		if (!run_all_layouts(0, tok, n))
			return;
		tok[0] = 65536;
		if (!run_all_layouts(0, tok, n))
			return;
		gen_mixed(tok, n, 50);
		if (!run_all_layouts(1, tok, n))
			return;
	}
}

/* Each SIMD kernel returns and writes exactly what the scalar reference
 * does, on random sizes, offsets and tokens. */
static void test_kernels_vs_scalar(void)
{
	static int32_t tok[MAX_TOKENS];
	static uint8_t src[4 * MAX_TOKENS + 4], ref[2 * MAX_TOKENS + 4 + GUARD], out[sizeof(ref)];
	unsigned rep, k;
	int sat;

	for (rep = 0; rep < 300; rep++) {
		size_t n = xio_unit_rand() % (MAX_TOKENS + 1), so = xio_unit_rand() % 4;
		size_t d = xio_unit_rand() % 4, i, r_ref, r;
		uint64_t sum_ref, sum, sum_tok = 0;

		gen_mixed(tok, n, 1 + (unsigned)(xio_unit_rand() % (2 * n + 2)));
		for (i = 0; i < n; i++)
			put32(src + so + 4 * i, tok[i]);
		for (sat = 0; sat < 2; sat++) {
			memset(ref, 0x5A, sizeof(ref));
			sum_ref = 0;
			r_ref = sat ? xio_narrow_scalar.narrow_saturate(ref + d, src + so, n) :
				      xio_narrow_scalar.narrow_checked(ref + d, src + so, n, &sum_ref);
			if (!sat) {
				for (i = 0; i < r_ref; i++)
					sum_tok += (uint32_t)tok[i];
				if (!XIO_CHECK(sum_ref == sum_tok, "scalar n=%zu: sum %llu, tokens %llu",
					       n, (unsigned long long)sum_ref,
					       (unsigned long long)sum_tok))
					return;
			}
			for (k = 0; k < nkernels; k++) {
				memset(out, 0x5A, sizeof(out));
				sum = 0;
				r = sat ? kernels[k]->narrow_saturate(out + d, src + so, n) :
					  kernels[k]->narrow_checked(out + d, src + so, n, &sum);
				if (!XIO_CHECK(r == r_ref, "%s %s n=%zu: %zu, scalar %zu", kernels[k]->name,
					       sat ? "saturate" : "checked", n, r, r_ref) ||
				    !XIO_CHECK(sat || sum == sum_ref, "%s n=%zu: sum %llu, scalar %llu",
					       kernels[k]->name, n, (unsigned long long)sum,
					       (unsigned long long)sum_ref) ||
				    !XIO_CHECK_BYTES(out, ref, sizeof(out), kernels[k]->name))
					return;
			}
		}
	}
}

/* xio_widen_inplace on hand-written values, guard bytes untouched. */
static void test_widen_values(void)
{
	static const uint8_t narrow[] = { 0x00, 0x00, 0x01, 0x00, 0x34, 0x12, 0xFF, 0xFF };
	static const uint8_t wide[] = { 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
					0x34, 0x12, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00 };
	uint8_t buf[sizeof(wide) + 8], exp[sizeof(buf)];

	memset(buf, 0xC3, sizeof(buf));
	memcpy(buf, narrow, sizeof(narrow));
	memcpy(exp, buf, sizeof(buf));
	xio_widen_inplace(buf, 0);
	XIO_CHECK_BYTES(buf, exp, sizeof(buf), "widen n=0");
	memset(exp, 0xC3, sizeof(exp));
	memcpy(exp, wide, sizeof(wide));
	xio_widen_inplace(buf, 4);
	XIO_CHECK_BYTES(buf, exp, sizeof(buf), "widen n=4");
}

/* Narrowed in place by each kernel then widened: the buffer is back, byte
 * for byte (in-range tokens). */
static void test_widen_roundtrip(void)
{
	static int32_t tok[MAX_TOKENS];
	static uint8_t buf[4 * MAX_TOKENS + 4], orig[sizeof(buf)];
	unsigned k;
	size_t n, so, i, r;

	for (n = 0; n <= MAX_TOKENS; n += n < 300 ? 1 : 647) {
		so = n % 4;
		gen_in_range(tok, n);
		fill_random(buf, sizeof(buf));
		for (i = 0; i < n; i++)
			put32(buf + so + 4 * i, tok[i]);
		memcpy(orig, buf, sizeof(buf));
		for (k = 0; k < nkernels; k++) {
			uint64_t sum = 0;

			r = kernels[k]->narrow_checked(buf + so, buf + so, n, &sum);
			xio_widen_inplace(buf + so, r);
			if (!XIO_CHECK(r == n, "%s n=%zu: %zu", kernels[k]->name, n, r) ||
			    !XIO_CHECK_BYTES(buf, orig, sizeof(buf), kernels[k]->name))
				return;
		}
	}
}

/* The keep policy's promise: checked in place stops at an out-of-range
 * token, widening the prefix restores the input exactly. */
static void test_keep_restores(void)
{
	static int32_t tok[MAX_TOKENS];
	static uint8_t buf[4 * MAX_TOKENS + 4], orig[sizeof(buf)];
	unsigned k, rep;
	size_t n, p, so, i, r;

	for (rep = 0; rep < 600; rep++) {
		n = rep < 500 ? 1 + rep % 300 : 1 + xio_unit_rand() % MAX_TOKENS;
		p = xio_unit_rand() % n;
		so = xio_unit_rand() % 4;
		gen_in_range(tok, n);
		tok[p] = rand_bad();
		fill_random(buf, sizeof(buf));
		for (i = 0; i < n; i++)
			put32(buf + so + 4 * i, tok[i]);
		memcpy(orig, buf, sizeof(buf));
		for (k = 0; k < nkernels; k++) {
			uint64_t sum = 0;

			r = kernels[k]->narrow_checked(buf + so, buf + so, n, &sum);
			xio_widen_inplace(buf + so, r);
			if (!XIO_CHECK(r == p, "%s n=%zu bad at %zu: %zu", kernels[k]->name, n, p, r) ||
			    !XIO_CHECK_BYTES(buf, orig, sizeof(buf), kernels[k]->name))
				return;
		}
	}
}

static int suite_init(void)
{
	const struct xio_narrow_ops *const *p;
	unsigned k;

	for (p = xio_narrow_all(); *p != NULL && nkernels < NELEM(kernels); p++) {
		if (xio_narrow_supported(*p))
			kernels[nkernels++] = *p;
		else
			printf("narrow: kernel %s is built in but this CPU cannot run it: not tested\n",
			       (*p)->name);
	}
	printf("narrow: testing kernels:");
	for (k = 0; k < nkernels; k++)
		printf(" %s", kernels[k]->name);
	printf("\n");
	return nkernels > 0 ? 0 : 1;
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_env_kernel), /* first: before this process picks a kernel */
	XIO_UNIT_TEST(test_kernel_list),
	XIO_UNIT_TEST(test_select),
	XIO_UNIT_TEST(test_spec_values),
	XIO_UNIT_TEST(test_checked_sizes),
	XIO_UNIT_TEST(test_checked_first_bad_every_position),
	XIO_UNIT_TEST(test_checked_random),
	XIO_UNIT_TEST(test_saturate_sizes),
	XIO_UNIT_TEST(test_saturate_every_position),
	XIO_UNIT_TEST(test_large_sizes),
	XIO_UNIT_TEST(test_kernels_vs_scalar),
	XIO_UNIT_TEST(test_widen_values),
	XIO_UNIT_TEST(test_widen_roundtrip),
	XIO_UNIT_TEST(test_keep_restores),
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "narrow", tests, suite_init, NULL);
}
