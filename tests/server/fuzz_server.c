/* SPDX-License-Identifier: BSD-3-Clause
 * fuzz_server.c: the libFuzzer target over xio-server's request handler
 * (server/xio_srv_handle.c with the real path confinement, open-file cache
 * and train builder) on the tree of srv_tree.h, made at start: four files
 * served, two links to them inside the root, links out of it, a FIFO, a
 * directory, a loop and a dangling link, and files outside.
 *
 * One input is one request datagram behind a 1-byte prefix: bits 0-1 the
 * payload budget (1440, 1408, 8928 or 4 bytes: IPv4 and IPv6 at MTU 1500,
 * 9000, the smallest MTU), bit 2 a train buffer of two datagrams (so trains
 * span batches), bit 3 address validation on (a fixed secret and time, so
 * runs repeat), bit 4 the request's cookie replaced by the valid one (so
 * that inputs reach past the cookie check), bit 5 the peer 127.0.0.1
 * instead of ::1. Properties, any violation aborts: the answer kind is what
 * xio_request_parse() says (nothing for IGNORE, bad_request for BAD); every
 * single answer is a well-formed ERROR_REPLY or STAT_REPLY to the request's
 * stream, at most three times the request's bytes; with validation a READ
 * without the valid cookie gets ERROR_REPLY cookie and opens no file, and a
 * STAT_REPLY carries the peer's cookie; a STAT_REPLY or READ answer only
 * for a path naming a file of the root, with its size; the file a READ
 * answer reads is, by device and inode, a regular file of the root; and
 * every datagram of the train holds exactly the range asked for, cut at the
 * end of the file, in order, with the right flags, CRC and bytes.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xio_crc.h"
#include "srv_tree.h"
#include "xio_srv_handle.h"

/* Every path that names a served file (srv_tree_files[file]); anything
 * else must fail. */
static const struct {
	const char *path;
	unsigned file;
} known[] = {
	{ "tokens.bin", 0 }, { "odd.bin", 1 }, { "empty", 2 }, { "dir/nested.bin", 3 },
	{ "link-in", 0 },    { "dir/link-up", 0 },
};

static struct srv_tree tree;
static struct stat served[4]; /* device and inode of srv_tree_files[] */
static struct xio_srv_files cache;
static struct xio_srv_train trains[2];
static struct xio_srv_cookie cookie; /* a fixed secret */
static struct xio_srv_cookie_keys keys;
static struct sockaddr_in peer4 = { .sin_family = AF_INET, .sin_port = 0x3930 };
static struct sockaddr_in6 peer6 = { .sin6_family = AF_INET6, .sin6_port = 0x3930 };

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_server: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static void remove_tree(void)
{
	xio_srv_files_fini(&cache);
	if (srv_tree_remove(&tree) < 0)
		fprintf(stderr, "fuzz_server: cannot remove %s\n", tree.top);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[256];

	srv_tree_make(&tree, "fuzz");
	for (unsigned i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", tree.root, srv_tree_files[i].name);
		if (stat(path, &served[i]) < 0)
			die("stat", path);
	}
	xio_srv_cookie_init_secret(&cookie, (const uint8_t *)"fuzz_server", 11, 60);
	xio_srv_cookie_keys_init(&keys, &cookie);
	xio_srv_cookie_keys_at(&keys, 1700000000ull * 1000000000ull);
	peer4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	peer6.sin6_addr = in6addr_loopback;
	if (xio_srv_files_init(&cache, tree.rootfd, 4) < 0 ||
	    xio_srv_train_init(&trains[0], XIO_SRV_TRAIN_BYTES) < 0)
		die("setup", tree.root);
	atexit(remove_tree);
	return 0;
}

/* The served file a request path names, or -1. */
static int lookup(const struct xio_request *q)
{
	for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].path) == q->path_len &&
		    memcmp(known[i].path, q->path, q->path_len) == 0)
			return (int)known[i].file;
	return -1;
}

static void check_reply(const struct xio_request *q, int file, const uint8_t *out,
			const struct xio_srv_answer *a, size_t req_len, const uint8_t *want_cookie)
{
	struct xio_hdr h;
	uint64_t size, mtime;
	uint32_t code, mlen;
	const char *msg;
	const uint8_t *ck;

	if (a->len == 0 || a->len > XIO_SRV_REPLY_MAX || a->len % 4 || a->len > 3 * req_len ||
	    xio_hdr_parse(out, a->len, &h) < 0 || h.stream_id != q->hdr.stream_id ||
	    h.flags != XIO_F_LAST || h.seq != 0 || h.token_count != 0 || h.hdr_len != XIO_HDR_LEN)
		die("single answer not well formed", NULL);
	if (h.opcode == XIO_OP_ERROR_REPLY) {
		if (xio_error_parse(out, a->len, &h, &code, &msg, &mlen) < 0 || code != a->error ||
		    code < 1 || code > XIO_E_COOKIE || h.dtype != 0 || h.first_token != q->hdr.first_token)
			die("ERROR_REPLY not well formed", NULL);
		if (file >= 0 && code != XIO_E_COOKIE) { /* cookie: checked by the caller */
			uint64_t fsize = srv_tree_files[file].size;
			bool raw = q->options & XIO_OPT_RAW;
			bool read = q->hdr.opcode == XIO_OP_READ_REQUEST;
			bool not_tokens = read && !raw && fsize % 4;
			bool range = read && !not_tokens && q->hdr.first_token >= (raw ? fsize : fsize / 4);

			if (code == XIO_E_NOT_TOKENS ? !not_tokens : code == XIO_E_RANGE ? !range : true)
				die("a served file refused", xio_err_name(code));
		}
		return;
	}
	if (h.opcode != XIO_OP_STAT_REPLY || a->error || q->hdr.opcode != XIO_OP_STAT_REQUEST)
		die("single answer neither ERROR_REPLY nor the STAT_REPLY of a STAT", NULL);
	if (file < 0)
		die("STAT_REPLY for a path that names no served file", NULL);
	if (xio_stat_reply_parse(out, a->len, &h, &size, &mtime) < 0 ||
	    size != srv_tree_files[file].size || h.first_token != size / 4 ||
	    h.dtype != (size % 4 ? 0 : XIO_DT_INT32))
		die("STAT_REPLY with the wrong size", srv_tree_files[file].name);
	ck = xio_stat_reply_cookie(out, a->len, &h);
	if (want_cookie ? !ck || memcmp(ck, want_cookie, XIO_COOKIE_LEN) || !a->cookie
			: ck || a->cookie)
		die("STAT_REPLY with the wrong cookie, or one without validation", NULL);
}

static void check_train(const struct xio_request *q, int file, struct xio_srv_train *t,
			const struct xio_srv_read *r, uint32_t payload_max)
{
	const struct srv_tree_file *f = file >= 0 ? &srv_tree_files[file] : NULL;
	bool raw = q->options & XIO_OPT_RAW;
	uint64_t units = f ? (raw ? f->size : f->size / 4) : 0, width = raw ? 1 : 4;
	uint64_t end, at = q->hdr.first_token, seq = 0, per = payload_max / width;
	struct xio_srv_batch b;
	struct stat st;
	int n;

	if (fstat(r->fd, &st) < 0 || !f || st.st_dev != served[file].st_dev ||
	    st.st_ino != served[file].st_ino)
		die("READ answer from a file that is not the served one its path names", NULL);
	if (q->max_count && q->max_count < per)
		per = q->max_count;
	end = units - at < q->hdr.token_count ? units : at + q->hdr.token_count;
	if (at >= units || (!raw && f->size % 4) || r->first != at || r->end != end || r->per != per)
		die("READ answer for the wrong range", f->name);
	while ((n = xio_srv_train_fill(t, r, seq, &b)) > 0) {
		for (int i = 0; i < n; i++, seq++) {
			const uint8_t *d = b.buf + (size_t)i * b.slot;
			size_t len = i + 1 < n ? b.slot : b.last_len;
			uint64_t cnt = end - at < per ? end - at : per;
			struct xio_hdr h;

			if (xio_hdr_parse(d, len, &h) < 0 || h.seq != seq || h.first_token != at ||
			    h.token_count != cnt || len != XIO_HDR_LEN + cnt * width ||
			    h.stream_id != q->hdr.stream_id ||
			    h.opcode != (raw ? XIO_OP_DATA_REPLY : XIO_OP_READ_REPLY) ||
			    h.dtype != (raw ? 0 : XIO_DT_INT32) ||
			    h.flags != ((at + cnt == end ? XIO_F_LAST : 0) |
					(q->options & XIO_OPT_CRC ? XIO_F_HAS_CRC : 0)) ||
			    h.payload_crc != (q->options & XIO_OPT_CRC
						      ? xio_crc32c(d + XIO_HDR_LEN, len - XIO_HDR_LEN) : 0))
				die("answer datagram header", f->name);
			for (uint64_t k = 0; k < len - XIO_HDR_LEN; k++)
				if (d[XIO_HDR_LEN + k] != srv_tree_byte(f->salt, at * width + k))
					die("answer datagram bytes", f->name);
			at += cnt;
		}
	}
	if (n < 0 || at != end)
		die("train ended short", f->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t budgets[4] = { 1440, 1408, 8928, 4 };
	uint8_t out[XIO_SRV_REPLY_MAX];
	struct xio_srv_answer a;
	struct xio_srv_train *t = &trains[0];
	struct xio_request q;
	enum xio_req_verdict v;
	uint32_t payload_max;
	uint8_t *dg, valid[XIO_COOKIE_LEN];
	const struct xio_srv_cookie_keys *k = data[0] & 8 ? &keys : NULL;
	const struct sockaddr *peer;
	uint64_t touched;
	bool admitted;
	int file;

	if (size < 1)
		return 0;
	payload_max = budgets[data[0] & 3];
	/* the datagram in its own exactly-sized buffer, for ASan */
	dg = malloc(size - 1 ? size - 1 : 1);
	memcpy(dg, data + 1, size - 1);
	peer = data[0] & 32 ? (const struct sockaddr *)&peer4 : (const struct sockaddr *)&peer6;
	xio_srv_cookie_make(&keys, peer, valid);
	v = xio_request_parse(dg, size - 1, &q, NULL);
	if ((data[0] & 16) && v == XIO_REQ_OK && q.cookie)
		memcpy(dg + (q.cookie - dg), valid, XIO_COOKIE_LEN);
	/* a READ the server must refuse: no valid cookie under validation */
	admitted = !k || q.hdr.opcode != XIO_OP_READ_REQUEST ||
		   (q.cookie && memcmp(q.cookie, valid, XIO_COOKIE_LEN) == 0);
	touched = cache.opens + cache.hits;
	xio_srv_handle(&cache, k, peer, payload_max, dg, size - 1, out, &a);
	if (v == XIO_REQ_OK && !admitted &&
	    (a.kind != XIO_SRV_REPLY || a.error != XIO_E_COOKIE || cache.opens + cache.hits != touched))
		die("a READ without a valid cookie got more than ERROR_REPLY cookie", NULL);
	if (v == XIO_REQ_OK && admitted && a.error == XIO_E_COOKIE)
		die("a valid cookie refused", NULL);
	if ((v == XIO_REQ_IGNORE) != (a.kind == XIO_SRV_NONE))
		die("answered a datagram the spec never answers, or the reverse", NULL);
	if (v == XIO_REQ_BAD && (a.kind != XIO_SRV_REPLY || a.error != XIO_E_BAD_REQUEST))
		die("a bad request without bad_request", NULL);
	file = v == XIO_REQ_OK ? lookup(&q) : -1;
	if (a.kind == XIO_SRV_REPLY)
		check_reply(&q, file, out, &a, size - 1, k ? valid : NULL);
	if (a.kind == XIO_SRV_READ) {
		if (data[0] & 4) {
			trains[1].cap = 2 * (XIO_HDR_LEN + payload_max) + 1;
			trains[1].buf = realloc(trains[1].buf, trains[1].cap);
			t = &trains[1];
		}
		check_train(&q, file, t, &a.read, payload_max);
	}
	free(dg);
	return 0;
}
