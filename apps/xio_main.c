/* SPDX-License-Identifier: BSD-3-Clause
 * xio_main.c: the exiting helpers of the mains (xio_main.h).
 */
#include <stdarg.h>
#include <stdlib.h>

#include "xio_main.h"

uint64_t xio_main_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (xio_cli_num(opt, s, min, max, &v) < 0)
		exit(XIO_EXIT_USAGE);
	return v;
}

double xio_main_real(const char *opt, const char *s, double min, double max)
{
	double v;

	if (xio_cli_real(opt, s, min, max, &v) < 0)
		exit(XIO_EXIT_USAGE);
	return v;
}

void xio_main_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xio_cli_vusage(fmt, ap);
	va_end(ap);
	exit(XIO_EXIT_USAGE);
}

void xio_main_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xio_cli_verror(fmt, ap);
	va_end(ap);
	exit(XIO_EXIT_FAIL);
}

void xio_main_version(void)
{
	xio_cli_version();
	exit(XIO_EXIT_OK);
}
