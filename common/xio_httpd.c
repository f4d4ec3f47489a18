/* SPDX-License-Identifier: BSD-3-Clause
 * xio_httpd.c: GET /metrics on libmicrohttpd (xio_httpd.h). One internal
 * polling thread; each request builds the text into a buffer of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "xio_httpd.h"

#define XIO_PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct xio_httpd {
	struct MHD_Daemon *d;
	xio_httpd_fill fill;
	void *arg;
};

static enum MHD_Result xio_httpd_reply(struct MHD_Connection *c, unsigned status,
				       const char *type, const char *body, size_t len)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result xio_httpd_request(void *cls, struct MHD_Connection *c, const char *url,
					 const char *method, const char *version,
					 const char *upload, size_t *upload_len, void **state)
{
	static const char not_found[] = "only GET /metrics is served here\n";
	struct xio_httpd *h = cls;
	struct xio_buf b = XIO_BUF_INIT;
	enum MHD_Result rc;

	(void)version;
	(void)upload;
	if (*state == NULL) { /* the headers: answer once they are all in */
		*state = h;
		return MHD_YES;
	}
	if (*upload_len != 0) {
		*upload_len = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return xio_httpd_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_found,
				       sizeof(not_found) - 1);
	if (strcmp(url, "/metrics") != 0)
		return xio_httpd_reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
				       sizeof(not_found) - 1);
	if (h->fill(h->arg, &b) < 0 || xio_buf_failed(&b)) {
		xio_buf_free(&b);
		return xio_httpd_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
				       "no counters yet\n", 16);
	}
	rc = xio_httpd_reply(c, MHD_HTTP_OK, XIO_PROM_TYPE, xio_buf_str(&b), b.len);
	xio_buf_free(&b);
	return rc;
}

struct xio_httpd *xio_httpd_start(const struct sockaddr_storage *addr, socklen_t len,
				  xio_httpd_fill fill, void *arg, char *why, size_t why_len)
{
	struct xio_httpd *h = calloc(1, sizeof(*h));
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	(void)len;
	if (!h) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	h->fill = fill;
	h->arg = arg;
	if (addr->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, xio_httpd_request, h, MHD_OPTION_SOCK_ADDR,
				(const struct sockaddr *)addr, MHD_OPTION_CONNECTION_LIMIT, 16u,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!h->d) {
		snprintf(why, why_len, "cannot listen there: %s",
			 errno ? strerror(errno) : "libmicrohttpd refused (is the port in use?)");
		free(h);
		return NULL;
	}
	return h;
}

void xio_httpd_stop(struct xio_httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
