/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv.h: xio-server as a whole: from a checked configuration, the
 * shared pieces (allow list, --rate bucket) and one worker per --threads,
 * each on its own socket of the port; the main thread waits for SIGINT or
 * SIGTERM, --duration or --idle-exit, prints the --stats-interval line,
 * then stops the workers and writes the counters.
 */
#ifndef XIO_SRV_H
#define XIO_SRV_H

#include <stdio.h>

#include "xio_srv_config.h"

struct xio_srv;

/* Opens the sockets, allocates the workers and starts the --metrics
 * endpoint; on failure prints one line and returns NULL. Blocks SIGINT and
 * SIGTERM (the main thread takes them). */
struct xio_srv *xio_srv_open(struct xio_srv_config *cfg);

/* One line on out: what is served, where, to whom, how. */
void xio_srv_announce(const struct xio_srv *s, FILE *out);

/* Runs the workers until a signal, --duration or --idle-exit. 0, or -1
 * after one line when a worker cannot start. */
int xio_srv_serve(struct xio_srv *s);

/* The summary line, the stats JSON; frees everything. Returns the exit
 * status: 0, or 1 when the JSON could not be written. */
int xio_srv_close(struct xio_srv *s);

#endif /* XIO_SRV_H */
