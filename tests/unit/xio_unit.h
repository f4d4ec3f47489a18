/* SPDX-License-Identifier: BSD-3-Clause
 * xio_unit.h: what every CUnit program of tests/unit/ shares: a main that
 * runs one suite in CUnit's basic mode and exits non-zero on any failure,
 * assertions with a formatted message, a seeded PRNG, and where the
 * conformance vectors are (XIO_VECTORS).
 *
 * A test program is tests/unit/test_NAME.c with
 *
 *	static const struct xio_unit_test tests[] = {
 *		XIO_UNIT_TEST(test_a), XIO_UNIT_TEST(test_b), { NULL, NULL } };
 *	int main(int argc, char **argv)
 *	{ return xio_unit_main(argc, argv, "NAME", tests, NULL, NULL); }
 *
 * Options of every program: TEST_NAME... runs only those tests; --kernel
 * prints the narrowing kernel the stage core would use and exits.
 */
#ifndef XIO_UNIT_H
#define XIO_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

struct xio_unit_test {
	const char *name;
	CU_TestFunc fn;
};

#define XIO_UNIT_TEST(fn) { #fn, fn }

/* Runs the suite (tests ends with { NULL, NULL }); init and clean may be
 * NULL. Returns the process exit status: 0 only when every test ran and
 * passed. */
int xio_unit_main(int argc, char **argv, const char *suite, const struct xio_unit_test *tests,
		  CU_InitializeFunc init, CU_CleanupFunc clean);

/* Records a CUnit assertion; on failure its message is formatted like
 * printf. Returns ok, so loops can stop at the first failure:
 *	if (!XIO_CHECK(got == want, "n=%zu: got %zu", n, got)) return; */
bool xio_unit_check(bool ok, unsigned line, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define XIO_CHECK(ok, ...) xio_unit_check((ok), __LINE__, __FILE__, __VA_ARGS__)

/* Compares n bytes; on a difference records where the first one is. */
bool xio_unit_check_bytes(const void *got, const void *want, size_t n, unsigned line,
			  const char *file, const char *what);
#define XIO_CHECK_BYTES(got, want, n, what) \
	xio_unit_check_bytes((got), (want), (n), __LINE__, __FILE__, (what))

/* Deterministic PRNG (xorshift64*), seeded from XIO_TEST_SEED or a fixed
 * default; xio_unit_seed() tells which, for reproducing a failure. */
uint64_t xio_unit_rand(void);
uint64_t xio_unit_seed(void);

/* The conformance vectors folder: $XIO_VECTORS, else ../shared/vectors. */
const char *xio_unit_vectors(void);

struct xio_stage_cfg;
/* The options a vector folder was made with, from its name as
 * ../shared/vectors/README.md lays them out:
 *	<set>[-port<P>][-keep|-saturate|-drop|-drop-invalid]
 * no policy suffix meaning keep, port 7910 unless named (tests/vector-args.sh
 * does the same for the command line). */
void xio_unit_vector_cfg(const char *name, struct xio_stage_cfg *cfg);

#endif /* XIO_UNIT_H */
