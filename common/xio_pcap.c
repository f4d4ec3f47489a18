/* SPDX-License-Identifier: BSD-3-Clause
 * xio_pcap.c: capture files through libpcap (xio_pcap.h). Files are read
 * with nanosecond timestamps whatever their own precision, and written as
 * classic pcap with a 65535-byte snap length.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "xio_pcap.h"

struct xio_pcap_reader {
	pcap_t *p;
	char *path;
};

struct xio_pcap_writer {
	pcap_t *p;
	pcap_dumper_t *d;
	bool nsec;
	char *path;
};

struct xio_pcap_reader *xio_pcap_open_read(const char *path, char *err, size_t errlen)
{
	char pcap_err[PCAP_ERRBUF_SIZE] = "";
	struct xio_pcap_reader *r;
	FILE *f;
	pcap_t *p;
	int dlt;

	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, pcap_err);
	if (!p) {
		fclose(f);
		snprintf(err, errlen, "%s: not a pcap file (%s)", path, pcap_err);
		return NULL;
	}
	dlt = pcap_datalink(p);
	if (dlt != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(dlt);
		const char *desc = pcap_datalink_val_to_description(dlt);

		snprintf(err, errlen, "%s: link type %s (%s), expected Ethernet (EN10MB)", path,
			 name ? name : "unknown", desc ? desc : "no description");
		pcap_close(p);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		snprintf(err, errlen, "%s: out of memory", path);
		free(r);
		pcap_close(p);
		return NULL;
	}
	r->p = p;
	return r;
}

int xio_pcap_next(struct xio_pcap_reader *r, struct xio_pcap_pkt *pkt, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(r->p, &h, &data);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		snprintf(err, errlen, "%s: %s", r->path, pcap_geterr(r->p));
		return -1;
	}
	pkt->data = data;
	pkt->caplen = h->caplen;
	pkt->len = h->len;
	pkt->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
	return 1;
}

void xio_pcap_close_read(struct xio_pcap_reader *r)
{
	if (!r)
		return;
	pcap_close(r->p);
	free(r->path);
	free(r);
}

struct xio_pcap_writer *xio_pcap_open_write(const char *path, bool nsec, char *err,
					    size_t errlen)
{
	struct xio_pcap_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->path = strdup(path))) {
		snprintf(err, errlen, "%s: out of memory", path);
		free(w);
		return NULL;
	}
	w->nsec = nsec;
	w->p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, XIO_PCAP_SNAPLEN,
						    nsec ? PCAP_TSTAMP_PRECISION_NANO :
							   PCAP_TSTAMP_PRECISION_MICRO);
	if (!w->p) {
		snprintf(err, errlen, "%s: libpcap cannot make a capture handle", path);
		goto fail;
	}
	w->d = pcap_dump_open(w->p, path);
	if (!w->d) {
		snprintf(err, errlen, "%s", pcap_geterr(w->p));
		goto fail;
	}
	return w;
fail:
	if (w->p)
		pcap_close(w->p);
	free(w->path);
	free(w);
	return NULL;
}

int xio_pcap_write(struct xio_pcap_writer *w, const uint8_t *data, uint32_t caplen,
		   uint32_t len, uint64_t ts_ns, char *err, size_t errlen)
{
	struct pcap_pkthdr h;
	uint64_t frac = ts_ns % 1000000000u;

	if (caplen > XIO_PCAP_SNAPLEN || len < caplen) {
		snprintf(err, errlen, "%s: frame of %u bytes (%u captured) cannot be written",
			 w->path, len, caplen);
		return -1;
	}
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(w->nsec ? frac : frac / 1000u);
	h.caplen = caplen;
	h.len = len;
	pcap_dump((u_char *)w->d, &h, data);
	return 0;
}

int xio_pcap_close_write(struct xio_pcap_writer *w, char *err, size_t errlen)
{
	int rc = 0;

	if (!w)
		return 0;
	if (pcap_dump_flush(w->d) != 0 || ferror(pcap_dump_file(w->d))) {
		snprintf(err, errlen, "%s: write error: %s", w->path, strerror(errno));
		rc = -1;
	}
	pcap_dump_close(w->d);
	pcap_close(w->p);
	free(w->path);
	free(w);
	return rc;
}
