/* SPDX-License-Identifier: BSD-3-Clause
 * xio_unit.c: the shared main, assertions, PRNG and vectors path of the
 * CUnit programs in tests/unit/ (see xio_unit.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "xio_narrow.h"
#include "xio_stage.h"
#include "xio_unit.h"

#define XIO_UNIT_DEFAULT_SEED 0x9E3779B97F4A7C15ull

static uint64_t seed, state;

static void seed_init(void)
{
	const char *s = getenv("XIO_TEST_SEED");

	seed = s != NULL && *s != '\0' ? strtoull(s, NULL, 0) : XIO_UNIT_DEFAULT_SEED;
	state = seed != 0 ? seed : XIO_UNIT_DEFAULT_SEED;
}

uint64_t xio_unit_seed(void)
{
	return seed;
}

uint64_t xio_unit_rand(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545F4914F6CDD1Dull;
}

const char *xio_unit_vectors(void)
{
	const char *v = getenv("XIO_VECTORS");

	return v != NULL && *v != '\0' ? v : "../shared/vectors";
}

bool xio_unit_check(bool ok, unsigned line, const char *file, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (ok) {
		CU_assertImplementation(CU_TRUE, line, "", file, "", CU_FALSE);
		return true;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	CU_assertImplementation(CU_FALSE, line, msg, file, "", CU_FALSE);
	return false;
}

bool xio_unit_check_bytes(const void *got, const void *want, size_t n, unsigned line,
			  const char *file, const char *what)
{
	const uint8_t *g = got, *w = want;
	size_t i;

	for (i = 0; i < n && g[i] == w[i]; i++)
		;
	if (i == n)
		return xio_unit_check(true, line, file, "%s", what);
	return xio_unit_check(false, line, file, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
			      i, n, g[i], w[i]);
}

static int add_tests(CU_pSuite s, const struct xio_unit_test *tests, int argc, char **argv)
{
	const struct xio_unit_test *t;
	int i, want;

	for (t = tests; t->name != NULL; t++) {
		for (want = argc <= 1, i = 1; i < argc && !want; i++)
			want = strcmp(argv[i], t->name) == 0;
		if (want && CU_add_test(s, t->name, t->fn) == NULL)
			return -1;
	}
	return 0;
}

int xio_unit_main(int argc, char **argv, const char *suite, const struct xio_unit_test *tests,
		  CU_InitializeFunc init, CU_CleanupFunc clean)
{
	unsigned run, failed;
	CU_pSuite s;

	if (argc == 2 && strcmp(argv[1], "--kernel") == 0) {
		printf("%s\n", xio_narrow_ops()->name);
		return 0;
	}
	seed_init();
	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "%s: CUnit: %s\n", suite, CU_get_error_msg());
		return 2;
	}
	s = CU_add_suite(suite, init, clean);
	if (s == NULL || add_tests(s, tests, argc, argv) != 0) {
		fprintf(stderr, "%s: CUnit: %s\n", suite, CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	printf("%s: seed %#llx (XIO_TEST_SEED), vectors %s\n", suite,
	       (unsigned long long)xio_unit_seed(), xio_unit_vectors());
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "%s: CUnit: %s\n", suite, CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	run = CU_get_number_of_tests_run();
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_suites_failed();
	failed += CU_get_number_of_failures() > 0 && failed == 0;
	printf("%s: narrowing kernel in use: %s\n", suite, xio_narrow_ops()->name);
	CU_cleanup_registry();
	if (run == 0) {
		fprintf(stderr, "%s: no test ran\n", suite);
		return 1;
	}
	return failed > 0 ? 1 : 0;
}

void xio_unit_vector_cfg(const char *name, struct xio_stage_cfg *cfg)
{
	const char *port = strstr(name, "-port");
	size_t n = strlen(name);

	xio_stage_cfg_default(cfg);
	if (port)
		cfg->udp_port = (uint16_t)atoi(port + 5);
#define ENDS(suffix) (n > strlen(suffix) && strcmp(name + n - strlen(suffix), suffix) == 0)
	if (ENDS("-drop-invalid"))
		cfg->drop_invalid = true;
	else if (ENDS("-saturate"))
		cfg->overflow = XIO_OVERFLOW_SATURATE;
	else if (ENDS("-drop"))
		cfg->overflow = XIO_OVERFLOW_DROP;
#undef ENDS
}
