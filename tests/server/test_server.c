/* SPDX-License-Identifier: BSD-3-Clause
 * test_server.c: the modules of server/ on a real directory tree and real
 * loopback sockets: path confinement (".." , absolute, NUL, symbolic links
 * out of the root, a directory, a FIFO, a dangling link), the open-file
 * cache (a hot file opened once, a replaced file seen, bounded), every
 * ERROR_REPLY code where the spec puts it, chunking of READ answers (every
 * datagram's header and bytes for odd sizes, max_count, both families, MTU
 * 9000, RAW, CRC, batches cut anywhere), a read cut at the end of the file,
 * the allow list, the --rate bucket, and a train sent by UDP GSO and by
 * plain sendmmsg to a loopback socket.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xio_crc.h"
#include "xio_srv_allow.h"
#include "xio_srv_files.h"
#include "xio_srv_handle.h"
#include "xio_srv_pace.h"
#include "xio_srv_sock.h"
#include "xio_srv_worker.h"
#include "srv_tree.h"
#include "xio_unit.h"

#define PORT_BASE 21100 /* tests/server.mk's loopback ports: 21100..21109 */

static struct srv_tree tree;
static const char *rootp; /* tree.root */
static int rootfd = -1;

static int setup(void)
{
	srv_tree_make(&tree, "unit");
	rootp = tree.root;
	rootfd = tree.rootfd;
	return 0;
}

static int cleanup(void)
{
	return srv_tree_remove(&tree);
}

/* One request through xio_srv_handle with a fresh cache. */
struct call {
	struct xio_srv_files files;
	struct xio_srv_answer a;
	uint8_t out[XIO_SRV_REPLY_MAX];
	uint8_t dg[2048];
	size_t len;
};

static void call_init(struct call *c, unsigned cap)
{
	memset(c, 0, sizeof(*c));
	xio_srv_files_init(&c->files, rootfd, cap);
}

static void call_req(struct call *c, uint8_t op, uint32_t sid, uint64_t first, uint32_t count,
		     uint16_t max_count, uint8_t options, const char *path, size_t plen,
		     uint32_t payload_max)
{
	c->len = xio_request_build(c->dg, sizeof(c->dg), op, sid, first, count, max_count, options,
				   path, plen);
	xio_srv_handle(&c->files, NULL, NULL, payload_max, c->dg, c->len, c->out, &c->a);
}

/* The answer must be ERROR_REPLY code, exactly as the spec lays it out. */
static bool check_error(struct call *c, uint32_t code, const char *what)
{
	struct xio_hdr h;
	uint32_t got, mlen;
	const char *msg;

	if (!XIO_CHECK(c->a.kind == XIO_SRV_REPLY && c->a.error == code,
		       "%s: kind %d error %u, expected ERROR_REPLY %s", what, c->a.kind, c->a.error,
		       xio_err_name(code)))
		return false;
	XIO_CHECK(xio_hdr_parse(c->out, c->a.len, &h) == 0 && h.opcode == XIO_OP_ERROR_REPLY &&
		  h.flags == XIO_F_LAST && h.seq == 0 && h.dtype == 0 && h.token_count == 0 &&
		  h.stream_id == xio_be32(c->dg + 8) && h.first_token == xio_be64(c->dg + 16),
		  "%s: ERROR_REPLY header", what);
	XIO_CHECK(xio_error_parse(c->out, c->a.len, &h, &got, &msg, &mlen) == 0 && got == code &&
		  mlen > 0 && c->a.len % 4 == 0, "%s: ERROR_REPLY body", what);
	return true;
}

static void expect_error(uint8_t op, const char *path, size_t plen, uint64_t first,
			 uint32_t code)
{
	struct call c;
	char what[128];

	call_init(&c, 4);
	call_req(&c, op, 0xABCD0000u + code, first, op == XIO_OP_READ_REQUEST ? 10 : 0, 0, 0, path,
		 plen, 1440);
	snprintf(what, sizeof(what), "%s '%.*s'", op == XIO_OP_READ_REQUEST ? "READ" : "STAT",
		 (int)plen, path);
	check_error(&c, code, what);
	xio_srv_files_fini(&c.files);
}

#define EXPECT_ERROR(path, code) do { \
	expect_error(XIO_OP_READ_REQUEST, path, sizeof(path) - 1, 0, code); \
	expect_error(XIO_OP_STAT_REQUEST, path, sizeof(path) - 1, 0, code); } while (0)

static void test_confine_dotdot(void)
{
	EXPECT_ERROR("../outside.bin", XIO_E_ACCESS);
	EXPECT_ERROR("dir/../tokens.bin", XIO_E_ACCESS);
	EXPECT_ERROR("dir/../../outside.bin", XIO_E_ACCESS);
	EXPECT_ERROR("..", XIO_E_ACCESS);
	EXPECT_ERROR("./tokens.bin", XIO_E_ACCESS);
	EXPECT_ERROR("dir/./nested.bin", XIO_E_ACCESS);
	EXPECT_ERROR("dir//nested.bin", XIO_E_ACCESS);
	EXPECT_ERROR("dir/nested.bin/", XIO_E_ACCESS);
}

static void test_confine_absolute(void)
{
	char path[256];

	EXPECT_ERROR("/etc/passwd", XIO_E_ACCESS);
	snprintf(path, sizeof(path), "%s/tokens.bin", rootp); /* the root's own file, absolute */
	expect_error(XIO_OP_READ_REQUEST, path, strlen(path), 0, XIO_E_ACCESS);
	EXPECT_ERROR("/", XIO_E_ACCESS);
}

static void test_confine_nul(void)
{
	EXPECT_ERROR("tokens.bin\0", XIO_E_ACCESS);
	EXPECT_ERROR("tok\0ens.bin", XIO_E_ACCESS);
	EXPECT_ERROR("\0", XIO_E_ACCESS);
}

static void test_confine_symlinks(void)
{
	EXPECT_ERROR("link-out", XIO_E_ACCESS);          /* ../outside.bin */
	EXPECT_ERROR("link-abs", XIO_E_ACCESS);          /* absolute target outside */
	EXPECT_ERROR("link-dir-out/secret.bin", XIO_E_ACCESS); /* through a dir link out */
	EXPECT_ERROR("link-proc", XIO_E_ACCESS);         /* /proc magic link */
	EXPECT_ERROR("link-loop", XIO_E_ACCESS);
	EXPECT_ERROR("dangling", XIO_E_NOT_FOUND);       /* inside, to nothing */
}

static void expect_stat(const char *path, uint64_t size)
{
	struct call c;
	struct xio_hdr h;
	uint64_t got = 0, mtime = 0;

	call_init(&c, 4);
	call_req(&c, XIO_OP_STAT_REQUEST, 77, 0, 0, 0, 0, path, strlen(path), 1440);
	if (XIO_CHECK(c.a.kind == XIO_SRV_REPLY && c.a.error == 0, "STAT %s: error %s", path,
		      xio_err_name(c.a.error))) {
		XIO_CHECK(xio_hdr_parse(c.out, c.a.len, &h) == 0 && h.opcode == XIO_OP_STAT_REPLY &&
			  h.stream_id == 77 && h.flags == XIO_F_LAST &&
			  xio_stat_reply_parse(c.out, c.a.len, &h, &got, &mtime) == 0 &&
			  got == size && h.first_token == size / 4 &&
			  h.dtype == (size % 4 ? 0 : XIO_DT_INT32) && mtime > 0,
			  "STAT %s: size %llu, expected %llu", path, (unsigned long long)got,
			  (unsigned long long)size);
	}
	xio_srv_files_fini(&c.files);
}

static void test_confine_inside(void)
{
	expect_stat("tokens.bin", 4000);
	expect_stat("odd.bin", 4001);
	expect_stat("empty", 0);
	expect_stat("dir/nested.bin", 1444);
	expect_stat("link-in", 4000);     /* a link that stays inside */
	expect_stat("dir/link-up", 4000); /* "..", through a link, staying inside */
}

static void test_not_regular(void)
{
	EXPECT_ERROR("dir", XIO_E_ACCESS);
	EXPECT_ERROR("fifo", XIO_E_ACCESS); /* and did not wait for a writer */
	EXPECT_ERROR("missing.bin", XIO_E_NOT_FOUND);
	EXPECT_ERROR("dir/missing.bin", XIO_E_NOT_FOUND);
	EXPECT_ERROR("tokens.bin/x", XIO_E_NOT_FOUND);
}

static void test_error_codes(void)
{
	struct call c;

	call_init(&c, 4);
	/* range: first_token at the end, and past it; RAW counts bytes */
	call_req(&c, XIO_OP_READ_REQUEST, 1, 1000, 1, 0, 0, "tokens.bin", 10, 1440);
	check_error(&c, XIO_E_RANGE, "first_token 1000 of 1000");
	call_req(&c, XIO_OP_READ_REQUEST, 1, ~0ull, 16777216, 0, 0, "tokens.bin", 10, 1440);
	check_error(&c, XIO_E_RANGE, "first_token 2^64-1");
	call_req(&c, XIO_OP_READ_REQUEST, 1, 4001, 1, 0, XIO_OPT_RAW, "odd.bin", 7, 1440);
	check_error(&c, XIO_E_RANGE, "RAW byte 4001 of 4001");
	call_req(&c, XIO_OP_READ_REQUEST, 1, 0, 1, 0, 0, "empty", 5, 1440);
	check_error(&c, XIO_E_RANGE, "empty file");
	/* not_tokens: a token read of 4001 bytes, whatever the range */
	call_req(&c, XIO_OP_READ_REQUEST, 1, 0, 1, 0, XIO_OPT_CRC, "odd.bin", 7, 1440);
	check_error(&c, XIO_E_NOT_TOKENS, "tokens of odd.bin");
	call_req(&c, XIO_OP_READ_REQUEST, 1, 5000, 1, 0, 0, "odd.bin", 7, 1440);
	check_error(&c, XIO_E_NOT_TOKENS, "tokens of odd.bin past its end");
	/* bad_request before anything about the path */
	call_req(&c, XIO_OP_READ_REQUEST, 1, 0, 0, 0, 0, "missing", 7, 1440);
	check_error(&c, XIO_E_BAD_REQUEST, "token_count 0");
	call_req(&c, XIO_OP_READ_REQUEST, 1, 0, XIO_READ_MAX_COUNT + 1, 0, 0, "../x", 4, 1440);
	check_error(&c, XIO_E_BAD_REQUEST, "token_count 16777217");
	call_req(&c, XIO_OP_READ_REQUEST, 1, 0, 1, 0, 0x08, "tokens.bin", 10, 1440);
	check_error(&c, XIO_E_BAD_REQUEST, "option 0x08");
	call_req(&c, XIO_OP_READ_REQUEST, 1, 0, 1, 0, XIO_OPT_COOKIE, "tokens.bin", 10, 1440);
	check_error(&c, XIO_E_BAD_REQUEST, "option COOKIE without its cookie");
	c.dg[4] = XIO_F_LAST;
	xio_srv_handle(&c.files, NULL, NULL, 1440, c.dg, c.len, c.out, &c.a);
	check_error(&c, XIO_E_BAD_REQUEST, "header flags");
	/* not XIO, or not a request: nothing */
	c.dg[4] = 0;
	c.dg[3] = XIO_OP_READ_REPLY;
	xio_srv_handle(&c.files, NULL, NULL, 1440, c.dg, c.len, c.out, &c.a);
	XIO_CHECK(c.a.kind == XIO_SRV_NONE, "READ_REPLY answered");
	xio_srv_handle(&c.files, NULL, NULL, 1440, c.dg, 31, c.out, &c.a);
	XIO_CHECK(c.a.kind == XIO_SRV_NONE, "31 bytes answered");
	xio_srv_files_fini(&c.files);
}

/* io: a sysfs attribute says 4096 bytes and holds a few: the train ends in
 * ERROR_REPLY io (what the worker sends, with the request's first_token). */
static void test_error_io(void)
{
	struct xio_srv_files files;
	struct xio_srv_train t;
	struct xio_srv_answer a;
	struct xio_srv_batch b;
	struct xio_hdr h;
	uint8_t dg[128], out[XIO_SRV_REPLY_MAX];
	uint32_t code, mlen;
	const char *msg;
	int sys = open("/sys/kernel", O_RDONLY | O_DIRECTORY);
	size_t len = xio_request_build(dg, sizeof(dg), XIO_OP_READ_REQUEST, 9, 3, 1000, 0, 0,
				       "uevent_seqnum", 13);

	if (!XIO_CHECK(sys >= 0, "/sys/kernel: %s", strerror(errno)))
		return;
	xio_srv_files_init(&files, sys, 2);
	xio_srv_train_init(&t, XIO_SRV_TRAIN_BYTES);
	xio_srv_handle(&files, NULL, NULL, 1440, dg, len, out, &a);
	if (XIO_CHECK(a.kind == XIO_SRV_READ, "sysfs file: kind %d error %u", a.kind, a.error)) {
		errno = 0;
		XIO_CHECK(xio_srv_train_fill(&t, &a.read, 0, &b) < 0 && errno == ENODATA,
			  "short file read: errno %d", errno);
		len = xio_srv_io_error(&a.read, errno, out);
		XIO_CHECK(xio_hdr_parse(out, len, &h) == 0 && h.opcode == XIO_OP_ERROR_REPLY &&
			  h.stream_id == 9 && h.first_token == 3 && h.flags == XIO_F_LAST &&
			  xio_error_parse(out, len, &h, &code, &msg, &mlen) == 0 && code == XIO_E_IO,
			  "ERROR_REPLY io");
	}
	xio_srv_train_fini(&t);
	xio_srv_files_fini(&files);
	close(sys);
}

/* Builds every datagram of the answer to (first, count, max_count, options)
 * on file name (units of the file: n) and checks each against the spec. */
static void check_read(const char *name, uint32_t salt, uint64_t n, uint64_t first,
		       uint32_t count, uint16_t max_count, uint8_t options, uint32_t payload_max,
		       size_t train_cap)
{
	bool raw = options & XIO_OPT_RAW;
	unsigned width = raw ? 1 : 4;
	uint64_t per = payload_max / width, end = first + count < n ? first + count : n, at = first;
	struct xio_srv_train t;
	struct xio_srv_batch b;
	struct call c;
	uint64_t seq = 0;
	int got;

	if (max_count && max_count < per)
		per = max_count;
	call_init(&c, 4);
	xio_srv_train_init(&t, train_cap);
	call_req(&c, XIO_OP_READ_REQUEST, 0x5EED, first, count, max_count, options, name,
		 strlen(name), payload_max);
	if (!XIO_CHECK(c.a.kind == XIO_SRV_READ, "%s [%llu,+%u): kind %d error %u", name,
		       (unsigned long long)first, count, c.a.kind, c.a.error))
		goto out;
	while ((got = xio_srv_train_fill(&t, &c.a.read, seq, &b)) > 0) {
		for (int i = 0; i < got; i++, seq++) {
			const uint8_t *d = b.buf + (size_t)i * b.slot;
			size_t dlen = i + 1 < got ? b.slot : b.last_len;
			uint64_t want_n = end - at < per ? end - at : per;
			bool last = at + want_n == end;
			struct xio_hdr h;

			if (!XIO_CHECK(xio_hdr_parse(d, dlen, &h) == 0 && h.seq == seq &&
				       h.first_token == at && h.token_count == want_n &&
				       h.stream_id == 0x5EED && dlen == 32 + want_n * width &&
				       h.opcode == (raw ? XIO_OP_DATA_REPLY : XIO_OP_READ_REPLY) &&
				       h.dtype == (raw ? 0 : XIO_DT_INT32) &&
				       h.flags == ((last ? XIO_F_LAST : 0) |
						   (options & XIO_OPT_CRC ? XIO_F_HAS_CRC : 0)),
				       "%s [%llu,+%u) max %u payload %u: datagram %llu: seq %u first "
				       "%llu count %u flags %#x len %zu, expected first %llu count %llu",
				       name, (unsigned long long)first, count, max_count, payload_max,
				       (unsigned long long)seq, h.seq, (unsigned long long)h.first_token,
				       h.token_count, h.flags, dlen, (unsigned long long)at,
				       (unsigned long long)want_n))
				goto out;
			XIO_CHECK(h.payload_crc == (options & XIO_OPT_CRC ? xio_crc32c(d + 32, dlen - 32)
									   : 0u),
				  "%s datagram %llu: payload_crc", name, (unsigned long long)seq);
			for (uint64_t k = 0; k < dlen - 32; k++) {
				uint64_t byte = at * width + k;
				uint8_t want = srv_tree_byte(salt, byte);

				if (!XIO_CHECK(d[32 + k] == want, "%s datagram %llu: byte %llu",
					       name, (unsigned long long)seq, (unsigned long long)byte))
					goto out;
			}
			at += want_n;
		}
	}
	XIO_CHECK(got == 0 && at == end && seq == xio_srv_read_datagrams(&c.a.read),
		  "%s [%llu,+%u): ended at %llu after %llu datagrams, expected %llu", name,
		  (unsigned long long)first, count, (unsigned long long)at,
		  (unsigned long long)seq, (unsigned long long)end);
out:
	xio_srv_train_fini(&t);
	xio_srv_files_fini(&c.files);
}

static void test_chunking(void)
{
	static const uint64_t sizes[] = { 1, 2, 7, 8, 359, 360, 361, 719, 720, 721, 1000, 2232,
					  2233, 5003 };
	static const uint16_t maxes[] = { 0, 1, 3, 7, 8, 100, 359, 360, 361, 2232, 65535 };
	char name[32];

	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		snprintf(name, sizeof(name), "t-%llu.bin", (unsigned long long)sizes[s]);
		srv_tree_write(rootp, name, sizes[s] * 4, (uint32_t)s + 100);
		for (unsigned m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
			/* IPv4 and IPv6 at 1500, IPv4 at 9000 (360, 352, 2232 tokens) */
			check_read(name, (uint32_t)s + 100, sizes[s], 0, (uint32_t)sizes[s],
				   maxes[m], 0, 1440, XIO_SRV_TRAIN_BYTES);
			check_read(name, (uint32_t)s + 100, sizes[s], 0, (uint32_t)sizes[s],
				   maxes[m], XIO_OPT_CRC, 1408, XIO_SRV_TRAIN_BYTES);
			check_read(name, (uint32_t)s + 100, sizes[s], 0, XIO_READ_MAX_COUNT,
				   maxes[m], 0, 8928, XIO_SRV_TRAIN_BYTES);
		}
	}
}

static void test_chunking_batches(void)
{
	/* trains longer than the buffer: batches of 3 slots, and of 1 */
	check_read("tokens.bin", 1, 1000, 0, 1000, 7, XIO_OPT_CRC, 1440, 3 * (32 + 28) + 5);
	check_read("tokens.bin", 1, 1000, 1, 999, 0, 0, 1440, 32 + 1440);
	check_read("tokens.bin", 1, 1000, 0, 1000, 1, 0, 1440, 4096); /* 1000 datagrams */
}

static void test_chunking_raw(void)
{
	/* RAW: bytes, any size, max_count in bytes */
	static const uint16_t maxes[] = { 0, 1, 3, 5, 1439, 1440, 1441 };

	for (unsigned m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		check_read("odd.bin", 2, 4001, 0, 4001, maxes[m], XIO_OPT_RAW, 1440, XIO_SRV_TRAIN_BYTES);
		check_read("odd.bin", 2, 4001, 3997, 100, maxes[m], XIO_OPT_RAW | XIO_OPT_CRC, 1408,
			   XIO_SRV_TRAIN_BYTES);
		check_read("tokens.bin", 1, 4000, 1, 4000, maxes[m], XIO_OPT_RAW, 1440, 1500);
	}
}

static void test_read_cut_at_eof(void)
{
	/* [990, 1090) of 1000 tokens: the answer is [990, 1000), one LAST datagram */
	check_read("tokens.bin", 1, 1000, 990, 100, 0, 0, 1440, XIO_SRV_TRAIN_BYTES);
	check_read("tokens.bin", 1, 1000, 999, XIO_READ_MAX_COUNT, 0, XIO_OPT_CRC, 1440,
		   XIO_SRV_TRAIN_BYTES);
	check_read("tokens.bin", 1, 1000, 500, XIO_READ_MAX_COUNT, 64, 0, 1440, XIO_SRV_TRAIN_BYTES);
	check_read("odd.bin", 2, 4001, 4000, 2, 0, XIO_OPT_RAW, 1440, XIO_SRV_TRAIN_BYTES);
}

static void test_cache(void)
{
	struct xio_srv_fileinfo fi;
	struct call c;
	const char *why;
	char path[256], tmp[256], name[32];
	struct stat st;
	int fd;

	call_init(&c, 4);
	/* a hot file is opened once */
	for (int i = 0; i < 10; i++)
		XIO_CHECK(xio_srv_files_open(&c.files, "tokens.bin", 10, &fi, &why) == 0 &&
			  fi.size == 4000, "open %d", i);
	XIO_CHECK(c.files.opens == 1 && c.files.hits == 9, "opens %llu hits %llu",
		  (unsigned long long)c.files.opens, (unsigned long long)c.files.hits);
	/* replaced on disk (rename over it): the new file, a new descriptor */
	srv_tree_write(rootp, "new.tmp", 8000, 5);
	snprintf(tmp, sizeof(tmp), "%s/new.tmp", rootp);
	snprintf(path, sizeof(path), "%s/repl.bin", rootp);
	srv_tree_write(rootp, "repl.bin", 4000, 1);
	XIO_CHECK(xio_srv_files_open(&c.files, "repl.bin", 8, &fi, &why) == 0 && fi.size == 4000,
		  "repl.bin before");
	XIO_CHECK(rename(tmp, path) == 0, "rename");
	XIO_CHECK(xio_srv_files_open(&c.files, "repl.bin", 8, &fi, &why) == 0 && fi.size == 8000 &&
		  fstat(fi.fd, &st) == 0 && st.st_size == 8000, "replaced file not seen: size %llu",
		  (unsigned long long)fi.size);
	XIO_CHECK(c.files.opens == 3, "opens %llu", (unsigned long long)c.files.opens);
	check_read("repl.bin", 5, 2000, 0, 2000, 0, XIO_OPT_CRC, 1440, XIO_SRV_TRAIN_BYTES);
	/* replaced by a link out of the root: refused, the old descriptor dropped */
	unlink(path);
	XIO_CHECK(symlink("../outside.bin", path) == 0, "symlink");
	XIO_CHECK(xio_srv_files_open(&c.files, "repl.bin", 8, &fi, &why) == XIO_E_ACCESS,
		  "link out of the root through the cache");
	/* removed: not_found */
	unlink(path);
	XIO_CHECK(xio_srv_files_open(&c.files, "repl.bin", 8, &fi, &why) == XIO_E_NOT_FOUND,
		  "removed file");
	/* grown in place: the same descriptor, the new size */
	srv_tree_write(rootp, "grow.bin", 400, 6);
	XIO_CHECK(xio_srv_files_open(&c.files, "grow.bin", 8, &fi, &why) == 0 && fi.size == 400,
		  "grow.bin");
	fd = fi.fd;
	srv_tree_write(rootp, "grow.bin", 800, 6); /* truncates and rewrites: same inode */
	XIO_CHECK(xio_srv_files_open(&c.files, "grow.bin", 8, &fi, &why) == 0 && fi.size == 800 &&
		  fi.fd == fd, "file grown in place: size %llu", (unsigned long long)fi.size);
	/* bounded: 4 slots, 10 files, the least recently used evicted */
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "c%d.bin", i);
		srv_tree_write(rootp, name, 4, 7);
		XIO_CHECK(xio_srv_files_open(&c.files, name, strlen(name), &fi, &why) == 0, "%s", name);
	}
	unsigned open_slots = 0;
	for (unsigned i = 0; i < c.files.cap; i++)
		open_slots += c.files.slot[i].fd >= 0;
	XIO_CHECK(open_slots == 4 && c.files.evictions >= 6, "%u open, %llu evictions", open_slots,
		  (unsigned long long)c.files.evictions);
	for (unsigned i = 0; i < c.files.cap; i++)
		XIO_CHECK(c.files.slot[i].fd < 0 || strncmp(c.files.slot[i].path, "c", 1) == 0,
			  "%s still cached after 10 newer files", c.files.slot[i].path);
	xio_srv_files_fini(&c.files);
}

static bool allowed(const struct xio_srv_allow *a, const char *addr)
{
	struct sockaddr_storage ss = { 0 };

	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	return xio_srv_allow_match(a, (struct sockaddr *)&ss);
}

static void test_allow(void)
{
	struct xio_srv_allow a;
	char err[256], buf[512];
	static const char *const bad[] = {
		"", ",", "10.0.0.0/8,", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1",
		"10.0.0.0/8x", "1.2.3", "10.0.0.256", "host.example", "10.0.0.0/ 8", "any,10.0.0.1",
		"fe80::1%eth0",
	};

	XIO_CHECK(xio_srv_allow_parse(&a, "10.1.0.0/16,192.168.7.9,2001:db8::/32,::ffff:172.16.0.0/108",
				      err, sizeof(err)) == 0, "parse: %s", err);
	xio_srv_allow_format(&a, buf, sizeof(buf));
	XIO_CHECK(strcmp(buf, "10.1.0.0/16,192.168.7.9/32,2001:db8::/32,172.16.0.0/12") == 0,
		  "format: %s", buf);
	XIO_CHECK(allowed(&a, "10.1.255.255") && allowed(&a, "10.1.0.0") && !allowed(&a, "10.2.0.1"),
		  "10.1.0.0/16");
	XIO_CHECK(allowed(&a, "192.168.7.9") && !allowed(&a, "192.168.7.8"), "one host");
	XIO_CHECK(allowed(&a, "2001:db8:ffff::1") && !allowed(&a, "2001:db9::1"), "2001:db8::/32");
	/* IPv4-mapped clients (a "::" socket) match IPv4 entries and mapped ones */
	XIO_CHECK(allowed(&a, "::ffff:10.1.2.3") && !allowed(&a, "::ffff:10.2.2.3"),
		  "mapped client against 10.1.0.0/16");
	XIO_CHECK(allowed(&a, "172.31.0.1") && allowed(&a, "::ffff:172.20.0.1") &&
		  !allowed(&a, "172.32.0.1"), "mapped entry ::ffff:172.16.0.0/108");
	XIO_CHECK(!allowed(&a, "::a01:203") && !allowed(&a, "64:ff9b::a01:203"),
		  "IPv4-compatible and NAT64 forms are not IPv4 clients");
	/* host bits past the prefix are ignored; /0 is everything of a family */
	XIO_CHECK(xio_srv_allow_parse(&a, "10.9.9.9/8,::/0", err, sizeof(err)) == 0 &&
		  allowed(&a, "10.200.0.1") && allowed(&a, "fe80::1") && !allowed(&a, "11.0.0.1"),
		  "10.9.9.9/8,::/0");
	XIO_CHECK(xio_srv_allow_parse(&a, "0.0.0.0/0", err, sizeof(err)) == 0 &&
		  allowed(&a, "1.2.3.4") && allowed(&a, "::ffff:1.2.3.4") && !allowed(&a, "::1"),
		  "0.0.0.0/0 is IPv4 only");
	XIO_CHECK(xio_srv_allow_parse(&a, "any", err, sizeof(err)) == 0 && allowed(&a, "::1") &&
		  allowed(&a, "203.0.113.9"), "any");
	XIO_CHECK(xio_srv_allow_parse(&a, "10.0.0.0/24,10.0.0.0/24", err, sizeof(err)) == 0 &&
		  a.n == 1, "duplicates kept");
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		XIO_CHECK(xio_srv_allow_parse(&a, bad[i], err, sizeof(err)) < 0 && strlen(err) > 0,
			  "'%s' accepted", bad[i]);
	/* the default: loopback and the host's own subnets, nothing else */
	XIO_CHECK(xio_srv_allow_local(&a, err, sizeof(err)) == 0, "local: %s", err);
	XIO_CHECK(allowed(&a, "127.0.0.1") && allowed(&a, "127.255.0.9") && allowed(&a, "::1") &&
		  allowed(&a, "::ffff:127.0.0.1"), "loopback not in the default list");
	XIO_CHECK(!allowed(&a, "240.0.0.1") && !allowed(&a, "3fff:ffff::1"),
		  "reserved addresses in the default list");
	struct ifaddrs *ifs, *i;
	if (XIO_CHECK(getifaddrs(&ifs) == 0, "getifaddrs")) {
		for (i = ifs; i; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_netmask &&
			    (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6))
				XIO_CHECK(xio_srv_allow_match(&a, i->ifa_addr),
					  "the address of %s not in the default list", i->ifa_name);
		freeifaddrs(ifs);
	}
}

static void test_pace(void)
{
	struct xio_srv_pace p;
	uint64_t t = 1000000000ull, wait;

	xio_srv_pace_init(&p, 0);
	XIO_CHECK(xio_srv_pace_take(&p, 1 << 30, t) == 0, "unpaced bucket waited");
	/* 8 Gbit/s: 1 ns a byte; 128 KiB of credit, then each send waits its turn */
	xio_srv_pace_init(&p, 8);
	for (int i = 0; i < 2; i++)
		XIO_CHECK(xio_srv_pace_take(&p, 65536, t) == 0, "credit: send %d waited", i);
	wait = xio_srv_pace_take(&p, 65536, t);
	XIO_CHECK(wait == 0, "third 64 KiB at once: %llu", (unsigned long long)wait);
	wait = xio_srv_pace_take(&p, 65536, t);
	XIO_CHECK(wait == 65536, "fourth 64 KiB: wait %llu, expected 65536",
		  (unsigned long long)wait);
	wait = xio_srv_pace_take(&p, 1000, t + 65536);
	XIO_CHECK(wait == 65536, "then 1000 bytes: wait %llu", (unsigned long long)wait);
	/* idle for a second: the credit is back, never more */
	t += 1000000000ull;
	for (int i = 0; i < 3; i++)
		XIO_CHECK(xio_srv_pace_take(&p, 65536, t) == 0, "after idle: send %d waited", i);
	XIO_CHECK(xio_srv_pace_take(&p, 65536, t) == 65536, "after idle: credit above 128 KiB");
	/* 0.5 Gbit/s: 16 ns a byte */
	xio_srv_pace_init(&p, 0.5);
	t = 5000000000ull;
	for (int i = 0; i < 3; i++)
		xio_srv_pace_take(&p, 65536, t);
	XIO_CHECK(xio_srv_pace_take(&p, 100, t) == 65536u * 16, "0.5 Gbit/s");
}

/* Sends the answer to a READ of 1000 tokens (max_count 37: 28 datagrams,
 * the last shorter; batches of 10) to a loopback socket and receives it.
 * refuse: SO_NO_CHECK on the socket, with which the kernel refuses UDP GSO
 * (EINVAL): the worker must go on one datagram per message, losing none. */
static void send_train(bool gso, int family, uint16_t port, bool refuse)
{
	const char *addr = family == AF_INET ? "127.0.0.1" : "::1";
	struct sockaddr_storage srv = { 0 }, cli = { 0 };
	socklen_t slen = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	struct xio_srv_sock *s = calloc(1, sizeof(*s));
	struct xio_srv_counters cnt = { 0 };
	struct xio_srv_pace pace;
	struct xio_srv_train t;
	struct xio_srv_batch b;
	struct xio_srv_dest d = { 0 };
	struct call c;
	uint8_t dg[2048];
	const char *what;
	uint64_t seq = 0, at = 0;
	int cfd, n;

	srv.ss_family = cli.ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		inet_pton(AF_INET, addr, &((struct sockaddr_in *)&srv)->sin_addr);
		((struct sockaddr_in *)&srv)->sin_port = htons(port);
		cli = srv;
		((struct sockaddr_in *)&cli)->sin_port = 0;
	} else {
		inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&srv)->sin6_addr);
		((struct sockaddr_in6 *)&srv)->sin6_port = htons(port);
		cli = srv;
		((struct sockaddr_in6 *)&cli)->sin6_port = 0;
	}
	cfd = socket(family, SOCK_DGRAM, 0);
	if (!XIO_CHECK(xio_srv_sock_open(s, 0, (struct sockaddr *)&srv, slen, false, &what) == 0 &&
		       cfd >= 0 && bind(cfd, (struct sockaddr *)&cli, slen) == 0,
		       "%s %s port %u: %s", what, addr, port, strerror(errno)))
		goto out_sock;
	d.peer_len = sizeof(d.peer);
	getsockname(cfd, (struct sockaddr *)&d.peer, &d.peer_len);
	d.v4 = family == AF_INET;
	s->gso = s->gso && gso;
	XIO_CHECK(s->gso == gso, "UDP GSO %s", gso ? "unavailable" : "on");
	if (refuse)
		XIO_CHECK(setsockopt(s->fd, SOL_SOCKET, SO_NO_CHECK, &(int){ 1 }, sizeof(int)) == 0,
			  "SO_NO_CHECK: %s", strerror(errno));
	xio_srv_pace_init(&pace, 0);
	call_init(&c, 2);
	xio_srv_train_init(&t, 10 * (32 + 37 * 4));
	call_req(&c, XIO_OP_READ_REQUEST, 42, 0, 1000, 37, XIO_OPT_CRC, "tokens.bin", 10, 1440);
	while ((n = xio_srv_train_fill(&t, &c.a.read, seq, &b)) > 0) {
		xio_srv_sock_send_batch(s, &b, &d, &pace, &cnt);
		seq += (unsigned)n;
	}
	XIO_CHECK(cnt.datagrams == 28 && cnt.send_errors == 0 && cnt.bytes == 28 * 32 + 4000,
		  "sent %llu datagrams, %llu bytes, %llu errors", (unsigned long long)cnt.datagrams,
		  (unsigned long long)cnt.bytes, (unsigned long long)cnt.send_errors);
	for (seq = 0; seq < 28; seq++) {
		ssize_t len = recv(cfd, dg, sizeof(dg), MSG_DONTWAIT);
		struct xio_hdr h;
		uint32_t want = seq == 27 ? 1000 - 27 * 37 : 37;

		if (!XIO_CHECK(len == 32 + 4 * want && xio_hdr_parse(dg, (size_t)len, &h) == 0 &&
			       h.seq == seq && h.first_token == at && h.token_count == want &&
			       h.payload_crc == xio_crc32c(dg + 32, 4 * want) &&
			       (h.flags & XIO_F_LAST) == (seq == 27),
			       "%s %s: datagram %llu: %zd bytes", gso ? "GSO" : "sendmmsg", addr,
			       (unsigned long long)seq, len))
			break;
		at += want;
	}
	XIO_CHECK(recv(cfd, dg, sizeof(dg), MSG_DONTWAIT) < 0, "more than 28 datagrams");
	XIO_CHECK(s->gso == (gso && !refuse), "GSO %s after the train", s->gso ? "on" : "off");
	xio_srv_train_fini(&t);
	xio_srv_files_fini(&c.files);
out_sock:
	close(cfd);
	xio_srv_sock_close(s);
	free(s);
}

static void test_send(void)
{
	send_train(true, AF_INET, PORT_BASE, false);
	send_train(false, AF_INET, PORT_BASE + 1, false);
	send_train(true, AF_INET6, PORT_BASE + 2, false);
	send_train(false, AF_INET6, PORT_BASE + 3, false);
	send_train(true, AF_INET, PORT_BASE + 4, true);
}

/* A received datagram of the turns test: which answer, which seq, when. */
struct rx_dg {
	uint32_t sid, seq;
	uint64_t t_ns; /* SO_TIMESTAMPNS: when loopback delivered it */
};

static int recv_stamped(int fd, struct rx_dg *out, int max)
{
	int n = 0;

	while (n < max) {
		uint8_t dg[256], ctl[64];
		struct iovec iov = { .iov_base = dg, .iov_len = sizeof(dg) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		struct xio_hdr h;
		ssize_t len = recvmsg(fd, &m, MSG_DONTWAIT);

		if (len < 0 || xio_hdr_parse(dg, (size_t)len, &h) != 0)
			break;
		out[n] = (struct rx_dg){ .sid = h.stream_id, .seq = h.seq };
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
				out[n].t_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			}
		n++;
	}
	return n;
}

/* The READ answers of one batch in turns (xio_srv_worker_send_reads): client A
 * asks for 20 then 10 datagrams (streams 1 and 3), client B for 20 (stream
 * 2), --burst 8. A's answers go one after the other, B's interleaved with
 * them, at most 8 datagrams of a client per turn: A1 0-7, B2 0-7, A1 8-15,
 * B2 8-15, A1 16-19, B2 16-19, A3 0-3 (A's 8 less the 4 of A1), A3 4-9.
 * Loopback stamps each GSO send once, so the two clients' datagrams merge
 * into one order by their stamps. flow_gbit: --flow-rate; each client's
 * bursts then start at least a burst's bytes at that rate apart. */
static void send_turns(uint16_t port, double flow_gbit)
{
	static const uint32_t want[][3] = { /* stream, first seq, count */
		{ 1, 0, 8 }, { 2, 0, 8 }, { 1, 8, 8 }, { 2, 8, 8 }, { 1, 16, 4 }, { 2, 16, 4 },
		{ 3, 0, 4 }, { 3, 4, 6 },
	};
	struct sockaddr_in srv = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in cli = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct xio_srv_worker *w = calloc(1, sizeof(*w));
	struct xio_srv_pace pace;
	struct rx_dg a[64], b[64], all[128];
	int fa = socket(AF_INET, SOCK_DGRAM, 0), fb = socket(AF_INET, SOCK_DGRAM, 0);
	int na, nb, n = 0, ia = 0, ib = 0, k = 0;
	const char *what;
	struct call c;

	xio_srv_pace_init(&pace, 0);
	if (!XIO_CHECK(w && fa >= 0 && fb >= 0 &&
		       xio_srv_sock_open(&w->sock, 0, (struct sockaddr *)&srv, sizeof(srv), false,
					 &what) == 0 &&
		       xio_srv_train_init(&w->train, XIO_SRV_TRAIN_BYTES) == 0 &&
		       bind(fa, (struct sockaddr *)&cli, sizeof(cli)) == 0 &&
		       bind(fb, (struct sockaddr *)&cli, sizeof(cli)) == 0 &&
		       setsockopt(fa, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int)) == 0 &&
		       setsockopt(fb, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int)) == 0,
		       "turns: setup on port %u: %s", port, strerror(errno)))
		goto out;
	/* the kernel turns receive stamps on from a work item: until it has run,
	 * a datagram is stamped when read */
	nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	w->pace = &pace;
	w->burst = 8;
	w->flow_ns_per_byte = flow_gbit > 0 ? 8.0 / flow_gbit : 0;
	call_init(&c, 4);
	for (int i = 0; i < 3; i++) {
		struct xio_srv_out *o = &w->out[w->nout++];
		int fd = i == 1 ? fb : fa;

		call_req(&c, XIO_OP_READ_REQUEST, (uint32_t)i + 1, 0, i == 2 ? 100 : 200, 10, 0,
			 "tokens.bin", 10, 1440);
		*o = (struct xio_srv_out){ .read = c.a.read };
		o->dest.peer_len = sizeof(struct sockaddr_in);
		getsockname(fd, (struct sockaddr *)&o->dest.peer, &o->dest.peer_len);
		o->dest.v4 = true;
	}
	xio_srv_worker_send_reads(w);
	XIO_CHECK(w->nout == 0 && w->counters.datagrams == 50 &&
		  w->counters.answers[XIO_SRV_ANS_READ] == 3 && w->counters.send_errors == 0,
		  "turns: %u left, %llu datagrams sent", w->nout,
		  (unsigned long long)w->counters.datagrams);
	na = recv_stamped(fa, a, 64);
	nb = recv_stamped(fb, b, 64);
	XIO_CHECK(na == 30 && nb == 20, "turns: A got %d datagrams, B %d (30, 20)", na, nb);
	while (ia < na || ib < nb) /* one order, by the stamps */
		all[n++] = ib >= nb || (ia < na && a[ia].t_ns <= b[ib].t_ns) ? a[ia++] : b[ib++];
	for (unsigned t = 0; t < sizeof(want) / sizeof(want[0]); t++) {
		for (uint32_t q = 0; q < want[t][2]; q++, k++)
			if (!XIO_CHECK(k < n && all[k].sid == want[t][0] && all[k].seq == want[t][1] + q,
				       "turns: datagram %d is stream %u seq %u, expected %u seq %u", k,
				       k < n ? all[k].sid : 0, k < n ? all[k].seq : 0, want[t][0],
				       want[t][1] + q))
				goto done;
		/* paced: a client's burst starts at least its last burst's bytes
		 * at the rate after that one (sleeps end late, never early) */
		if (flow_gbit > 0 && t >= 2 && want[t][0] == want[t - 2][0]) {
			const struct rx_dg *prev = &all[k - want[t][2] - want[t - 1][2] - want[t - 2][2]];
			uint64_t gap = all[k - want[t][2]].t_ns - prev->t_ns;
			uint64_t min = (uint64_t)(want[t - 2][2] * (32 + 40) * w->flow_ns_per_byte);

			XIO_CHECK(gap + 1000 >= min, "turns: burst %u of stream %u %llu ns after the "
				  "last, expected at least %llu", t, want[t][0],
				  (unsigned long long)gap, (unsigned long long)min);
		}
	}
done:
	xio_srv_files_fini(&c.files);
out:
	close(fa);
	close(fb);
	if (w) {
		xio_srv_sock_close(&w->sock);
		xio_srv_train_fini(&w->train);
	}
	free(w);
}

static void test_turns(void)
{
	send_turns(PORT_BASE + 5, 0);
	/* 576 bytes (8 datagrams of 72) at 0.004608 Gbit/s: 1 ms a burst */
	send_turns(PORT_BASE + 6, 0.004608);
}

/* IP_RECVERR: a reply to a port where nothing listens comes back as an ICMP
 * error that fails the socket's next send, whoever it is for. The worker
 * drains the error queue, counts it and sends again: the next client gets
 * its reply, nothing is counted lost. */
static void test_icmp_error(void)
{
	struct sockaddr_in srv = { .sin_family = AF_INET, .sin_port = htons(PORT_BASE + 7),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in cli = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct xio_srv_sock *s = calloc(1, sizeof(*s));
	struct xio_srv_counters cnt = { 0 };
	struct xio_srv_dest d[2] = { 0 };
	struct xio_srv_pace pace;
	uint8_t msg[2][8] = { "gone", "here" }, got[16];
	uint8_t *bufs[2] = { msg[0], msg[1] };
	size_t lens[2] = { 4, 4 };
	int gone = socket(AF_INET, SOCK_DGRAM, 0), here = socket(AF_INET, SOCK_DGRAM, 0);
	const char *what;

	xio_srv_pace_init(&pace, 0);
	if (!XIO_CHECK(s && gone >= 0 && here >= 0 &&
		       xio_srv_sock_open(s, 0, (struct sockaddr *)&srv, sizeof(srv), false, &what) == 0 &&
		       bind(gone, (struct sockaddr *)&cli, sizeof(cli)) == 0 &&
		       bind(here, (struct sockaddr *)&cli, sizeof(cli)) == 0,
		       "icmp: setup: %s", strerror(errno)))
		goto out;
	for (int i = 0; i < 2; i++) {
		d[i].peer_len = sizeof(struct sockaddr_in);
		getsockname(i ? here : gone, (struct sockaddr *)&d[i].peer, &d[i].peer_len);
		d[i].v4 = true;
	}
	close(gone); /* its port now answers with ICMP port unreachable */
	gone = -1;
	xio_srv_sock_send_replies(s, bufs, lens, &d[0], 1, &pace, &cnt);
	xio_srv_sock_send_replies(s, bufs + 1, lens + 1, &d[1], 1, &pace, &cnt);
	XIO_CHECK(cnt.datagrams == 2 && cnt.send_errors == 0 && cnt.icmp_errors == 1 &&
		  cnt.send_retries == 0,
		  "icmp: datagrams %llu send_errors %llu icmp_errors %llu (2, 0, 1)",
		  (unsigned long long)cnt.datagrams, (unsigned long long)cnt.send_errors,
		  (unsigned long long)cnt.icmp_errors);
	XIO_CHECK(recv(here, got, sizeof(got), MSG_DONTWAIT) == 4 && memcmp(got, "here", 4) == 0,
		  "icmp: the second client's reply did not arrive");
	/* nothing pending: a receive times out empty, nothing more counted */
	XIO_CHECK(xio_srv_sock_recv(s, &cnt) == 0 && cnt.icmp_errors == 1,
		  "icmp: receive after the drain: icmp_errors %llu",
		  (unsigned long long)cnt.icmp_errors);
out:
	if (gone >= 0)
		close(gone);
	close(here);
	if (s)
		xio_srv_sock_close(s);
	free(s);
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_confine_dotdot),   XIO_UNIT_TEST(test_confine_absolute),
	XIO_UNIT_TEST(test_confine_nul),      XIO_UNIT_TEST(test_confine_symlinks),
	XIO_UNIT_TEST(test_confine_inside),   XIO_UNIT_TEST(test_not_regular),
	XIO_UNIT_TEST(test_error_codes),      XIO_UNIT_TEST(test_error_io),
	XIO_UNIT_TEST(test_chunking),         XIO_UNIT_TEST(test_chunking_batches),
	XIO_UNIT_TEST(test_chunking_raw),     XIO_UNIT_TEST(test_read_cut_at_eof),
	XIO_UNIT_TEST(test_cache),            XIO_UNIT_TEST(test_allow),
	XIO_UNIT_TEST(test_pace),             XIO_UNIT_TEST(test_send),
	XIO_UNIT_TEST(test_turns),            XIO_UNIT_TEST(test_icmp_error),
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "server", tests, setup, cleanup);
}
