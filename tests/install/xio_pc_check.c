/* SPDX-License-Identifier: BSD-3-Clause
 * xio_pc_check: a program of a libxio user, built by tests/install/
 * test_install.sh against the installed headers and library through
 * `pkg-config --cflags --libs xio`, run against the installed libxio.so.
 * It calls what needs no server: code names, options, sharding, and a
 * client opened and closed (nothing is sent before a request).
 */
#include <stdio.h>
#include <string.h>

#include <xio.h>

int main(void)
{
	struct xio_client *c = NULL;
	struct xio_error err;
	struct xio_opts o;
	uint64_t next = 100, f, n;

	xio_opts_init(&o);
	if (strcmp(xio_code_name(XIO_ETIMEOUT), "timeout") != 0 || o.window == 0) {
		fprintf(stderr, "xio_pc_check: libxio answers oddly\n");
		return 1;
	}
	for (uint32_t rank = 0; rank < 3; rank++) {
		if (xio_shard(100, 10, rank, 3, &f, &n) != 0 || f != next) {
			fprintf(stderr, "xio_pc_check: shard %u of 3 does not follow on\n", rank);
			return 1;
		}
		next = f + n;
	}
	if (next != 110 || xio_connect("127.0.0.1:7910", &o, &c, &err) != 0) {
		fprintf(stderr, "xio_pc_check: %s\n", next != 110 ? "shards do not cover" : err.msg);
		return 1;
	}
	xio_close(c);
	printf("libxio: linked and working\n");
	return 0;
}
