/* SPDX-License-Identifier: BSD-3-Clause
 * xio_httpd.h: the --metrics endpoint: GET /metrics over HTTP, answered
 * with the Prometheus text that fill() writes, on libmicrohttpd's own
 * thread (never a data-path thread). fill() runs on that thread: it reads
 * counters as the stats line does (relaxed loads) and returns 0, or -1
 * for a 503 (nothing to report yet).
 */
#ifndef XIO_HTTPD_H
#define XIO_HTTPD_H

#include <stddef.h>
#include <sys/socket.h>

#include "xio_buf.h"

struct xio_httpd;

typedef int (*xio_httpd_fill)(void *arg, struct xio_buf *b);

/* Listens on addr (from xio_cli_listen_addr). NULL with why on failure. */
struct xio_httpd *xio_httpd_start(const struct sockaddr_storage *addr, socklen_t len,
				  xio_httpd_fill fill, void *arg, char *why, size_t why_len);

/* Stops the thread and closes the socket (NULL: nothing). */
void xio_httpd_stop(struct xio_httpd *h);

#endif /* XIO_HTTPD_H */
