/* SPDX-License-Identifier: BSD-3-Clause
 * xio_error.c: error codes, their names and the one-line messages every
 * failing call leaves in struct xio_error; the monotonic clock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "xio_priv.h"

static const char *const code_names[] = {
	[XIO_OK] = "ok",           [XIO_EARG] = "bad_argument", [XIO_ESYS] = "system",
	[XIO_EADDR] = "address",   [XIO_ETIMEOUT] = "timeout",  [XIO_ESERVER] = "server",
	[XIO_ERANGE] = "range",    [XIO_ETOKEN] = "token",      [XIO_EPROTO] = "protocol",
	[XIO_EFORMAT] = "format",  [XIO_ECANCELED] = "canceled", [XIO_EREPLICA] = "replica",
};

const char *xio_code_name(int code)
{
	if (code < 0)
		code = -code;
	if ((size_t)code < sizeof(code_names) / sizeof(code_names[0]) && code_names[code])
		return code_names[code];
	return "unknown";
}

int xio_fail(struct xio_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		err->server_code = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

uint64_t xio_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
