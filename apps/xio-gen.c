/* SPDX-License-Identifier: BSD-3-Clause
 * xio-gen: writes a pcap of XIO v1 READ_REPLY frames carrying a token file
 * (raw little-endian INT32, as numpy.tofile writes it), one stream, frames
 * filling the IP MTU, and optionally injects faults for tests: corrupted,
 * truncated, out-of-range, dropped, duplicated, reordered and foreign frames.
 * The same arguments and --seed always give the same bytes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_build.h"
#include "xio_main.h"
#include "xio_csum.h"
#include "xio_pcap.h"
#include "xio_wire.h"

#define MAX_MTU      9000
#define MAX_FRAME    (14 + 8 + MAX_MTU)
#define ETH_MIN      60          /* shortest Ethernet frame without FCS */
#define TS_BASE_NS   1700000000000000000ull
#define TS_STEP_NS   1000u

enum fault {
	F_NONE = 0,
	F_CORRUPT,
	F_TRUNCATE,
	F_OUT_OF_RANGE,
	F_DROP,
	F_DUPLICATE,
	F_COUNT
};

static const char *const fault_opt[F_COUNT] = {
	[F_CORRUPT] = "corrupt", [F_TRUNCATE] = "truncate", [F_OUT_OF_RANGE] = "out-of-range",
	[F_DROP] = "drop", [F_DUPLICATE] = "duplicate",
};

struct gen_opts {
	const char *tokens_path;
	const char *out_path;
	uint16_t port;
	uint32_t mtu;
	bool ipv6;
	unsigned nvlan;
	uint16_t vlan[2];
	bool crc;
	bool udp_csum;
	uint32_t stream_id;
	uint64_t nfault[F_COUNT];
	bool reorder;
	uint64_t nforeign;
	uint64_t seed;
};

struct gen_frame {
	uint8_t *data;
	uint32_t caplen; /* bytes written to the capture */
	uint32_t len;    /* bytes on the wire */
	uint32_t seq;
	uint64_t first;
	uint32_t count;
	enum fault fault;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s --tokens FILE --out CAP.pcap [options]\n"
		"Writes XIO v1 READ_REPLY frames carrying FILE (raw little-endian INT32\n"
		"tokens) to a pcap file, frames filling the MTU, the last one flagged LAST.\n"
		"\n"
		"  --tokens FILE       token file (size a multiple of 4 bytes)\n"
		"  --out CAP.pcap      capture to write\n"
		"  --port P            UDP destination port (default 7910)\n"
		"  --mtu N             IP MTU, 64..9000 (84.. with --ipv6; default 1500)\n"
		"  --ipv6              IPv6 instead of IPv4\n"
		"  --vlan ID           add an 802.1Q tag (VID 0..4095); twice for QinQ\n"
		"                      (the first is the outer 802.1ad tag)\n"
		"  --crc               set HAS_CRC and carry the payload's CRC32C\n"
		"  --no-udp-csum       send UDP checksum 0 (invalid over IPv6)\n"
		"  --stream ID         stream_id, 0..4294967295 (default 1)\n"
		"Faults (each picks distinct frames carrying tokens, chosen by --seed):\n"
		"  --corrupt N         flip a payload bit in N frames after checksumming\n"
		"  --truncate N        cut N frames short inside the payload (pcap caplen)\n"
		"  --out-of-range N    N frames get one token outside 0..65535 (checksums\n"
		"                      and CRC correct)\n"
		"  --drop N            leave N frames out\n"
		"  --duplicate N       send N frames twice in a row\n"
		"  --reorder           shuffle the order of the frames\n"
		"  --foreign N         interleave N non-XIO frames (ARP, UDP to another\n"
		"                      port, TCP to the XIO port)\n"
		"  --seed S            seed of the fault choices (default 1)\n"
		"  --help              this text\n"
		"  --version           print the version\n"
		"Faulted frames are listed on stderr, then a one-line summary.\n",
		xio_cli_prog());
}

static void parse_args(int argc, char **argv, struct gen_opts *o)
{
	enum { O_TOKENS = 256, O_OUT, O_PORT, O_MTU, O_IPV6, O_VLAN, O_CRC, O_NO_CSUM,
	       O_STREAM, O_CORRUPT, O_TRUNCATE, O_OOR, O_DROP, O_DUP, O_REORDER,
	       O_FOREIGN, O_SEED, O_VERSION, O_HELP };
	static const struct option longopts[] = {
		{ "tokens", required_argument, NULL, O_TOKENS },
		{ "out", required_argument, NULL, O_OUT },
		{ "port", required_argument, NULL, O_PORT },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "ipv6", no_argument, NULL, O_IPV6 },
		{ "vlan", required_argument, NULL, O_VLAN },
		{ "crc", no_argument, NULL, O_CRC },
		{ "no-udp-csum", no_argument, NULL, O_NO_CSUM },
		{ "stream", required_argument, NULL, O_STREAM },
		{ "corrupt", required_argument, NULL, O_CORRUPT },
		{ "truncate", required_argument, NULL, O_TRUNCATE },
		{ "out-of-range", required_argument, NULL, O_OOR },
		{ "drop", required_argument, NULL, O_DROP },
		{ "duplicate", required_argument, NULL, O_DUP },
		{ "reorder", no_argument, NULL, O_REORDER },
		{ "foreign", required_argument, NULL, O_FOREIGN },
		{ "seed", required_argument, NULL, O_SEED },
		{ "version", no_argument, NULL, O_VERSION },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->port = XIO_DEFAULT_UDP_PORT;
	o->mtu = 1500;
	o->udp_csum = true;
	o->stream_id = 1;
	o->seed = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const char *name = c >= O_TOKENS && c <= O_HELP ? longopts[c - O_TOKENS].name : "";

		switch (c) {
		case O_TOKENS: o->tokens_path = optarg; break;
		case O_OUT: o->out_path = optarg; break;
		case O_PORT: o->port = (uint16_t)xio_main_num(name, optarg, 1, 65535); break;
		case O_MTU: o->mtu = (uint32_t)xio_main_num(name, optarg, 1, MAX_MTU); break;
		case O_IPV6: o->ipv6 = true; break;
		case O_VLAN:
			if (o->nvlan == 2)
				xio_main_usage("--vlan given more than twice (at most 2 tags)");
			o->vlan[o->nvlan++] = (uint16_t)xio_main_num(name, optarg, 0, 4095);
			break;
		case O_CRC: o->crc = true; break;
		case O_NO_CSUM: o->udp_csum = false; break;
		case O_STREAM: o->stream_id = (uint32_t)xio_main_num(name, optarg, 0, UINT32_MAX); break;
		case O_CORRUPT: o->nfault[F_CORRUPT] = xio_main_num(name, optarg, 0, UINT32_MAX); break;
		case O_TRUNCATE: o->nfault[F_TRUNCATE] = xio_main_num(name, optarg, 0, UINT32_MAX); break;
		case O_OOR: o->nfault[F_OUT_OF_RANGE] = xio_main_num(name, optarg, 0, UINT32_MAX); break;
		case O_DROP: o->nfault[F_DROP] = xio_main_num(name, optarg, 0, UINT32_MAX); break;
		case O_DUP: o->nfault[F_DUPLICATE] = xio_main_num(name, optarg, 0, UINT32_MAX); break;
		case O_REORDER: o->reorder = true; break;
		case O_FOREIGN: o->nforeign = xio_main_num(name, optarg, 0, 1000000); break;
		case O_SEED: o->seed = xio_main_num(name, optarg, 0, UINT64_MAX); break;
		case O_VERSION: xio_main_version();
		case O_HELP: usage(stdout); exit(0);
		case ':': xio_main_usage("option '%s' needs a value", argv[optind - 1]);
		default: xio_main_usage("unknown or ambiguous option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		xio_main_usage("unexpected argument '%s'", argv[optind]);
	if (!o->tokens_path)
		xio_main_usage("--tokens FILE is required");
	if (!o->out_path)
		xio_main_usage("--out CAP.pcap is required");
}

/* splitmix64: small, seedable, the same on every host. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return rng_next(s) % n;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xio_main_fail("out of memory (%zu bytes)", n);
	return p;
}

/* Reads the token file; returns the token count. */
static size_t read_tokens(const char *path, int32_t **out)
{
	FILE *f = fopen(path, "rb");
	long size;
	int32_t *t;
	size_t n;

	if (!f)
		xio_main_fail("%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		xio_main_fail("%s: cannot read: %s", path, strerror(errno));
	if (size % 4)
		xio_main_fail("%s: size %ld is not a multiple of 4 (expected raw little-endian INT32 tokens)",
			     path, size);
	n = (size_t)size / 4;
	t = xmalloc((size_t)size);
	if (fread(t, 4, n, f) != n)
		xio_main_fail("%s: short read", path);
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *b = (const uint8_t *)&t[i];

		t[i] = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				 (uint32_t)b[3] << 24);
	}
	*out = t;
	return n;
}

/* The frame template every frame of the stream starts from. */
static void base_spec(const struct gen_opts *o, struct xio_build_spec *s)
{
	xio_build_spec_default(s);
	if (o->ipv6) {
		static const uint8_t src6[16] = { 0xfd, [15] = 1 };
		static const uint8_t dst6[16] = { 0xfd, [15] = 2 };

		s->ipv6 = true;
		memcpy(s->src_ip, src6, 16);
		memcpy(s->dst_ip, dst6, 16);
	}
	s->nvlan = o->nvlan;
	for (unsigned i = 0; i < o->nvlan; i++) {
		s->vlan_tpid[i] = o->nvlan == 2 && i == 0 ? 0x88A8 : 0x8100;
		s->vlan_tci[i] = o->vlan[i];
	}
	s->dst_port = o->port;
	s->udp_csum = o->udp_csum;
	s->flags = o->crc ? XIO_F_HAS_CRC : 0;
	s->stream_id = o->stream_id;
}

static uint32_t tokens_per_frame(const struct gen_opts *o)
{
	uint32_t ip_hdr = o->ipv6 ? 40 : 20;
	uint32_t min_mtu = ip_hdr + 8 + XIO_HDR_LEN + 4;

	if (o->mtu < min_mtu) {
		xio_main_usage("--mtu %u: too small to carry one token over %s (minimum %u)", o->mtu,
			  o->ipv6 ? "IPv6" : "IPv4", min_mtu);
	}
	return (o->mtu - ip_hdr - 8 - XIO_HDR_LEN) / 4;
}

/* Gives back the part of a frame's MAX_FRAME buffer it does not use. */
static void shrink(struct gen_frame *f)
{
	uint8_t *p = realloc(f->data, f->len);

	if (p)
		f->data = p;
}

/* Cuts the stream into frames of per tokens, the last one shorter. */
static void split_stream(struct gen_frame *fr, size_t nfr, size_t ntok, uint32_t per)
{
	for (size_t i = 0; i < nfr; i++) {
		fr[i].seq = (uint32_t)i;
		fr[i].first = (uint64_t)i * per;
		fr[i].count = (uint32_t)(ntok - fr[i].first < per ? ntok - fr[i].first : per);
	}
}

/* Picks distinct frames carrying tokens for each fault. */
static void assign_faults(const struct gen_opts *o, struct gen_frame *fr, size_t nfr,
			  uint64_t *rng)
{
	size_t *idx = xmalloc(nfr * sizeof(*idx));
	size_t nidx = 0, want = 0, k = 0;

	for (size_t i = 0; i < nfr; i++)
		if (fr[i].count)
			idx[nidx++] = i;
	for (int f = F_CORRUPT; f < F_COUNT; f++)
		want += o->nfault[f];
	if (want > nidx) {
		xio_main_usage("the faults ask for %zu distinct frames but the stream has %zu frames carrying tokens",
			  want, nidx);
	}
	for (size_t i = nidx; i > 1; i--) { /* Fisher-Yates */
		size_t j = rng_below(rng, i), t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
	for (int f = F_CORRUPT; f < F_COUNT; f++)
		for (uint64_t n = 0; n < o->nfault[f]; n++)
			fr[idx[k++]].fault = (enum fault)f;
	free(idx);
}

static int32_t out_of_range_value(uint64_t *rng)
{
	uint64_t r = rng_next(rng);
	int32_t mag = (int32_t)((r >> 1) % 1000000);

	return r & 1 ? -1 - mag : 65536 + mag;
}

/* Builds the stream's frames, applying the faults that change bytes. */
static void build_stream(const struct gen_opts *o, const int32_t *tok, struct gen_frame *fr,
			 size_t nfr, uint32_t per, uint64_t *rng)
{
	int32_t *tmp = xmalloc(per * sizeof(*tmp));
	struct xio_build_spec s;
	struct xio_build_layout lay;

	base_spec(o, &s);
	for (size_t i = 0; i < nfr; i++) {
		struct gen_frame *f = &fr[i];

		s.seq = f->seq;
		s.first_token = f->first;
		s.token_count = f->count;
		s.tokens = tok + f->first;
		s.flags = (uint8_t)((o->crc ? XIO_F_HAS_CRC : 0) | (i == nfr - 1 ? XIO_F_LAST : 0));
		s.ip_id = (uint16_t)i;
		if (f->fault == F_OUT_OF_RANGE) {
			memcpy(tmp, s.tokens, f->count * sizeof(*tmp));
			tmp[rng_below(rng, f->count)] = out_of_range_value(rng);
			s.tokens = tmp;
		}
		f->data = xmalloc(MAX_FRAME);
		f->len = f->caplen = xio_build_frame(&s, f->data, MAX_FRAME, &lay);
		if (!f->len)
			xio_main_fail("internal error: frame %zu cannot be built", i);
		shrink(f);
		if (f->fault == F_CORRUPT)
			f->data[lay.payload_off + rng_below(rng, lay.payload_len)] ^=
				(uint8_t)(1u << rng_below(rng, 8));
		else if (f->fault == F_TRUNCATE)
			f->caplen = lay.payload_off + (uint32_t)rng_below(rng, lay.payload_len);
	}
	free(tmp);
}

static void put_tcp_csum(uint8_t *buf, const struct xio_build_layout *lay)
{
	uint32_t seg_len = lay->ip_end - lay->l4_off;
	uint64_t sum;

	if (lay->ipv6)
		sum = xio_csum_add(0, buf + lay->l3_off + 8, 32);
	else
		sum = xio_csum_add(0, buf + lay->l3_off + 12, 8);
	sum += 6 + seg_len;
	xio_put_be16(buf + lay->l4_off + 16, 0);
	sum = xio_csum_add(sum, buf + lay->l4_off, seg_len);
	xio_put_be16(buf + lay->l4_off + 16, (uint16_t)~xio_csum_fold(sum));
}

/* Foreign frame k: ARP request, UDP to another port, or TCP to the XIO port. */
static void build_foreign(const struct gen_opts *o, struct gen_frame *f, uint64_t k)
{
	static const int32_t filler[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct xio_build_spec s;
	struct xio_build_layout lay;
	uint8_t *p;

	base_spec(o, &s);
	f->data = xmalloc(MAX_FRAME);
	f->fault = F_NONE;
	s.ip_id = (uint16_t)(0x8000 + k);
	s.pad_to = ETH_MIN;
	switch (k % 3) {
	case 0: /* ARP who-has dst_ip tell src_ip, broadcast */
		p = f->data;
		memset(p, 0xff, 6);
		memcpy(p + 6, s.src_mac, 6);
		p += 12;
		for (unsigned i = 0; i < s.nvlan; i++, p += 4) {
			xio_put_be16(p, s.vlan_tpid[i]);
			xio_put_be16(p + 2, s.vlan_tci[i]);
		}
		xio_put_be16(p, 0x0806);
		xio_put_be16(p + 2, 1);      /* Ethernet */
		xio_put_be16(p + 4, 0x0800); /* IPv4 */
		p[6] = 6;
		p[7] = 4;
		xio_put_be16(p + 8, 1);      /* request */
		memcpy(p + 10, s.src_mac, 6);
		memcpy(p + 16, (const uint8_t[]){ 10, 0, 0, 1 }, 4);
		memset(p + 20, 0, 6);
		memcpy(p + 26, (const uint8_t[]){ 10, 0, 0, 2 }, 4);
		p += 30;
		f->len = (uint32_t)(p - f->data) < ETH_MIN ? ETH_MIN : (uint32_t)(p - f->data);
		memset(p, 0, f->len - (uint32_t)(p - f->data));
		break;
	case 1: /* an XIO-looking datagram to the next port: not for the pipeline */
		s.dst_port = o->port == 65535 ? 65534 : (uint16_t)(o->port + 1);
		s.stream_id = o->stream_id + 1;
		s.token_count = 8;
		s.tokens = filler;
		f->len = xio_build_frame(&s, f->data, MAX_FRAME, &lay);
		break;
	default: /* TCP ACK to the XIO port, 20 bytes of data */
		f->len = xio_build_frame(&s, f->data, MAX_FRAME, &lay);
		p = f->data + lay.l4_off;
		xio_put_be16(p, 49152);
		xio_put_be16(p + 2, o->port);
		xio_put_be32(p + 4, (uint32_t)(1000 + k));
		xio_put_be32(p + 8, 1);
		p[12] = 5 << 4;              /* data offset: 20 bytes */
		p[13] = 0x18;                /* PSH, ACK */
		xio_put_be16(p + 14, 65535); /* window */
		xio_put_be16(p + 18, 0);     /* urgent pointer */
		memcpy(p + 20, "xio-gen foreign TCP.", 20);
		f->data[lay.l3_off + (lay.ipv6 ? 6 : 9)] = 6;
		put_tcp_csum(f->data, &lay);
		xio_build_fix(f->data, &lay, XIO_FIX_IP_HDR);
		break;
	}
	f->caplen = f->len;
	shrink(f);
}

static void report_faults(const struct gen_frame *fr, size_t nfr)
{
	for (size_t i = 0; i < nfr; i++)
		if (fr[i].fault != F_NONE)
			fprintf(stderr, "%s: %s seq %u tokens %llu-%llu\n", xio_cli_prog(), fault_opt[fr[i].fault],
				fr[i].seq, (unsigned long long)fr[i].first,
				(unsigned long long)(fr[i].first + fr[i].count - 1));
}

/* The order frames go out: drops left out, duplicates twice, optionally
 * shuffled, then foreign frames (indices >= nfr) spread over random gaps. */
static size_t make_order(const struct gen_opts *o, const struct gen_frame *fr, size_t nfr,
			 size_t *order, uint64_t *rng)
{
	size_t *xio = xmalloc(2 * nfr * sizeof(*xio));
	size_t *gap_foreign;
	size_t n = 0, out = 0, next_foreign = nfr;

	for (size_t i = 0; i < nfr; i++) {
		if (fr[i].fault == F_DROP)
			continue;
		xio[n++] = i;
		if (fr[i].fault == F_DUPLICATE)
			xio[n++] = i;
	}
	if (o->reorder)
		for (size_t i = n; i > 1; i--) {
			size_t j = rng_below(rng, i), t = xio[i - 1];

			xio[i - 1] = xio[j];
			xio[j] = t;
		}
	/* gap g lies before XIO frame g (gap n: after the last) */
	gap_foreign = calloc(n + 1, sizeof(*gap_foreign));
	if (!gap_foreign)
		xio_main_fail("out of memory");
	for (uint64_t k = 0; k < o->nforeign; k++)
		gap_foreign[rng_below(rng, n + 1)]++;
	for (size_t g = 0; g <= n; g++) {
		for (size_t k = 0; k < gap_foreign[g]; k++)
			order[out++] = next_foreign++;
		if (g < n)
			order[out++] = xio[g];
	}
	free(gap_foreign);
	free(xio);
	return out;
}

int main(int argc, char **argv)
{
	struct gen_opts o;
	char err[XIO_PCAP_ERRLEN];
	struct xio_pcap_writer *w;
	struct gen_frame *fr;
	int32_t *tok;
	size_t ntok, nfr, nout, *order;
	uint64_t rng, bytes = 0, xio_out = 0;
	uint32_t per;

	xio_cli_init(argv[0]);
	parse_args(argc, argv, &o);
	per = tokens_per_frame(&o);
	if (!o.udp_csum && o.ipv6)
		fprintf(stderr, "%s: note: --no-udp-csum over IPv6 makes every frame invalid (bad_udp_csum)\n",
			xio_cli_prog());
	ntok = read_tokens(o.tokens_path, &tok);
	nfr = ntok ? (ntok + per - 1) / per : 1; /* no tokens: one empty LAST frame */
	fr = calloc(nfr + o.nforeign, sizeof(*fr));
	order = xmalloc((2 * nfr + o.nforeign) * sizeof(*order));
	if (!fr)
		xio_main_fail("out of memory");
	rng = o.seed;
	split_stream(fr, nfr, ntok, per);
	assign_faults(&o, fr, nfr, &rng);
	build_stream(&o, tok, fr, nfr, per, &rng);
	for (uint64_t k = 0; k < o.nforeign; k++)
		build_foreign(&o, &fr[nfr + k], k);
	nout = make_order(&o, fr, nfr, order, &rng);

	w = xio_pcap_open_write(o.out_path, false, err, sizeof(err));
	if (!w)
		xio_main_fail("%s", err);
	for (size_t i = 0; i < nout; i++) {
		const struct gen_frame *f = &fr[order[i]];

		if (xio_pcap_write(w, f->data, f->caplen, f->len, TS_BASE_NS + i * TS_STEP_NS, err,
				   sizeof(err)))
			xio_main_fail("%s", err);
		bytes += f->caplen;
		xio_out += order[i] < nfr;
	}
	if (xio_pcap_close_write(w, err, sizeof(err)))
		xio_main_fail("%s", err);
	report_faults(fr, nfr);
	if (o.reorder)
		fprintf(stderr, "%s: reorder: %llu XIO frames shuffled\n", xio_cli_prog(),
			(unsigned long long)xio_out);
	fprintf(stderr, "%s: %s: %zu frames (%llu XIO, %llu foreign), %zu tokens, %llu bytes; up to %u tokens a frame\n",
		xio_cli_prog(), o.out_path, nout, (unsigned long long)xio_out, (unsigned long long)o.nforeign,
		ntok, (unsigned long long)bytes, per);
	for (size_t i = 0; i < nfr + o.nforeign; i++)
		free(fr[i].data);
	free(fr);
	free(order);
	free(tok);
	return 0;
}
