/* SPDX-License-Identifier: BSD-3-Clause
 * xio_cli.h: the command-line helpers of every program: its name for
 * messages, usage errors (one line naming the option, the value and what
 * was expected), checked number, name and address parsing, --version from
 * the Makefile's XIO_VERSION, and the exit codes. The helpers print one
 * line on stderr and return -1; only a program's main exits, with
 * XIO_EXIT_USAGE for a bad command line and XIO_EXIT_FAIL for a run that
 * failed.
 */
#ifndef XIO_CLI_H
#define XIO_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>

#define XIO_EXIT_OK    0
#define XIO_EXIT_FAIL  1
#define XIO_EXIT_USAGE 2

/* What a command-line parser returns: run, or exit 0 (--help, --version
 * printed), or exit XIO_EXIT_USAGE (the line is printed), or exit
 * XIO_EXIT_FAIL (a run-time failure while checking, printed). */
enum xio_cli_rc { XIO_CLI_RUN = 0, XIO_CLI_DONE = 1, XIO_CLI_USAGE = -1, XIO_CLI_FAIL = -2 };

/* The exit status of a parser's result (XIO_CLI_RUN: none, 0). */
int xio_cli_exit_code(int rc);

/* Names the program (basename of argv0) for messages. */
void xio_cli_init(const char *argv0);
const char *xio_cli_prog(void);

/* "PROG: MESSAGE (try --help)" on stderr; returns XIO_CLI_USAGE. */
int xio_cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "PROG: MESSAGE" on stderr; returns XIO_CLI_FAIL. */
int xio_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same with a va_list. */
int xio_cli_vusage(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int xio_cli_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The unsigned decimal number in s within min..max into *out;
 * else a usage error "--opt 's': expected a number in min..max". */
int xio_cli_num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A finite decimal number in s within min..max, else a usage error. */
int xio_cli_real(const char *opt, const char *s, double min, double max, double *out);

/* The index of s in names (NULL-terminated); else a usage error "--opt
 * 's': expected a|b|c". */
int xio_cli_enum(const char *opt, const char *s, const char *const *names);

/* A file written at exit must be writable now: its directory takes a new
 * file, and the path is not a directory or a read-only file. 0, else a
 * usage error "--opt 'path': cannot write ...". */
int xio_cli_writable(const char *opt, const char *path);

/* ADDR:PORT of a listening socket: a numeric IPv4 address, or an IPv6 one
 * in brackets ([::1]:9100); port 1..65535. Else a usage error. */
int xio_cli_listen_addr(const char *opt, const char *s, struct sockaddr_storage *ss,
			socklen_t *len);

/* Prints "PROG VERSION" on stdout; returns XIO_CLI_DONE. */
int xio_cli_version(void);

#endif /* XIO_CLI_H */
