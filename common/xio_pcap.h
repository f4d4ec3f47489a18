/* SPDX-License-Identifier: BSD-3-Clause
 * xio_pcap.h: reading and writing Ethernet capture files through libpcap,
 * frame by frame, for the tools (xio-gen, xio-verify) and the tests. Errors
 * come back as one line of text naming the file and the problem.
 */
#ifndef XIO_PCAP_H
#define XIO_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XIO_PCAP_ERRLEN 512
/* Snap length written in new files: the longest jumbo frame, with room. */
#define XIO_PCAP_SNAPLEN 65535

struct xio_pcap_reader;
struct xio_pcap_writer;

/* One captured frame. data is valid until the next call on the reader. */
struct xio_pcap_pkt {
	const uint8_t *data;
	uint32_t caplen;  /* bytes in data */
	uint32_t len;     /* length on the wire (> caplen when cut by the capture) */
	uint64_t ts_ns;   /* timestamp, nanoseconds since the epoch */
};

/* Opens a pcap (or pcapng) file of Ethernet frames. Returns NULL with a
 * message in err when the file is missing, not a capture, or not Ethernet. */
struct xio_pcap_reader *xio_pcap_open_read(const char *path, char *err, size_t errlen);

/* Returns 1 with the next frame in *pkt, 0 at the end of the file, -1 with
 * a message in err when the file is damaged. */
int xio_pcap_next(struct xio_pcap_reader *r, struct xio_pcap_pkt *pkt, char *err, size_t errlen);

void xio_pcap_close_read(struct xio_pcap_reader *r);

/* Creates (truncates) a classic pcap file, link type Ethernet (DLT_EN10MB),
 * with microsecond timestamps, or nanosecond ones when nsec is set. */
struct xio_pcap_writer *xio_pcap_open_write(const char *path, bool nsec, char *err,
					    size_t errlen);

/* Appends a frame of which caplen bytes are stored and len were on the wire
 * (len >= caplen; pass len == caplen for a whole frame). */
int xio_pcap_write(struct xio_pcap_writer *w, const uint8_t *data, uint32_t caplen,
		   uint32_t len, uint64_t ts_ns, char *err, size_t errlen);

/* Flushes and closes; returns 0, or -1 with a message when a write failed. */
int xio_pcap_close_write(struct xio_pcap_writer *w, char *err, size_t errlen);

#endif /* XIO_PCAP_H */
