/* SPDX-License-Identifier: BSD-3-Clause
 * xio_cli.c: shared command-line helpers of apps/ (xio_cli.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_cli.h"

#ifndef XIO_VERSION_STRING
#error "XIO_VERSION_STRING comes from the Makefile's XIO_VERSION"
#endif

static const char *cli_prog = "xio";
static int cli_usage_exit = 2;

void xio_cli_init(const char *argv0, int usage_exit)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	cli_prog = slash ? slash + 1 : (argv0 && *argv0 ? argv0 : cli_prog);
	cli_usage_exit = usage_exit;
}

const char *xio_cli_prog(void)
{
	return cli_prog;
}

void xio_cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try --help)\n");
	exit(cli_usage_exit);
}

void xio_cli_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

uint64_t xio_cli_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *s == '-' || *s == '+' || *end || errno || v < min || v > max)
		xio_cli_usage_error("--%s '%s': expected a number in %llu..%llu", opt, s,
				    (unsigned long long)min, (unsigned long long)max);
	return v;
}

double xio_cli_real(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < min || v > max)
		xio_cli_usage_error("--%s '%s': expected a number in %g..%g", opt, s, min, max);
	return v;
}

void xio_cli_version(void)
{
	printf("%s %s\n", cli_prog, XIO_VERSION_STRING);
	exit(0);
}
