/* SPDX-License-Identifier: BSD-3-Clause
 * xio_cli.h: what every command-line program of apps/ shares: its name for
 * messages, a usage error (one line naming the problem, a fixed exit code),
 * checked number parsing, and --version from the Makefile's XIO_VERSION.
 */
#ifndef XIO_CLI_H
#define XIO_CLI_H

#include <stdint.h>

/* Names the program (basename of argv0) and the exit code of usage errors. */
void xio_cli_init(const char *argv0, int usage_exit);

/* The name given to xio_cli_init(), for messages. */
const char *xio_cli_prog(void);

/* Prints "PROG: MESSAGE (try --help)" on stderr and exits with the usage
 * exit code. */
void xio_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Prints "PROG: MESSAGE" on stderr and exits 1: a run-time failure. */
void xio_cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The unsigned number in s (decimal, or 0x hex), within min..max; otherwise
 * a usage error naming --opt, the value and the range. */
uint64_t xio_cli_num(const char *opt, const char *s, uint64_t min, uint64_t max);

/* A finite decimal number in s within min..max, else a usage error. */
double xio_cli_real(const char *opt, const char *s, double min, double max);

/* Prints "PROG VERSION" on stdout and exits 0. */
void xio_cli_version(void) __attribute__((noreturn));

#endif /* XIO_CLI_H */
