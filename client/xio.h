/* SPDX-License-Identifier: BSD-3-Clause
 * xio.h: libxio, the host end of the XIO read protocol (described, with
 * this library, in docs/client.md, installed as
 * PREFIX/share/doc/xio-pipeline/docs/client.md). It reads INT32 token files
 * from an XIO server as UINT16 tokens: through an xio pipeline that narrowed
 * them on the way, or narrowing them here with the stage core's SIMD
 * kernels when they arrive as INT32.
 *
 *	struct xio_error err;
 *	struct xio_client *c;
 *	struct xio_stat st;
 *
 *	if (xio_connect("storage1:7910,storage2:7910", NULL, &c, &err) < 0 ||
 *	    xio_stat(c, "shards/train.bin", &st, &err) < 0 ||
 *	    xio_read(c, "shards/train.bin", 0, st.tokens, out, &err) < 0)
 *		fprintf(stderr, "%s\n", err.msg);
 *
 * Conventions:
 * - Every function that can fail returns 0 (or a documented count) on
 *   success and -code (enum xio_code) on failure, and fills *err (may be
 *   NULL) with the code and a one-line message naming the problem.
 * - No global state. A client handle may be shared by threads: its calls
 *   are serialised. A client has one server or a list of them (replicas
 *   of one tree) and opts.flows flows in all (at least one a server), each
 *   a UDP socket of its own (its own source port) to one server; a read
 *   runs flow 0 on the caller's thread and the others on threads it starts
 *   and joins, all taking chunks from one dispenser. A stream is used by one consumer thread at a time; it
 *   fetches on a thread of its own, with flows of its own (as many sockets
 *   as the client's flows).
 * - Tokens are little-endian UINT16 in the caller's memory, token i of the
 *   range at index i.
 * - struct xio_opts and struct xio_stats are allocated by the caller and
 *   only ever grow at their end; each time they grow the soname's major
 *   number goes up (libxio.so.1: gro, flows and strict_mtime in xio_opts,
 *   the counters from recv_calls on in xio_stats), so a program built against an older
 *   xio.h fails to load instead of passing a short structure. Fill options
 *   with xio_opts_init() and change only the fields you mean to.
 */
#ifndef XIO_H
#define XIO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XIO_API __attribute__((visibility("default")))

#define XIO_DEFAULT_PORT 7910

/* Error codes (returned negated). */
enum xio_code {
	XIO_OK = 0,
	XIO_EARG = 1,     /* a bad argument (NULL, 0 tokens, an option out of range) */
	XIO_ESYS = 2,     /* a system call failed (socket, memory, thread) */
	XIO_EADDR = 3,    /* the server address does not resolve */
	XIO_ETIMEOUT = 4, /* no answer after the last try */
	XIO_ESERVER = 5,  /* the server answered ERROR_REPLY: server_code says which */
	XIO_ERANGE = 6,   /* the range runs past the end of the file */
	XIO_ETOKEN = 7,   /* a token outside 0..65535 (and saturate is off) */
	XIO_EPROTO = 8,   /* the server broke the protocol (a malformed STAT_REPLY) */
	XIO_EFORMAT = 9,  /* a Megatron index that cannot be converted */
	XIO_ECANCELED = 10, /* the stream was closed while fetching */
	XIO_EREPLICA = 11, /* the servers of a list disagree on a file: its size, or
			      its mtime with strict_mtime */
};

/* A failure: the code, the server's ERROR_REPLY code when code is
 * XIO_ESERVER (1 not_found, 2 access, 3 range, 4 bad_request, 5 not_tokens,
 * 6 io; else 0), and a message for people (NUL-terminated, no newline). */
struct xio_error {
	int32_t code;
	uint32_t server_code;
	char msg[256];
};

/* "ok", "bad_argument", "system", "address", "timeout", "server", "range",
 * "token", "protocol", "format", "canceled", "replica"; "unknown" for
 * anything else. */
XIO_API const char *xio_code_name(int code);

/* Options of a client. xio_opts_init() sets the defaults shown. */
struct xio_opts {
	uint32_t chunk_tokens; /* most tokens per READ_REQUEST, 1..16777216 (262144) */
	uint32_t window;       /* READ_REQUESTs outstanding at once per flow, at most:
				  the congestion window decides how many, 1..256 (32) */
	uint32_t timeout_ms;   /* first timeout, and ceiling of the adaptive one (500) */
	uint32_t retries;      /* re-requests of a range that brings nothing, before
				  giving up (8): a dead server fails after at most
				  (retries + 1) x timeout_ms */
	uint32_t max_count;    /* most tokens per answer datagram, 0..65535
				  (0: the server's choice) */
	uint32_t rcvbuf;       /* socket receive buffer in bytes (32 MiB) */
	uint32_t crc;          /* 1: ask for HAS_CRC and require it (0) */
	uint32_t saturate;     /* 1: clamp tokens outside 0..65535; 0: fail (0) */
	uint32_t gro;          /* 1: receive with UDP_GRO, trains of datagrams in one
				  buffer (1) */
	uint32_t flows;        /* UDP sockets (source ports) and threads one read
				  uses in all, 1..64, raised to one a server when a
				  list has more; `window` is per flow (the CPUs this
				  process may run on, at most 4) */
	uint32_t strict_mtime; /* 1: the servers of a list must agree on a file's
				  mtime too, not only on its size (0) */
};

XIO_API void xio_opts_init(struct xio_opts *o);

/* Counters of a client or a stream, cumulative since it was opened. */
struct xio_stats {
	uint64_t tokens;         /* tokens placed, each counted once */
	uint64_t bytes;          /* bytes placed by RAW reads */
	uint64_t datagrams;      /* datagrams received */
	uint64_t bytes_received; /* their UDP payload bytes */
	uint64_t replies_uint16; /* READ_REPLY datagrams narrowed on the way */
	uint64_t replies_int32;  /* READ_REPLY datagrams narrowed here */
	uint64_t data_replies;   /* DATA_REPLY datagrams (RAW reads) */
	uint64_t answers;        /* STAT_REPLY and ERROR_REPLY datagrams */
	uint64_t requests;       /* requests sent, re-requests included */
	uint64_t re_requests;    /* requests for ranges missing after a timeout */
	uint64_t timeouts;       /* times a range's answer stopped arriving */
	uint64_t duplicates;     /* datagrams bringing no new token: duplicated on
				    the way or late answers to re-sent requests */
	uint64_t crc_errors;     /* discarded: CRC32C wrong, or missing when asked */
	uint64_t malformed;      /* discarded: not XIO, bad header, dtype or length */
	uint64_t ignored;        /* discarded: outside the ranges asked for */
	uint64_t clamped;        /* tokens clamped to 0..65535 (saturate) */
	uint64_t refused;        /* ICMP port unreachable reports */
	/* Every datagram received is counted once: datagrams = replies_uint16
	 * + replies_int32 + data_replies + answers + duplicates + crc_errors +
	 * malformed + ignored. */
	uint64_t srtt_us;        /* smoothed round trip (0: none measured yet) */
	uint64_t rttvar_us;      /* its variation */
	uint64_t rto_us;         /* the timeout now */
	uint64_t rcvbuf;         /* socket receive buffer granted by the kernel */
	uint64_t recv_calls;     /* recvmmsg calls that returned buffers */
	uint64_t rx_buffers;     /* buffers they returned: datagrams / rx_buffers is
				    what UDP GRO coalesced, rx_buffers / recv_calls
				    the batching */
	uint64_t gro;            /* 1: UDP_GRO is on */
	uint64_t flows;          /* flows these counters cover (1 for one flow's) */
	uint64_t gap_re_requests;     /* re-requests of a hole an answer left behind
					 it, sent at once (re_requests counts them) */
	uint64_t timeout_re_requests; /* re-requests after a timeout (the same) */
	uint64_t cwnd;           /* congestion window now, bytes (4 a token) */
	uint64_t cwnd_reductions; /* times a loss or a timeout cut it */
	uint64_t cookie_refreshes; /* STATs for a new address cookie after the server
				      refused one (ERROR_REPLY cookie, xio-read 1.2) */
};

struct xio_client;

/* Opens a client of the server at "HOST[:PORT]" ("[V6]:PORT" for an IPv6
 * address with a port), port 7910 by default, or of a comma-separated list
 * of them ("a,b:7911,[fd00::3]:7910", at most XIO_SERVERS_MAX), servers
 * exporting the same files: a read is spread over all of them. A name is
 * one server: the first of its addresses that a UDP socket connects to
 * (list the addresses to use several). opts may be NULL for the defaults.
 * Nothing is sent yet. */
XIO_API int xio_connect(const char *server, const struct xio_opts *opts,
			struct xio_client **out, struct xio_error *err);

XIO_API void xio_close(struct xio_client *c);

/* Called from inside xio_read / xio_read_bytes, on the caller's thread,
 * each time the prefix of the range that is complete grows: done of total
 * tokens (bytes). NULL removes it. */
typedef void (*xio_progress_fn)(void *arg, uint64_t done, uint64_t total);
XIO_API void xio_set_progress(struct xio_client *c, xio_progress_fn fn, void *arg);

/* A file on the server. */
struct xio_stat {
	uint64_t size;     /* bytes */
	uint64_t tokens;   /* whole INT32 tokens: size / 4 */
	uint64_t mtime_ns; /* modification time, ns since the epoch */
	uint32_t is_tokens; /* 1 when size is a multiple of 4 */
};

/* STAT_REQUEST: path relative to the server's root, sent to every server
 * of the list (those dropped included: a server that answers is up again).
 * The sizes of those that answer must agree (XIO_EREPLICA naming each
 * server otherwise; also an answer of not_found beside sizes); mtimes may
 * differ (counted in each server's mtime_differs) unless strict_mtime. A
 * server that does not answer is dropped; the stat fails only when none
 * answers. *st is the first answering server's. */
XIO_API int xio_stat(struct xio_client *c, const char *path, struct xio_stat *st,
		     struct xio_error *err);

/* Reads tokens [first, first + count) of path into dst[0..count) as UINT16.
 * The range must lie inside the file (XIO_ERANGE otherwise). */
XIO_API int xio_read(struct xio_client *c, const char *path, uint64_t first, uint64_t count,
		     uint16_t *dst, struct xio_error *err);

/* A range of tokens: [first, first + count). */
struct xio_span {
	uint64_t first;
	uint64_t count;
};

/* Random access: the tokens of n spans of path in one call, span i's right
 * after span i-1's in dst (dst holds the sum of the counts; spans may
 * overlap, repeat, or be in any order). The spans' chunks are pipelined
 * through the window as one read's are, with the same loss recovery and
 * overflow rules as xio_read; every span must lie inside the file
 * (XIO_ERANGE otherwise). */
XIO_API int xio_readv(struct xio_client *c, const char *path, const struct xio_span *spans,
		      size_t n, uint16_t *dst, struct xio_error *err);

/* RAW read: bytes [first, first + count) of any regular file into dst. */
XIO_API int xio_read_bytes(struct xio_client *c, const char *path, uint64_t first,
			   uint64_t count, void *dst, struct xio_error *err);

/* A copy of the client's counters: those of its flows added up (srtt_us,
 * rttvar_us, rto_us: the largest flow's; rcvbuf: one socket's). */
XIO_API void xio_client_stats(struct xio_client *c, struct xio_stats *st);

/* The client's flows (opts.flows), and flow i's own counters. */
XIO_API uint32_t xio_client_flows(struct xio_client *c);
XIO_API int xio_client_flow_stats(struct xio_client *c, uint32_t i, struct xio_stats *st,
				  struct xio_error *err);

/* Servers of a list. A server is up, or dropped: it stopped answering a
 * read (its retries ran out) or a STAT, and its missing ranges went to the
 * others; it takes part in no read until a STAT reaches it again. */
#define XIO_SERVERS_MAX 64
enum xio_server_state { XIO_SERVER_UP = 0, XIO_SERVER_DROPPED = 1 };

/* "up", "dropped"; "unknown" for anything else. */
XIO_API const char *xio_server_state_name(uint32_t state);

/* One server's counters, cumulative since the client (stream) was opened.
 * The structure only grows at its end: callers pass its size, and a
 * library copies at most that much (fields it does not know stay as the
 * caller left them). */
struct xio_server_stats {
	char address[256];        /* as given in the list */
	uint32_t state;           /* enum xio_server_state */
	uint32_t flows;           /* flows to it */
	uint64_t tokens;          /* tokens it brought (placed first) */
	uint64_t bytes;           /* bytes of RAW reads it brought */
	uint64_t datagrams;       /* datagrams received from it */
	uint64_t requests;        /* requests sent to it */
	uint64_t re_requests;     /* of them, asked again */
	uint64_t timeouts;
	uint64_t refused;         /* ICMP port unreachable reports */
	uint64_t drops;           /* times it was dropped */
	uint64_t rejoins;         /* times a STAT brought it back */
	uint64_t mtime_ns;        /* its copy's mtime at its last STAT answer */
	uint64_t mtime_differs;   /* STATs where it differed from the first answer's */
	struct xio_error last_error; /* why it was last dropped (code 0: never) */
};

/* The servers of the list, and server i's counters (size: sizeof(*st)). */
XIO_API uint32_t xio_client_server_count(struct xio_client *c);
XIO_API int xio_client_server_stats(struct xio_client *c, uint32_t i,
				    struct xio_server_stats *st, size_t size,
				    struct xio_error *err);

/* Sharding: rank of world readers reads the rank-th contiguous part of
 * [first, first + count): parts differ by at most one token and, in rank
 * order, concatenate to the whole range. Sets *part_first, *part_count;
 * XIO_EARG when world is 0 or rank >= world. */
XIO_API int xio_shard(uint64_t first, uint64_t count, uint32_t rank, uint32_t world,
		      uint64_t *part_first, uint64_t *part_count);

/* A prefetching stream: the tokens of [first, first + count) of a file
 * (count 0: to the end), or of a rank's shard of it, in batches of
 * batch_tokens (the last may be shorter), fetched in order on a thread of
 * its own into a ring of depth + 1 batch buffers, so that up to depth
 * batches are ready in memory ahead of the one the consumer holds. */
struct xio_stream_opts {
	uint64_t first;
	uint64_t count;
	uint64_t batch_tokens; /* 1..2^31 */
	uint32_t depth;        /* batches fetched ahead, 1..1024 (4) */
	uint32_t rank;         /* 0..world-1 (0) */
	uint32_t world;        /* readers sharing the range (1) */
};

XIO_API void xio_stream_opts_init(struct xio_stream_opts *o, uint64_t batch_tokens);

struct xio_stream;

/* Stats the file, shards the range, starts fetching. The stream uses the
 * client's server and options on flows (sockets) of its own; the client
 * may be closed while the stream lives. */
XIO_API int xio_stream_open(struct xio_client *c, const char *path,
			    const struct xio_stream_opts *o, struct xio_stream **out,
			    struct xio_error *err);

/* The next batch, zero-copy: *tokens points into the ring and stays valid
 * until the next xio_stream_next or xio_stream_close (which hand its buffer
 * back to the fetcher). Blocks until the batch is complete. Returns 1 with a
 * batch, 0 at the end (*tokens NULL, *n 0), or -code. */
XIO_API int xio_stream_next(struct xio_stream *s, const uint16_t **tokens, size_t *n,
			    struct xio_error *err);

/* The stream's range after sharding: first token and token count. */
XIO_API void xio_stream_range(const struct xio_stream *s, uint64_t *first, uint64_t *count);

/* Counters of the stream's fetcher, as of its last completed read (a read
 * fills the ring's free buffers). */
XIO_API void xio_stream_stats(struct xio_stream *s, struct xio_stats *st);

/* The stream's servers (the client's list; those dropped there start
 * dropped) and server i's counters, as xio_client_server_stats. */
XIO_API uint32_t xio_stream_server_count(struct xio_stream *s);
XIO_API int xio_stream_server_stats(struct xio_stream *s, uint32_t i,
				    struct xio_server_stats *st, size_t size,
				    struct xio_error *err);

/* Stops the fetcher (a read in progress ends at once) and frees the ring. */
XIO_API void xio_stream_close(struct xio_stream *s);

/* Output formats (xio_format.c). */

/* llm.c token shard: 256 little-endian int32 (20240520, 1, token count,
 * zeros), then the UINT16 tokens. */
#define XIO_LLMC_HEADER_BYTES 1024
#define XIO_LLMC_MAGIC        20240520
#define XIO_LLMC_MAX_TOKENS   2147483647u

/* Writes the llm.c header for ntok tokens at hdr[0..1024). XIO_EFORMAT when
 * ntok does not fit the header's int32. */
XIO_API int xio_llmc_header(uint8_t hdr[XIO_LLMC_HEADER_BYTES], uint64_t ntok,
			    struct xio_error *err);

/* Megatron-LM indexed dataset (.idx): "MMIDIDX\0\0", version 1 (u64), dtype
 * code (u8: 4 int32, 8 uint16), sequence count (u64), document count (u64),
 * sizes (int32 each), pointers (int64 byte offsets into .bin), document
 * indices (int64); all little-endian; bytes after them (the multimodal
 * modes) are kept as they are. */
struct xio_megatron_idx {
	uint64_t sequences;
	uint64_t documents;
	uint64_t tokens;  /* the sum of the sizes */
	uint8_t dtype;    /* the code read */
};

/* Checks an int32 index against a .bin of bin_tokens INT32 tokens (every
 * sequence inside it, pointers 4-byte aligned) and rewrites it in place as
 * the index of the UINT16 .bin: dtype code 8 and every pointer halved.
 * Anything else, an index that is not int32 above all, is XIO_EFORMAT
 * naming the problem; buf is then unchanged. */
XIO_API int xio_megatron_idx_narrow(uint8_t *buf, size_t len, uint64_t bin_tokens,
				    struct xio_megatron_idx *info, struct xio_error *err);

#ifdef __cplusplus
}
#endif

#endif /* XIO_H */
