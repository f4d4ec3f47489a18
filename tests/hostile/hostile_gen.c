/* SPDX-License-Identifier: BSD-3-Clause
 * hostile_gen.c: xio-hostile-gen, a generator of hostile captures for the
 * reliability tests. Frames are random bytes, or valid XIO frames of every
 * shape (stages/xio_build.h) with random fields overwritten, lengths and
 * checksums left stale or recomputed over the damage, or cut short; all of
 * it from one seed, so a capture is reproduced exactly by its seed.
 *
 *   xio-hostile-gen --out IN.pcap [--seed S] [--count N] [--udp-port P]
 *                   [--min-len N]
 *
 * Every frame is at most 9022 bytes (a 9000-byte IP MTU behind two VLAN
 * tags), the spec's largest. --min-len pads shorter ones with random bytes,
 * for paths that cannot carry runts (BPF_PROG_TEST_RUN wants 14 bytes).
 *
 * --edges writes a fixed capture instead (no seed, no count): valid INT32
 * replies whose token counts sit around every block and step size of the
 * narrowing kernels and of the XDP program's loops, each with all tokens in
 * range, with a wrong UDP checksum (found in the narrowing pass: the frame
 * must leave as it came), and with one out-of-range token at every position
 * of the blocks (checksum right, and sometimes wrong too); IPv4 and IPv6,
 * with and without the UDP checksum.
 */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_build.h"

#define MAX_FRAME  (14 + 8 + 9000)
#define MAX_TOKENS (9000 / 2) /* UINT16 */

struct gen {
	uint64_t state;
	uint16_t port;
	uint8_t buf[MAX_FRAME + 64];
	int32_t tokens[MAX_TOKENS];
	uint8_t ext[256];
	uint8_t opts[40];
};

/* splitmix64: small, fast and the same everywhere */
static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t below(struct gen *g, uint32_t n)
{
	return n ? (uint32_t)(rnd(g) % n) : 0;
}

/* True with probability pct percent. */
static int chance(struct gen *g, unsigned pct)
{
	return below(g, 100) < pct;
}

static void fill_random(struct gen *g, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd(g);
}

/* A token: mostly in range, with the edges and the out-of-range values
 * the narrowing must notice when out_of_range is set. */
static int32_t token(struct gen *g, int out_of_range)
{
	static const int32_t edges[] = { 0, 1, 255, 256, 32767, 32768, 65534, 65535 };
	static const int32_t bad[] = { -1, 65536, INT32_MIN, INT32_MAX, -65536, 0x10000 | 5,
				       -32768, 0x7FFF0000 };

	if (out_of_range) {
		if (chance(g, 50))
			return bad[below(g, sizeof(bad) / sizeof(bad[0]))];
		return (int32_t)(uint32_t)rnd(g) | (chance(g, 50) ? INT32_MIN : 0x10000);
	}
	if (chance(g, 10))
		return edges[below(g, sizeof(edges) / sizeof(edges[0]))];
	return (int32_t)below(g, 65536);
}

/* How many tokens fit the IP MTU under this spec (token width 4 or 2). */
static uint32_t max_tokens(const struct xio_build_spec *s)
{
	uint32_t hdrs = (s->ipv6 ? 40 : 20 + s->ip_opt_len) + 8 + s->hdr_len;
	uint32_t width = s->dtype == XIO_DT_UINT16 ? 2 : 4;

	return hdrs >= 9000 ? 0 : (9000 - hdrs) / width;
}

static uint32_t token_count(struct gen *g, const struct xio_build_spec *s)
{
	uint32_t max = max_tokens(s);

	switch (below(g, 5)) {
	case 0: return below(g, 4 < max ? 4 : max + 1);          /* 0..3 */
	case 1: return below(g, 64 < max ? 64 : max + 1);        /* short */
	case 2: return below(g, 364 < max ? 364 : max + 1);      /* one 1500-byte frame */
	case 3: return max - below(g, 4 < max ? 4 : max + 1);    /* jumbo, full */
	default: return below(g, max + 1);
	}
}

/* A random valid frame (an INT32 READ_REPLY most of the time) into g->buf. */
static uint32_t valid_frame(struct gen *g, struct xio_build_layout *lay)
{
	struct xio_build_spec s;
	int oor;

	xio_build_spec_default(&s);
	fill_random(g, s.dst_mac, 6);
	fill_random(g, s.src_mac, 6);
	s.nvlan = below(g, 3);
	for (unsigned i = 0; i < s.nvlan; i++) {
		s.vlan_tpid[i] = chance(g, 50) ? 0x8100 : 0x88A8;
		s.vlan_tci[i] = (uint16_t)rnd(g);
	}
	s.ipv6 = chance(g, 30);
	fill_random(g, s.src_ip, 16);
	fill_random(g, s.dst_ip, 16);
	s.ttl = (uint8_t)rnd(g);
	s.dscp = (uint8_t)below(g, 64);
	s.ip_id = (uint16_t)rnd(g);
	if (!s.ipv6 && chance(g, 25)) {
		s.ip_opt_len = (uint8_t)(4 * (1 + below(g, 10)));
		fill_random(g, g->opts, s.ip_opt_len);
		s.ip_opts = chance(g, 50) ? g->opts : NULL;
	}
	s.src_port = (uint16_t)rnd(g);
	s.dst_port = chance(g, 90) ? g->port : (chance(g, 50) ? 7910 : (uint16_t)rnd(g));
	if (chance(g, 40)) { /* a reply from the XIO port to an ephemeral one (rule 5, 1.1) */
		s.src_port = s.dst_port;
		s.dst_port = (uint16_t)(32768 + below(g, 28232));
	}
	s.udp_csum = chance(g, 80);
	s.opcode = chance(g, 90) ? XIO_OP_READ_REPLY : (uint8_t)below(g, 5);
	s.flags = (uint8_t)(below(g, 4) & (XIO_F_LAST | XIO_F_HAS_CRC));
	s.dtype = XIO_DT_INT32;
	if (chance(g, 8)) { /* already narrowed, or a UINT16 that says it is not */
		s.dtype = XIO_DT_UINT16;
		s.flags |= chance(g, 80) ? XIO_F_NARROWED : 0;
	}
	s.hdr_len = (uint16_t)(XIO_HDR_LEN + (chance(g, 25) ? 4 * below(g, 56) : 0));
	fill_random(g, g->ext, sizeof(g->ext));
	s.ext = g->ext;
	s.stream_id = (uint32_t)rnd(g);
	s.seq = (uint32_t)rnd(g);
	s.first_token = rnd(g) >> below(g, 64);
	s.token_count = token_count(g, &s);
	oor = chance(g, 20);
	for (uint32_t i = 0; i < s.token_count; i++)
		g->tokens[i] = token(g, oor && chance(g, i < 8 ? 30 : 2));
	if (oor && s.token_count)
		g->tokens[below(g, s.token_count)] = token(g, 1);
	s.tokens = g->tokens;
	if (chance(g, 15))
		s.pad_to = chance(g, 50) ? 60 : xio_build_len(&s) + below(g, 40);
	if (s.pad_to > MAX_FRAME)
		s.pad_to = MAX_FRAME;
	return xio_build_frame(&s, g->buf, MAX_FRAME, lay);
}

/* The header fields rules 1-16 read, as (offset, size) in a built frame. */
static void pick_field(struct gen *g, const struct xio_build_layout *lay, uint32_t *off,
		       uint32_t *size)
{
	uint32_t l3 = lay->l3_off, l4 = lay->l4_off, x = lay->xio_off;
	const uint32_t v4[][2] = {
		{ 12, 2 }, { l3 - 2, 2 }, { l3, 1 }, { l3 + 2, 2 }, { l3 + 6, 2 }, { l3 + 9, 1 },
		{ l3 + 10, 2 },
	};
	const uint32_t v6[][2] = { { 12, 2 }, { l3 - 2, 2 }, { l3, 1 }, { l3 + 4, 2 }, { l3 + 6, 1 } };
	const uint32_t rest[][2] = {
		{ l4 + 2, 2 }, { l4 + 4, 2 }, { l4 + 6, 2 }, { x, 2 }, { x + 2, 1 }, { x + 3, 1 },
		{ x + 4, 1 }, { x + 5, 1 }, { x + 6, 2 }, { x + 24, 4 }, { x + 28, 4 },
		{ lay->payload_off, 4 }, { lay->payload_off + 4 * below(g, lay->payload_len / 4 + 1), 4 },
	};
	uint32_t nl3 = lay->ipv6 ? 5 : 7, n = nl3 + 13, i = below(g, n);

	if (i < nl3) {
		*off = lay->ipv6 ? v6[i][0] : v4[i][0];
		*size = lay->ipv6 ? v6[i][1] : v4[i][1];
	} else {
		*off = rest[i - nl3][0];
		*size = rest[i - nl3][1];
	}
}

/* A value for a field: random, an edge, or the old value nudged. */
static uint32_t field_value(struct gen *g, uint32_t old, uint32_t size)
{
	static const uint32_t edges[] = { 0, 1, 2, 3, 4, 5, 7, 8, 0x11, 0x20, 0x1f, 0x24, 0x40,
					  0x45, 0x60, 0x80, 0xff, 0x800, 0x86dd, 0x8100, 0x88a8,
					  0x1ee6, 0x270f, 0x2000, 0x1fff, 0x5849, 0xffff, 0x10000,
					  0x7fffffff, 0x80000000, 0xffffffff };
	uint32_t mask = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;

	switch (below(g, 4)) {
	case 0: return (uint32_t)rnd(g) & mask;
	case 1: return edges[below(g, sizeof(edges) / sizeof(edges[0]))] & mask;
	case 2: return (old + 1 + below(g, 4)) & mask;
	default: return (old - 1 - below(g, 4)) & mask;
	}
}

static void put_field(uint8_t *p, uint32_t v, uint32_t size)
{
	for (uint32_t i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

static uint32_t get_field(const uint8_t *p, uint32_t size)
{
	uint32_t v = 0;

	for (uint32_t i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

/* Overwrites 1..4 header fields or random bytes of a valid frame; half the
 * time the checksums are recomputed over the damage so it reaches the later
 * rules. */
static void damage(struct gen *g, uint32_t len, const struct xio_build_layout *lay)
{
	unsigned n = 1 + below(g, chance(g, 70) ? 1 : 4);

	for (unsigned i = 0; i < n; i++) {
		uint32_t off, size;

		if (chance(g, 75)) {
			pick_field(g, lay, &off, &size);
			if (off + size > len)
				continue;
			put_field(g->buf + off, field_value(g, get_field(g->buf + off, size), size), size);
		} else {
			g->buf[below(g, len)] = (uint8_t)rnd(g);
		}
	}
	if (chance(g, 50))
		xio_build_fix(g->buf, lay, (unsigned)below(g, XIO_FIX_ALL + 1) | XIO_FIX_IP_HDR);
}

/* Makes the next frame in g->buf; returns its length and sets *wire to the
 * length on the wire (greater when the capture cut the frame short). */
static uint32_t next_frame(struct gen *g, uint32_t *wire)
{
	struct xio_build_layout lay;
	uint32_t len, kind = below(g, 100);

	if (kind < 10) { /* random bytes: runts, ordinary and jumbo sizes */
		static const uint32_t caps[] = { 64, 1514, MAX_FRAME };

		len = below(g, caps[below(g, 3)] + 1);
		fill_random(g, g->buf, len);
		if (len >= 14 && chance(g, 50)) /* an IP ethertype makes it go deeper */
			put_field(g->buf + 12, chance(g, 50) ? 0x0800 : 0x86dd, 2);
		*wire = len;
		return len;
	}
	len = valid_frame(g, &lay);
	if (len == 0) {
		fprintf(stderr, "xio-hostile-gen: xio_build_frame refused a spec\n");
		exit(1);
	}
	*wire = len;
	if (kind < 35)
		return len; /* as built */
	if (kind < 85) {
		damage(g, len, &lay);
		if (chance(g, 10))
			len = below(g, len);
		return len;
	}
	/* cut short: by the capture (the wire length stays) or on the wire */
	len = chance(g, 50) ? below(g, len) : lay.l3_off + below(g, len - lay.l3_off + 1);
	if (chance(g, 50))
		*wire = len;
	return len;
}

/* --edges: one frame into g->buf, tokens in range but for the one at bad
 * (none when bad >= n), the UDP checksum made wrong when wrong_csum. */
static uint32_t edge_frame(struct gen *g, uint32_t n, uint32_t bad, int wrong_csum, uint32_t k)
{
	static const int32_t in_range[] = { 0, 1, 255, 256, 32767, 32768, 65534, 65535 };
	static const int32_t out[] = { -1, 65536, INT32_MIN, INT32_MAX, -65536, 0x10005, 0x7FFF0000 };
	struct xio_build_layout lay;
	struct xio_build_spec s;
	uint32_t len;

	xio_build_spec_default(&s);
	s.dst_port = g->port;
	s.ipv6 = k % 5 == 3;
	s.udp_csum = wrong_csum || k % 7 != 5;
	for (uint32_t i = 0; i < n; i++)
		g->tokens[i] = i % 3 ? (int32_t)below(g, 65536) : in_range[(i / 3) % 8];
	if (bad < n)
		g->tokens[bad] = out[k % (sizeof(out) / sizeof(out[0]))];
	s.token_count = n;
	s.tokens = g->tokens;
	len = xio_build_frame(&s, g->buf, MAX_FRAME, &lay);
	if (len && wrong_csum)
		g->buf[lay.l4_off + 6 + k % 2] ^= (uint8_t)(1 + k % 255);
	return len;
}

/* --edges: the whole capture (see the header comment). */
static int write_edges(struct gen *g, pcap_dumper_t *d)
{
	static const uint32_t sizes[] = { 0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,
					  12,  13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,
					  24,  25,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,
					  36,  37,  38,  39,  40,  47,  48,  49,  63,  64,  65,  79,
					  80,  95,  96,  97,  127, 128, 129, 255, 256, 257, 364, 1005,
					  1006, 2230 };
	uint32_t k = 0;

	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint32_t n = sizes[z], pos[24], npos = 0;

		if (n <= 17 || n == 31 || n == 32 || n == 33 || n == 39 || n == 40) {
			for (uint32_t p = 0; p < n && npos < 24; p++)
				pos[npos++] = p;
		} else if (n <= 40) {
			pos[npos++] = 0, pos[npos++] = n / 2, pos[npos++] = n - 1;
		} else {
			const uint32_t from_start[] = { 0, 1, 2, 7, 8, 9, 15, 16, 31, 32, 33 };
			const uint32_t from_end[] = { 9, 8, 7, 3, 2, 1 };

			for (size_t i = 0; i < sizeof(from_start) / sizeof(from_start[0]); i++)
				if (from_start[i] < n)
					pos[npos++] = from_start[i];
			pos[npos++] = n / 2;
			for (size_t i = 0; i < sizeof(from_end) / sizeof(from_end[0]); i++)
				if (from_end[i] <= n && n - from_end[i] > 33)
					pos[npos++] = n - from_end[i];
		}
		/* all in range, right and wrong checksum; then each position */
		for (uint32_t f = 0; f < 2 + npos; f++) {
			uint32_t bad = f < 2 ? UINT32_MAX : pos[f - 2];
			int wrong = f == 1 || (f >= 2 && (f + n) % 9 == 0);
			uint32_t len = edge_frame(g, n, bad, wrong, k++);
			struct pcap_pkthdr h;

			if (len == 0) {
				fprintf(stderr, "xio-hostile-gen: xio_build_frame refused an edge frame\n");
				return 1;
			}
			h.ts.tv_sec = 1700000000;
			h.ts.tv_usec = (suseconds_t)k;
			h.caplen = h.len = len;
			pcap_dump((u_char *)d, &h, g->buf);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "udp-port", required_argument, NULL, 'p' },
		{ "min-len", required_argument, NULL, 'm' },
		{ "edges", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	static struct gen g;
	const char *out = NULL;
	unsigned long count = 5000;
	uint32_t min_len = 0;
	pcap_dumper_t *d;
	pcap_t *dead;
	int c, edges = 0;

	g.state = 1;
	g.port = XIO_DEFAULT_UDP_PORT;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': g.state = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'p': g.port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'm': min_len = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'e': edges = 1; break;
		default: out = NULL; optind = argc; break;
		}
	}
	if (!out) {
		fprintf(stderr, "usage: %s --out IN.pcap [--seed S] [--count N] [--udp-port P]"
			" [--min-len N] [--edges]\n", argv[0]);
		return 2;
	}
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(dead, out);
	if (!d) {
		fprintf(stderr, "xio-hostile-gen: %s: %s\n", out, pcap_geterr(dead));
		return 1;
	}
	if (edges) {
		c = write_edges(&g, d);
		pcap_dump_close(d);
		pcap_close(dead);
		return c;
	}
	for (unsigned long i = 0; i < count; i++) {
		struct pcap_pkthdr h;
		uint32_t wire, len = next_frame(&g, &wire);

		if (len < min_len && min_len <= MAX_FRAME) {
			fill_random(&g, g.buf + len, min_len - len);
			len = min_len;
			wire = wire > len ? wire : len;
		}

		h.ts.tv_sec = 1700000000 + (time_t)(i / 1000000);
		h.ts.tv_usec = (suseconds_t)(i % 1000000);
		h.caplen = len;
		h.len = wire;
		pcap_dump((u_char *)d, &h, g.buf);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return 0;
}
