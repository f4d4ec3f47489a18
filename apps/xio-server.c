/* SPDX-License-Identifier: BSD-3-Clause
 * xio-server: the storage end of the XIO read protocol
 * (docs/server.md). Answers STAT_REQUEST and READ_REQUEST with the files
 * of one directory, over UDP, to the networks it is told to serve. Exit
 * status: 0, 1 when the run fails, 2 for a bad command line.
 */
#include "xio_cli.h"
#include "xio_srv.h"

int main(int argc, char **argv)
{
	struct xio_srv_config cfg;
	struct xio_srv *srv;
	int rc;

	xio_cli_init(argv[0]);
	rc = xio_srv_config_parse(argc, argv, &cfg);
	if (rc != XIO_CLI_RUN)
		return xio_cli_exit_code(rc);
	srv = xio_srv_open(&cfg);
	if (!srv)
		return XIO_EXIT_FAIL;
	xio_srv_announce(srv, stderr);
	rc = xio_srv_serve(srv);
	return xio_srv_close(srv) != 0 || rc != 0 ? XIO_EXIT_FAIL : XIO_EXIT_OK;
}
