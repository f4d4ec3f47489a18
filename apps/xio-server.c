/* SPDX-License-Identifier: BSD-3-Clause
 * xio-server: the storage end of the XIO read protocol
 * (../shared/xio-read-v1.md, docs/server.md). Answers STAT_REQUEST and
 * READ_REQUEST with the files of one directory, over UDP, to the networks
 * it is told to serve.
 */
#include "xio_cli.h"
#include "xio_srv.h"

int main(int argc, char **argv)
{
	struct xio_srv_config cfg;
	struct xio_srv *srv;

	xio_cli_init(argv[0], 1);
	xio_srv_config_parse(argc, argv, &cfg);
	srv = xio_srv_open(&cfg);
	xio_srv_announce(srv, stderr);
	xio_srv_serve(srv);
	return xio_srv_close(srv);
}
