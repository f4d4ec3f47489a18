/* SPDX-License-Identifier: BSD-3-Clause
 * xio_wire.c: names of the reasons and out-of-range policies, as the spec
 * and the stats JSON spell them.
 */
#include <string.h>

#include "xio_wire.h"

static const char *const reason_names[XIO_R_COUNT] = {
	[XIO_R_NARROWED] = "narrowed",
	[XIO_R_NOT_IP] = "not_ip",
	[XIO_R_NOT_UDP] = "not_udp",
	[XIO_R_IP_FRAGMENT] = "ip_fragment",
	[XIO_R_TRUNCATED] = "truncated",
	[XIO_R_OTHER_PORT] = "other_port",
	[XIO_R_BAD_LENGTH] = "bad_length",
	[XIO_R_BAD_IP_CSUM] = "bad_ip_csum",
	[XIO_R_BAD_UDP_CSUM] = "bad_udp_csum",
	[XIO_R_BAD_HEADER] = "bad_header",
	[XIO_R_UNSUPPORTED] = "unsupported",
	[XIO_R_NOT_REPLY] = "not_reply",
	[XIO_R_ALREADY_NARROW] = "already_narrow",
	[XIO_R_BAD_CRC] = "bad_crc",
	[XIO_R_OUT_OF_RANGE] = "out_of_range",
};

static const char *const overflow_names[] = {
	[XIO_OVERFLOW_KEEP] = "keep",
	[XIO_OVERFLOW_SATURATE] = "saturate",
	[XIO_OVERFLOW_DROP] = "drop",
};

const char *xio_reason_name(enum xio_reason r)
{
	return (unsigned)r < XIO_R_COUNT ? reason_names[r] : "unknown";
}

const char *xio_overflow_name(enum xio_overflow o)
{
	return (unsigned)o <= XIO_OVERFLOW_DROP ? overflow_names[o] : "unknown";
}

int xio_overflow_parse(const char *name, enum xio_overflow *o)
{
	unsigned i;

	for (i = 0; i <= XIO_OVERFLOW_DROP; i++) {
		if (strcmp(overflow_names[i], name) == 0) {
			*o = (enum xio_overflow)i;
			return 0;
		}
	}
	return -1;
}
