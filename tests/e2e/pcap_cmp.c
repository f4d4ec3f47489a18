/* SPDX-License-Identifier: BSD-3-Clause
 * pcap_cmp: compares the frames of two captures byte for byte, ignoring
 * timestamps and the timestamp resolution (net_pcap writes nanosecond
 * pcaps). Reports the first differing frame: its length or its first
 * differing byte, or which capture has frames the other lacks.
 *
 *   pcap-cmp GOT.pcap EXPECTED.pcap
 *
 * Exit status: 0 identical, 1 different, 2 unreadable file or bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_pcap.h"

static int cmp_frame(unsigned long n, const struct xio_pcap_pkt *a, const struct xio_pcap_pkt *b)
{
	uint32_t len = a->caplen < b->caplen ? a->caplen : b->caplen;

	for (uint32_t i = 0; i < len; i++) {
		if (a->data[i] != b->data[i]) {
			printf("frame %lu: byte %u differs: 0x%02x, expected 0x%02x "
			       "(lengths %u, expected %u)\n", n, i, a->data[i], b->data[i],
			       a->caplen, b->caplen);
			return 1;
		}
	}
	if (a->caplen != b->caplen) {
		printf("frame %lu: %u bytes, expected %u (the first %u are equal)\n", n, a->caplen,
		       b->caplen, len);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char err[XIO_PCAP_ERRLEN];
	struct xio_pcap_reader *a, *b;
	struct xio_pcap_pkt pa, pb;
	unsigned long n = 0;
	int ra = 0, rb = 0, rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: pcap-cmp GOT.pcap EXPECTED.pcap\n");
		return 2;
	}
	a = xio_pcap_open_read(argv[1], err, sizeof(err));
	if (a == NULL) {
		fprintf(stderr, "pcap-cmp: %s\n", err);
		return 2;
	}
	b = xio_pcap_open_read(argv[2], err, sizeof(err));
	if (b == NULL) {
		fprintf(stderr, "pcap-cmp: %s\n", err);
		xio_pcap_close_read(a);
		return 2;
	}
	for (;;) {
		ra = xio_pcap_next(a, &pa, err, sizeof(err));
		if (ra < 0)
			break;
		rb = xio_pcap_next(b, &pb, err, sizeof(err));
		if (rb < 0 || (ra == 0 && rb == 0))
			break;
		n++;
		if (ra != rb) {
			printf("frame %lu: only in %s (%lu frames there at least, the other has %lu)\n",
			       n, ra ? argv[1] : argv[2], n, n - 1);
			rc = 1;
			break;
		}
		/* Frames hold on only until the next read of the same reader. */
		if (cmp_frame(n, &pa, &pb) != 0) {
			rc = 1;
			break;
		}
	}
	if (ra < 0 || rb < 0) {
		fprintf(stderr, "pcap-cmp: %s\n", err);
		rc = 2;
	} else if (rc == 0) {
		printf("%lu frames identical\n", n);
	}
	xio_pcap_close_read(a);
	xio_pcap_close_read(b);
	return rc;
}
