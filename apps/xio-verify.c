/* SPDX-License-Identifier: BSD-3-Clause
 * xio-verify: checks a pipeline's output capture against the XIO v1 spec and
 * against the token file it carried. Every frame on the XIO port must be a
 * valid narrowed READ_REPLY (IPv4 header checksum, UDP length and checksum,
 * XIO header, UINT16 + NARROWED, token_count x 2 == payload, CRC32C when
 * HAS_CRC, no Ethernet padding); the UINT16 stream rebuilt by first_token
 * must hold every token of the file, narrowed, exactly once. Reports what is
 * missing, duplicated, corrupt, wrong or still INT32 by stream, seq and
 * token ranges. Exit 0: all good; 1: verification failed; 2: usage or I/O.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_main.h"
#include "xio_crc.h"
#include "xio_csum.h"
#include "xio_pcap.h"
#include "xio_wire.h"

#define MAX_STREAMS     16
#define MAX_FRAME_LINES 50 /* frame problems printed one by one */
#define MAX_RANGES      20 /* ranges printed per report line */

/* Per-token marks, besides the count of good copies. */
#define M_INT32   0x1 /* carried by a frame still INT32 */
#define M_CORRUPT 0x2 /* carried by a frame that failed a check */
#define M_WRONG   0x4 /* a good copy holds another value than the file */

struct stream {
	uint32_t id;
	uint8_t *cnt;   /* good copies of each token, saturating at 255 */
	uint8_t *mark;  /* M_* per token */
	uint16_t *val;  /* the first good copy */
	uint8_t *seqs;  /* frames seen per seq (any state), saturating */
	uint64_t max_seq;
	bool any_seq;
	bool last_seen;
	uint64_t good_frames;
	int64_t wrong_first; /* first token with a wrong value, -1 if none */
	uint16_t wrong_got;
};

struct verify {
	uint16_t port;
	bool have_stream;
	uint32_t stream_filter;
	const int32_t *tok;
	size_t ntok;
	size_t nseq;  /* seqs tracked: ntok + 1 */
	struct stream streams[MAX_STREAMS];
	unsigned nstreams;
	/* counters */
	uint64_t frames, xio_frames, not_xio, other_port, other_stream, not_reply;
	uint64_t problems;
};

/* One frame's parse. */
struct frame_info {
	uint32_t l3, l4, udp_len, ip_end;
	bool ipv6;
	const uint8_t *x; /* XIO header, when the UDP payload holds one */
	uint32_t pay_off, pay_len;
	uint32_t stream_id, seq, count;
	uint64_t first;
	uint8_t flags, dtype, opcode;
	bool hdr_ok; /* stream/seq/tokens fields are meaningful */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s --capture CAP.pcap --tokens FILE [--port P] [--stream ID] [--out FILE.u16]\n"
		"Checks a pipeline's output capture: every frame on the XIO UDP port must be\n"
		"a valid narrowed XIO v1 READ_REPLY, and the UINT16 stream rebuilt by\n"
		"first_token must hold each token of FILE (raw little-endian INT32), narrowed\n"
		"to (uint16_t)t, exactly once. Frames on other ports are counted and ignored.\n"
		"\n"
		"  --capture CAP.pcap  capture to check (pcap or pcapng, Ethernet)\n"
		"  --tokens FILE       the token file the input capture carried\n"
		"  --port P            XIO UDP destination port (default 7910)\n"
		"  --stream ID         check only this stream_id (default: every stream seen,\n"
		"                      each against FILE)\n"
		"  --out FILE.u16      write the rebuilt stream (little-endian UINT16, missing\n"
		"                      tokens as 0); needs --stream if several streams are seen\n"
		"  --help              this text\n"
		"  --version           print the version\n"
		"Exit status: 0 all tokens present once and equal, 1 verification failed,\n"
		"2 bad command line or unreadable file.\n",
		xio_cli_prog());
}

static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", xio_cli_prog());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory (%zu bytes)", n * size);
	return p;
}

static size_t read_tokens(const char *path, int32_t **out)
{
	FILE *f = fopen(path, "rb");
	uint8_t b[4];
	long size;
	int32_t *t;
	size_t n;

	if (!f)
		die("%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		die("%s: cannot read: %s", path, strerror(errno));
	if (size % 4)
		die("%s: size %ld is not a multiple of 4 (expected raw little-endian INT32 tokens)",
		    path, size);
	n = (size_t)size / 4;
	t = xcalloc(n, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		if (fread(b, 1, 4, f) != 4)
			die("%s: short read", path);
		t[i] = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				 (uint32_t)b[3] << 24);
	}
	fclose(f);
	*out = t;
	return n;
}

/* ---- frame parsing and checks ------------------------------------------ */

/* Fills the outer headers; false when the frame is not UDP to the XIO port
 * (counted as ignored by the caller through *why: 0 not XIO, 1 other port). */
static bool parse_outer(const struct verify *v, const uint8_t *p, uint32_t n,
			struct frame_info *fi, int *why)
{
	uint32_t off = 12;
	uint16_t et;

	*why = 0;
	if (n < 14)
		return false;
	et = xio_be16(p + off);
	for (int i = 0; i < 2 && (et == 0x8100 || et == 0x88A8); i++) {
		off += 4;
		if (n < off + 2)
			return false;
		et = xio_be16(p + off);
	}
	fi->l3 = off + 2;
	if (et == 0x0800) {
		uint32_t ihl;

		if (n < fi->l3 + 20 || p[fi->l3] >> 4 != 4 || (ihl = (p[fi->l3] & 0xf) * 4u) < 20)
			return false;
		if (p[fi->l3 + 9] != 17 || (xio_be16(p + fi->l3 + 6) & 0x3fff))
			return false; /* not UDP, or a fragment */
		fi->ipv6 = false;
		fi->l4 = fi->l3 + ihl;
		fi->ip_end = fi->l3 + xio_be16(p + fi->l3 + 2);
	} else if (et == 0x86DD) {
		if (n < fi->l3 + 40 || p[fi->l3] >> 4 != 6 || p[fi->l3 + 6] != 17)
			return false;
		fi->ipv6 = true;
		fi->l4 = fi->l3 + 40;
		fi->ip_end = fi->l4 + xio_be16(p + fi->l3 + 4);
	} else {
		return false;
	}
	if (n < fi->l4 + 8)
		return false;
	*why = 1;
	if (xio_be16(p + fi->l4 + 2) != v->port && xio_be16(p + fi->l4) != v->port)
		return false;
	fi->udp_len = xio_be16(p + fi->l4 + 4);
	return true;
}

static uint16_t udp_csum(const uint8_t *p, const struct frame_info *fi)
{
	uint64_t sum;
	uint16_t c;

	if (fi->ipv6)
		sum = xio_csum_add(0, p + fi->l3 + 8, 32);
	else
		sum = xio_csum_add(0, p + fi->l3 + 12, 8);
	sum += 17 + fi->udp_len;
	sum = xio_csum_add(sum, p + fi->l4, 6);
	sum = xio_csum_add(sum, p + fi->l4 + 8, fi->udp_len - 8);
	c = (uint16_t)~xio_csum_fold(sum);
	return c ? c : 0xFFFF;
}

/* Reads the XIO header fields when the frame holds a header with the right
 * magic and version, whatever the checks will say, so that problems can be
 * reported by stream, seq and tokens. */
static void read_xio_header(const uint8_t *p, uint32_t n, struct frame_info *fi)
{
	const uint8_t *x = p + fi->l4 + 8;

	if (n < fi->l4 + 8 + XIO_HDR_LEN || xio_be16(x + XIO_OFF_MAGIC) != XIO_MAGIC ||
	    x[XIO_OFF_VERSION] != XIO_VERSION)
		return;
	fi->x = x;
	fi->opcode = x[XIO_OFF_OPCODE];
	fi->flags = x[XIO_OFF_FLAGS];
	fi->dtype = x[XIO_OFF_DTYPE];
	fi->stream_id = xio_be32(x + XIO_OFF_STREAM_ID);
	fi->seq = xio_be32(x + XIO_OFF_SEQ);
	fi->first = xio_be64(x + XIO_OFF_FIRST_TOKEN);
	fi->count = xio_be32(x + XIO_OFF_TOKEN_COUNT);
	fi->hdr_ok = true;
}

/* Checks IP, UDP and the XIO header in the spec's order; returns NULL when
 * they are good, else the problem (in buf). */
static const char *check_transport(const uint8_t *p, uint32_t n, struct frame_info *fi,
				   char *buf, size_t len)
{
	const uint8_t *x;
	uint16_t c;

	if (!fi->ipv6) {
		uint32_t ihl = (p[fi->l3] & 0xf) * 4u;

		c = xio_be16(p + fi->l3 + 10);
		if (c != xio_ipv4_hdr_csum(p + fi->l3, ihl)) {
			snprintf(buf, len, "bad IPv4 header checksum 0x%04x (expected 0x%04x)", c,
				 xio_ipv4_hdr_csum(p + fi->l3, ihl));
			return buf;
		}
		if (fi->ip_end < fi->l4 + 8) {
			snprintf(buf, len, "IPv4 total length %u shorter than its headers",
				 fi->ip_end - fi->l3);
			return buf;
		}
	}
	if (fi->ip_end > n) {
		snprintf(buf, len, "IP datagram runs %u bytes past the end of the frame", fi->ip_end - n);
		return buf;
	}
	if (fi->ip_end < n) {
		snprintf(buf, len, "%u bytes of Ethernet padding after the IP datagram", n - fi->ip_end);
		return buf;
	}
	if (fi->udp_len != fi->ip_end - fi->l4) {
		snprintf(buf, len, "UDP length %u, IP payload %u", fi->udp_len, fi->ip_end - fi->l4);
		return buf;
	}
	if (fi->udp_len < 8) {
		snprintf(buf, len, "UDP length %u shorter than its header", fi->udp_len);
		return buf;
	}
	c = xio_be16(p + fi->l4 + 6);
	if (c == 0 && fi->ipv6) {
		snprintf(buf, len, "UDP checksum 0 over IPv6");
		return buf;
	}
	if (c != 0 && c != udp_csum(p, fi)) {
		snprintf(buf, len, "bad UDP checksum 0x%04x (expected 0x%04x)", c, udp_csum(p, fi));
		return buf;
	}
	if (fi->udp_len < 8 + XIO_HDR_LEN) {
		snprintf(buf, len, "UDP payload of %u bytes, shorter than the XIO header",
			 fi->udp_len - 8);
		return buf;
	}
	if (!fi->hdr_ok) {
		x = p + fi->l4 + 8;
		snprintf(buf, len, "bad XIO magic 0x%04x / version %u", xio_be16(x + XIO_OFF_MAGIC),
			 x[XIO_OFF_VERSION]);
		return buf;
	}
	x = fi->x;
	c = xio_be16(x + XIO_OFF_HDR_LEN);
	if (c < XIO_HDR_LEN || c % 4 || c > fi->udp_len - 8) {
		snprintf(buf, len, "bad hdr_len %u", c);
		return buf;
	}
	fi->pay_off = fi->l4 + 8 + c;
	fi->pay_len = fi->ip_end - fi->pay_off;
	if (fi->flags & XIO_F_RESERVED) {
		snprintf(buf, len, "reserved flag bits 0x%02x set", fi->flags & XIO_F_RESERVED);
		return buf;
	}
	return NULL;
}

/* Checks the payload for a frame of token width w; NULL when good. */
static const char *check_payload(const uint8_t *p, const struct frame_info *fi, unsigned w,
				 char *buf, size_t len)
{
	if ((uint64_t)fi->count * w != fi->pay_len) {
		snprintf(buf, len, "token_count %u x %u != payload length %u", fi->count, w,
			 fi->pay_len);
		return buf;
	}
	if (fi->flags & XIO_F_HAS_CRC) {
		uint32_t want = xio_crc32c(p + fi->pay_off, fi->pay_len);
		uint32_t got = xio_be32(fi->x + XIO_OFF_PAYLOAD_CRC);

		if (got != want) {
			snprintf(buf, len, "bad payload CRC32C 0x%08x (expected 0x%08x)", got, want);
			return buf;
		}
	}
	return NULL;
}

/* ---- streams ------------------------------------------------------------ */

static struct stream *get_stream(struct verify *v, uint32_t id)
{
	struct stream *s;

	for (unsigned i = 0; i < v->nstreams; i++)
		if (v->streams[i].id == id)
			return &v->streams[i];
	if (v->nstreams == MAX_STREAMS)
		return NULL;
	s = &v->streams[v->nstreams++];
	s->id = id;
	s->cnt = xcalloc(v->ntok, 1);
	s->mark = xcalloc(v->ntok, 1);
	s->val = xcalloc(v->ntok, sizeof(*s->val));
	s->seqs = xcalloc(v->nseq, 1);
	s->wrong_first = -1;
	return s;
}

static void stream_free(struct stream *s)
{
	free(s->cnt);
	free(s->mark);
	free(s->val);
	free(s->seqs);
}

/* The token range [a, b) of a frame, clipped to the file. */
static void clip(const struct verify *v, const struct frame_info *fi, uint64_t *a, uint64_t *b)
{
	*a = fi->first < v->ntok ? fi->first : v->ntok;
	*b = fi->count > v->ntok - *a ? v->ntok : *a + fi->count;
}

static void mark_tokens(struct verify *v, struct stream *s, const struct frame_info *fi,
			uint8_t m)
{
	uint64_t a, b;

	clip(v, fi, &a, &b);
	for (uint64_t i = a; i < b; i++)
		s->mark[i] |= m;
}

static void place_tokens(struct verify *v, struct stream *s, const uint8_t *p,
			 const struct frame_info *fi)
{
	const uint8_t *pl = p + fi->pay_off;

	for (uint32_t i = 0; i < fi->count; i++) {
		uint64_t t = fi->first + i;
		uint16_t got = (uint16_t)(pl[2 * i] | pl[2 * i + 1] << 8);

		if (s->cnt[t] == 0)
			s->val[t] = got;
		if (s->cnt[t] < 255)
			s->cnt[t]++;
		if (got != (uint16_t)v->tok[t]) {
			s->mark[t] |= M_WRONG;
			if (s->wrong_first < 0 || (int64_t)t < s->wrong_first) {
				s->wrong_first = (int64_t)t;
				s->wrong_got = got;
			}
		}
	}
	s->good_frames++;
}

static void __attribute__((format(printf, 4, 5)))
frame_problem(struct verify *v, uint64_t fno, const struct frame_info *fi, const char *fmt, ...)
{
	va_list ap;

	if (++v->problems > MAX_FRAME_LINES)
		return;
	printf("%s: frame %llu: ", xio_cli_prog(), (unsigned long long)fno);
	if (fi && fi->hdr_ok) {
		printf("stream %u seq %u ", fi->stream_id, fi->seq);
		if (fi->count)
			printf("tokens %llu-%llu: ", (unsigned long long)fi->first,
			       (unsigned long long)(fi->first + fi->count - 1));
		else
			printf("no tokens: ");
	}
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void check_frame(struct verify *v, uint64_t fno, const struct xio_pcap_pkt *pkt)
{
	struct frame_info fi = { 0 };
	const char *bad;
	struct stream *s;
	char buf[160];
	int why;

	if (!parse_outer(v, pkt->data, pkt->caplen, &fi, &why)) {
		if (why)
			v->other_port++;
		else
			v->not_xio++;
		return;
	}
	v->xio_frames++;
	read_xio_header(pkt->data, pkt->caplen, &fi);
	if (pkt->caplen < pkt->len) {
		snprintf(buf, sizeof(buf), "cut short by the capture (%u of %u bytes)", pkt->caplen,
			 pkt->len);
		bad = buf;
	} else {
		bad = check_transport(pkt->data, pkt->caplen, &fi, buf, sizeof(buf));
	}
	if (fi.hdr_ok && v->have_stream && fi.stream_id != v->stream_filter) {
		v->other_stream++;
		return;
	}
	if (fi.hdr_ok && !bad && fi.opcode != XIO_OP_READ_REPLY) {
		v->not_reply++;
		return;
	}
	s = fi.hdr_ok ? get_stream(v, fi.stream_id) : NULL;
	if (fi.hdr_ok && !s) {
		frame_problem(v, fno, &fi, "more than %d streams in the capture", MAX_STREAMS);
		return;
	}
	if (s && fi.seq < v->nseq && s->seqs[fi.seq] < 255)
		s->seqs[fi.seq]++;
	if (s && (!s->any_seq || fi.seq > s->max_seq)) {
		s->max_seq = fi.seq;
		s->any_seq = true;
	}
	if (!bad && fi.seq >= v->nseq) {
		snprintf(buf, sizeof(buf), "seq beyond the %zu datagrams the token file can fill",
			 v->nseq);
		bad = buf;
	}
	if (!bad && fi.dtype == XIO_DT_INT32 && !(fi.flags & XIO_F_NARROWED)) {
		bad = check_payload(pkt->data, &fi, 4, buf, sizeof(buf));
		if (!bad) {
			frame_problem(v, fno, &fi, "still INT32 (not narrowed)");
			s->last_seen |= fi.flags & XIO_F_LAST;
			mark_tokens(v, s, &fi, M_INT32);
			return;
		}
	} else if (!bad && !(fi.dtype == XIO_DT_UINT16 && (fi.flags & XIO_F_NARROWED))) {
		snprintf(buf, sizeof(buf), "dtype 0x%02x with flags 0x%02x: not a narrowed UINT16",
			 fi.dtype, fi.flags);
		bad = buf;
	}
	if (!bad)
		bad = check_payload(pkt->data, &fi, 2, buf, sizeof(buf));
	if (!bad && (fi.first > v->ntok || fi.count > v->ntok - fi.first)) {
		snprintf(buf, sizeof(buf), "tokens beyond the end of the token file (%zu tokens)",
			 v->ntok);
		bad = buf;
	}
	if (bad) {
		frame_problem(v, fno, &fi, "%s", bad);
		if (s)
			mark_tokens(v, s, &fi, M_CORRUPT);
		return;
	}
	s->last_seen |= fi.flags & XIO_F_LAST;
	place_tokens(v, s, pkt->data, &fi);
}

/* ---- report ------------------------------------------------------------- */

typedef bool (*tok_pred)(const struct stream *s, size_t i);

/* Where a run is printed from: a token predicate, or a seq table where
 * runs of entries equal to want are printed. */
struct runs_src {
	const struct stream *s;
	tok_pred pred;
	const uint8_t *tab;
	uint8_t want;
};

static bool run_at(const struct runs_src *src, size_t i)
{
	return src->pred ? src->pred(src->s, i) : src->tab[i] == src->want;
}

static bool is_missing(const struct stream *s, size_t i)
{
	return !s->cnt[i] && !(s->mark[i] & (M_INT32 | M_CORRUPT));
}

static bool is_int32(const struct stream *s, size_t i)
{
	return !s->cnt[i] && (s->mark[i] & M_INT32);
}

static bool is_corrupt(const struct stream *s, size_t i)
{
	return !s->cnt[i] && (s->mark[i] & (M_INT32 | M_CORRUPT)) == M_CORRUPT;
}

static bool is_dup(const struct stream *s, size_t i)
{
	return s->cnt[i] > 1;
}

static bool is_wrong(const struct stream *s, size_t i)
{
	return s->mark[i] & M_WRONG;
}

/* Prints " A-B, C, ..." for the runs of [0, n) where src holds (at most
 * MAX_RANGES of them) and returns how many indices matched. */
static size_t print_runs(const struct runs_src *src, size_t n)
{
	size_t total = 0, runs = 0;

	for (size_t i = 0; i < n;) {
		size_t j;

		if (!run_at(src, i)) {
			i++;
			continue;
		}
		for (j = i; j < n && run_at(src, j); j++)
			;
		if (runs < MAX_RANGES) {
			printf("%s%zu", runs ? ", " : " ", i);
			if (j - i > 1)
				printf("-%zu", j - 1);
		} else if (runs == MAX_RANGES) {
			printf(", ...");
		}
		runs++;
		total += j - i;
		i = j;
	}
	return total;
}

/* Counts [0, n) where src holds. */
static size_t count_runs(const struct runs_src *src, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += run_at(src, i);
	return c;
}

static bool report_tokens(const struct verify *v, const struct stream *s, const char *what,
			  tok_pred pred)
{
	struct runs_src src = { .s = s, .pred = pred };
	size_t n = count_runs(&src, v->ntok);

	if (!n)
		return false;
	printf("%s: stream %u: %s tokens", xio_cli_prog(), s->id, what);
	print_runs(&src, v->ntok);
	printf(" (%zu token%s)", n, n == 1 ? "" : "s");
	if (pred == is_wrong)
		printf("; token %lld is 0x%04x, expected 0x%04x", (long long)s->wrong_first,
		       s->wrong_got, (uint16_t)v->tok[s->wrong_first]);
	putchar('\n');
	return true;
}

/* Reports the seqs of table entries equal to want below top, if any. */
static bool report_seq_runs(const struct stream *s, size_t top, const uint8_t *tab,
			    uint8_t want, const char *what)
{
	struct runs_src src = { .s = s, .tab = tab, .want = want };
	size_t n = count_runs(&src, top);

	if (!n)
		return false;
	printf("%s: stream %u: seq", xio_cli_prog(), s->id);
	print_runs(&src, top);
	printf(" %s (%zu frame%s)\n", what, n, n == 1 ? "" : "s");
	return true;
}

/* Seqs below the highest seen that never came, seqs seen twice, no LAST. */
static bool report_seqs(const struct verify *v, const struct stream *s)
{
	size_t top = s->any_seq ? (size_t)s->max_seq + 1 : 0;
	uint8_t *dup;
	bool bad;

	if (top > v->nseq)
		top = v->nseq;
	bad = report_seq_runs(s, top, s->seqs, 0, "not seen");
	dup = xcalloc(top, 1);
	for (size_t i = 0; i < top; i++)
		dup[i] = s->seqs[i] > 1;
	bad |= report_seq_runs(s, top, dup, 1, "seen more than once");
	free(dup);
	if (!s->last_seen) {
		printf("%s: stream %u: no frame with the LAST flag passed the checks\n", xio_cli_prog(),
		       s->id);
		bad = true;
	}
	return bad;
}

static bool report_stream(const struct verify *v, const struct stream *s)
{
	bool bad = false;

	bad |= report_tokens(v, s, "missing", is_missing);
	bad |= report_tokens(v, s, "still INT32", is_int32);
	bad |= report_tokens(v, s, "corrupt (only in frames that failed a check)", is_corrupt);
	bad |= report_tokens(v, s, "duplicated", is_dup);
	bad |= report_tokens(v, s, "wrong value at", is_wrong);
	bad |= report_seqs(v, s);
	if (!bad)
		printf("%s: stream %u: all %zu tokens present once and equal, %llu frame%s\n", xio_cli_prog(),
		       s->id, v->ntok, (unsigned long long)s->good_frames,
		       s->good_frames == 1 ? "" : "s");
	return bad;
}

static void write_out(const struct verify *v, const char *path)
{
	const struct stream *s = NULL;
	FILE *f;

	if (v->nstreams > 1)
		die("--out: the capture holds %u streams; choose one with --stream", v->nstreams);
	if (v->nstreams == 1)
		s = &v->streams[0];
	f = fopen(path, "wb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (size_t i = 0; i < v->ntok; i++) {
		uint16_t t = s && s->cnt[i] ? s->val[i] : 0;
		uint8_t b[2] = { (uint8_t)t, (uint8_t)(t >> 8) };

		fwrite(b, 1, 2, f);
	}
	if (fclose(f) != 0)
		die("%s: write error: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	enum { O_CAPTURE = 256, O_TOKENS, O_PORT, O_OUT, O_STREAM, O_VERSION, O_HELP };
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, O_CAPTURE },
		{ "tokens", required_argument, NULL, O_TOKENS },
		{ "port", required_argument, NULL, O_PORT },
		{ "out", required_argument, NULL, O_OUT },
		{ "stream", required_argument, NULL, O_STREAM },
		{ "version", no_argument, NULL, O_VERSION },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *cap_path = NULL, *tok_path = NULL, *out_path = NULL;
	static struct verify v;
	struct xio_pcap_reader *r;
	struct xio_pcap_pkt pkt;
	char err[XIO_PCAP_ERRLEN];
	int32_t *tok;
	bool bad = false;
	int c, rc;

	xio_cli_init(argv[0]);
	v.port = XIO_DEFAULT_UDP_PORT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_CAPTURE: cap_path = optarg; break;
		case O_TOKENS: tok_path = optarg; break;
		case O_PORT: v.port = (uint16_t)xio_main_num("port", optarg, 1, 65535); break;
		case O_OUT: out_path = optarg; break;
		case O_STREAM:
			v.stream_filter = (uint32_t)xio_main_num("stream", optarg, 0, UINT32_MAX);
			v.have_stream = true;
			break;
		case O_VERSION: xio_main_version();
		case O_HELP: usage(stdout); return 0;
		case ':': xio_main_usage("option '%s' needs a value", argv[optind - 1]);
		default: xio_main_usage("unknown or ambiguous option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		xio_main_usage("unexpected argument '%s'", argv[optind]);
	if (!cap_path)
		xio_main_usage("--capture CAP.pcap is required");
	if (!tok_path)
		xio_main_usage("--tokens FILE is required");

	v.ntok = read_tokens(tok_path, &tok);
	v.tok = tok;
	v.nseq = v.ntok + 1;
	r = xio_pcap_open_read(cap_path, err, sizeof(err));
	if (!r)
		die("%s", err);
	while ((rc = xio_pcap_next(r, &pkt, err, sizeof(err))) == 1)
		check_frame(&v, ++v.frames, &pkt);
	xio_pcap_close_read(r);
	if (rc < 0)
		die("%s", err);
	if (v.problems > MAX_FRAME_LINES)
		printf("%s: ... %llu more frames with problems not listed\n", xio_cli_prog(),
		       (unsigned long long)(v.problems - MAX_FRAME_LINES));

	printf("%s: %llu frames: %llu on XIO port %u, %llu ignored (%llu not IP/UDP, %llu other port, %llu other stream, %llu not READ_REPLY)\n",
	       xio_cli_prog(), (unsigned long long)v.frames, (unsigned long long)v.xio_frames, v.port,
	       (unsigned long long)(v.not_xio + v.other_port + v.other_stream + v.not_reply),
	       (unsigned long long)v.not_xio, (unsigned long long)v.other_port,
	       (unsigned long long)v.other_stream, (unsigned long long)v.not_reply);
	if (!v.nstreams) {
		printf("%s: no XIO stream%s found on port %u\n", xio_cli_prog(), v.have_stream ? " of that id" : "",
		       v.port);
		bad = true;
	}
	for (unsigned i = 0; i < v.nstreams; i++)
		bad |= report_stream(&v, &v.streams[i]);
	if (out_path)
		write_out(&v, out_path);
	if (v.problems)
		printf("%s: FAIL: %llu frame%s with problems\n", xio_cli_prog(),
		       (unsigned long long)v.problems, v.problems == 1 ? "" : "s");
	else if (bad)
		printf("%s: FAIL: token stream incomplete or wrong\n", xio_cli_prog());
	else
		printf("%s: OK\n", xio_cli_prog());
	for (unsigned i = 0; i < v.nstreams; i++)
		stream_free(&v.streams[i]);
	free(tok);
	return bad || v.problems ? 1 : 0;
}
