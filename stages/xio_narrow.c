/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow.c: the scalar reference kernels, xio_widen_inplace and the
 * run-time choice of a kernel: the best one this CPU runs (avx512 > avx2 >
 * sse41 > scalar on x86-64, neon on aarch64), unless XIO_KERNEL names one or
 * xio_narrow_select() forces one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_narrow_priv.h"

static size_t scalar_checked(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	return xio_narrow_checked_scalar(dst, src, n, sum);
}

static size_t scalar_saturate(uint8_t *dst, const uint8_t *src, size_t n)
{
	return xio_narrow_saturate_scalar(dst, src, n);
}

const struct xio_narrow_ops xio_narrow_scalar = {
	.name = "scalar",
	.narrow_checked = scalar_checked,
	.narrow_saturate = scalar_saturate,
};

/* Best first: the default is the first one the CPU supports. */
static const struct xio_narrow_ops *const xio_narrow_list[] = {
#if defined(__x86_64__)
	&xio_narrow_avx512,
	&xio_narrow_avx2,
	&xio_narrow_sse41,
#endif
#if defined(__aarch64__)
	&xio_narrow_neon,
#endif
	&xio_narrow_scalar,
	NULL,
};

static const struct xio_narrow_ops *xio_narrow_cur;

const struct xio_narrow_ops *const *xio_narrow_all(void)
{
	return xio_narrow_list;
}

int xio_narrow_supported(const struct xio_narrow_ops *ops)
{
	if (ops == &xio_narrow_scalar)
		return 1;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (ops == &xio_narrow_sse41)
		return __builtin_cpu_supports("sse4.1");
	if (ops == &xio_narrow_avx2)
		return __builtin_cpu_supports("avx2");
	if (ops == &xio_narrow_avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl");
#endif
#if defined(__aarch64__)
	if (ops == &xio_narrow_neon)
		return 1; /* Advanced SIMD is part of every ARMv8-A core */
#endif
	return 0;
}

static const struct xio_narrow_ops *find(const char *name)
{
	const struct xio_narrow_ops *const *p;

	for (p = xio_narrow_list; *p != NULL; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

static const struct xio_narrow_ops *best(void)
{
	const struct xio_narrow_ops *const *p;

	for (p = xio_narrow_list; !xio_narrow_supported(*p); p++)
		;
	return *p; /* scalar at the latest */
}

/* The first choice: XIO_KERNEL when it names a kernel this CPU runs. */
static const struct xio_narrow_ops *pick(void)
{
	const char *want = getenv("XIO_KERNEL");
	const struct xio_narrow_ops *const *p;
	const struct xio_narrow_ops *ops;

	if (want == NULL || *want == '\0')
		return best();
	ops = find(want);
	if (ops != NULL && xio_narrow_supported(ops))
		return ops;
	if (ops == NULL) {
		fprintf(stderr, "xio: XIO_KERNEL=%s is not a narrowing kernel of this build (one of:", want);
		for (p = xio_narrow_list; *p != NULL; p++)
			fprintf(stderr, " %s", (*p)->name);
		fprintf(stderr, "); using %s\n", best()->name);
	} else {
		fprintf(stderr, "xio: XIO_KERNEL=%s: this CPU cannot run that kernel; using %s\n", want,
			best()->name);
	}
	return best();
}

const struct xio_narrow_ops *xio_narrow_ops(void)
{
	const struct xio_narrow_ops *ops = __atomic_load_n(&xio_narrow_cur, __ATOMIC_ACQUIRE);

	if (ops == NULL) {
		ops = pick();
		__atomic_store_n(&xio_narrow_cur, ops, __ATOMIC_RELEASE);
	}
	return ops;
}

int xio_narrow_select(const char *name)
{
	const struct xio_narrow_ops *ops = name != NULL ? find(name) : NULL;

	if (ops == NULL || !xio_narrow_supported(ops))
		return -1;
	__atomic_store_n(&xio_narrow_cur, ops, __ATOMIC_RELEASE);
	return 0;
}

/* Backwards: token i's output (4i..4i+3) lies at or past the input of every
 * token not yet widened (2j, 2j+1 for j < i). */
void xio_widen_inplace(uint8_t *buf, size_t n)
{
	while (n-- > 0) {
		uint16_t v;
		uint32_t t;

		memcpy(&v, buf + 2 * n, sizeof(v));
		t = v;
		memcpy(buf + 4 * n, &t, sizeof(t));
	}
}
