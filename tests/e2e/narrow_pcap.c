/* SPDX-License-Identifier: BSD-3-Clause
 * narrow_pcap: a test driver that pushes every frame of a capture through the
 * stage core (xio_process_buf) and writes what a pipeline would transmit:
 * forwarded frames as they came, rewritten frames cut to out_len, dropped
 * frames left out. Lets the tool tests make correctly narrowed captures
 * without DPDK.
 *   narrow_pcap IN.pcap OUT.pcap [UDP_PORT [keep|saturate|drop]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_pcap.h"
#include "xio_stage.h"

int main(int argc, char **argv)
{
	static uint8_t buf[XIO_PCAP_SNAPLEN];
	char err[XIO_PCAP_ERRLEN];
	struct xio_stage_cfg cfg;
	struct xio_pcap_reader *r;
	struct xio_pcap_writer *w;
	struct xio_pcap_pkt pkt;
	struct xio_result res;
	unsigned long n = 0, out = 0, narrowed = 0;
	int rc;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s IN.pcap OUT.pcap [UDP_PORT [keep|saturate|drop]]\n", argv[0]);
		return 2;
	}
	xio_stage_cfg_default(&cfg);
	if (argc > 3)
		cfg.udp_port = (uint16_t)atoi(argv[3]);
	if (argc > 4 && xio_overflow_parse(argv[4], &cfg.overflow)) {
		fprintf(stderr, "%s: unknown policy '%s'\n", argv[0], argv[4]);
		return 2;
	}
	r = xio_pcap_open_read(argv[1], err, sizeof(err));
	w = r ? xio_pcap_open_write(argv[2], false, err, sizeof(err)) : NULL;
	if (!w) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	while ((rc = xio_pcap_next(r, &pkt, err, sizeof(err))) == 1) {
		n++;
		memcpy(buf, pkt.data, pkt.caplen);
		xio_process_buf(&cfg, buf, pkt.caplen, &res);
		if (res.action == XIO_ACT_DROP)
			continue;
		narrowed += res.action == XIO_ACT_REWRITTEN;
		/* a frame cut by the capture stays cut; a rewritten one is whole */
		if (xio_pcap_write(w, buf, res.out_len,
				   res.action == XIO_ACT_REWRITTEN ? res.out_len : pkt.len,
				   pkt.ts_ns, err, sizeof(err))) {
			rc = -1;
			break;
		}
		out++;
	}
	xio_pcap_close_read(r);
	if (rc < 0 || xio_pcap_close_write(w, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	fprintf(stderr, "narrow_pcap: %lu frames in, %lu out, %lu narrowed\n", n, out, narrowed);
	return 0;
}
