/* SPDX-License-Identifier: BSD-3-Clause
 * xio_main.h: for the mains of apps/ only: common/xio_cli.h's helpers that
 * end the program on a bad command line (exit 2, XIO_EXIT_USAGE) or a
 * failed run (exit 1, XIO_EXIT_FAIL). Library code never includes this.
 */
#ifndef XIO_MAIN_H
#define XIO_MAIN_H

#include <stdint.h>

#include "xio_cli.h"

/* The number in s within min..max, else the usage error and exit 2. */
uint64_t xio_main_num(const char *opt, const char *s, uint64_t min, uint64_t max);

/* A finite number in s within min..max, else the usage error and exit 2. */
double xio_main_real(const char *opt, const char *s, double min, double max);

/* "PROG: MESSAGE (try --help)", exit 2. */
void xio_main_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* "PROG: MESSAGE", exit 1. */
void xio_main_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* "PROG VERSION", exit 0. */
void xio_main_version(void) __attribute__((noreturn));

#endif /* XIO_MAIN_H */
