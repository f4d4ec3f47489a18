/* SPDX-License-Identifier: BSD-3-Clause
 * xio_priv.h: what the modules of libxio share and the public header does
 * not show: the error helper, the socket (xio_conn.c), the adaptive timeout
 * (xio_rtt.c), the received-range bookkeeping (xio_missing.c) and the
 * engine of flows that reads through them (xio_engine.c, xio_read.c,
 * xio_stat.c).
 */
#ifndef XIO_PRIV_H
#define XIO_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "xio.h"
#include "xio_msg.h"

#define XIO_HIDDEN __attribute__((visibility("hidden")))

/* Sets *err (may be NULL) and returns -code. */
XIO_HIDDEN int xio_fail(struct xio_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

XIO_HIDDEN uint64_t xio_now_ns(void);

/* ---- xio_rtt.c: RFC 6298 estimator, in microseconds ---- */

/* Floor of the adaptive timeout: Linux TCP's (TCP_RTO_MIN), above a paced
 * server's gaps between trains and scheduling hiccups (docs/client.md). */
#define XIO_RTO_MIN_US 200000u

struct xio_rtt {
	uint64_t srtt;   /* 0 until the first sample */
	uint64_t rttvar;
	uint64_t rto;
	uint64_t min;
	uint64_t max;
	unsigned backoff; /* doublings in force until the next sample */
};

/* rto starts at max (nothing measured yet) and stays within min..max. */
XIO_HIDDEN void xio_rtt_init(struct xio_rtt *r, uint64_t min_us, uint64_t max_us);
/* A valid sample: recomputes rto and ends any backoff. */
XIO_HIDDEN void xio_rtt_sample(struct xio_rtt *r, uint64_t rtt_us);
/* A timeout, the fails-th in a row of one request: rto stays doubled at
 * least that often until the next sample (RFC 6298 5.7). */
XIO_HIDDEN void xio_rtt_backoff(struct xio_rtt *r, unsigned fails);
/* The timeout after `fails` timeouts in a row: rto doubled that often (or
 * as often as the backoff in force says, if more), at most max. */
XIO_HIDDEN uint64_t xio_rtt_timeout(const struct xio_rtt *r, unsigned fails);

/* ---- xio_missing.c: which units of a chunk have arrived ---- */

struct xio_missing {
	uint64_t *bits; /* 1 = received */
	uint64_t n;     /* units in the chunk */
	uint64_t got;   /* units received */
};

struct xio_range {
	uint64_t a, b; /* [a, b) */
};

/* bits must hold n bits (xio_missing_words(n) words). */
static inline size_t xio_missing_words(uint64_t n)
{
	return (size_t)((n + 63) / 64);
}
XIO_HIDDEN void xio_missing_reset(struct xio_missing *m, uint64_t *bits, uint64_t n);
/* Marks [a, b) received (b <= n); returns how many of them were new. */
XIO_HIDDEN uint64_t xio_missing_mark(struct xio_missing *m, uint64_t a, uint64_t b);
/* The first missing run at or after from: 1 and [*a, *b), or 0. */
XIO_HIDDEN int xio_missing_next(const struct xio_missing *m, uint64_t from, struct xio_range *r);
/* The same within [from, end): the run cut at end; the bits past end are
 * not looked at (a datagram's placement costs its own length, not the
 * chunk's). */
XIO_HIDDEN int xio_missing_next_in(const struct xio_missing *m, uint64_t from, uint64_t end,
				   struct xio_range *r);
/* The ranges to ask again, at most max (>= 1): the missing runs in order,
 * the last one stretched over all that is still missing after it. Returns
 * how many. */
XIO_HIDDEN size_t xio_missing_ranges(const struct xio_missing *m, struct xio_range *out,
				     size_t max);

/* ---- xio_cc.c: a flow's congestion window, in bytes ---- */

#define XIO_CC_INITIAL (2u << 20)  /* the first window: two 1 MiB requests */
#define XIO_CC_MIN     (256u << 10) /* the floor, after a timeout */
#define XIO_CC_STEP    (64u << 10)  /* congestion avoidance: a train a round trip */

struct xio_cc {
	uint64_t cwnd;
	uint64_t ssthresh;    /* UINT64_MAX until the first loss */
	uint64_t min, max;
	uint64_t recovery_ns; /* losses of requests sent before it count once */
	uint64_t acked;       /* congestion avoidance: bytes toward the next step */
	uint64_t reductions;  /* times the window was cut */
};

/* max: the most the window may reach (half the receive buffer granted). */
XIO_HIDDEN void xio_cc_init(struct xio_cc *cc, uint64_t max);
/* bytes new bytes arrived, answering a request sent at sent_ns. */
XIO_HIDDEN void xio_cc_on_received(struct xio_cc *cc, uint64_t bytes, uint64_t sent_ns);
/* A loss seen from a gap, of a request sent at sent_ns: the window halves
 * once per recovery period. */
XIO_HIDDEN void xio_cc_on_loss(struct xio_cc *cc, uint64_t sent_ns, uint64_t now);
/* A timeout: halved as for a loss, then down to the floor. */
XIO_HIDDEN void xio_cc_on_timeout(struct xio_cc *cc, uint64_t sent_ns, uint64_t now);

/* ---- xio_conn.c: the UDP socket to the server ---- */

#define XIO_RX_BATCH   64     /* receive buffers per recvmmsg */
#define XIO_RX_SLOT    65536  /* bytes per buffer: a datagram, or a GRO train, at most 64 KiB */
#define XIO_RX_CTL     64     /* control bytes per buffer (the UDP_GRO segment size) */
#define XIO_TX_BATCH   64     /* requests per sendmmsg */
#define XIO_TX_SLOT    1088   /* a request with the longest path */

struct xio_conn {
	int fd;
	bool gro;               /* UDP_GRO is on: a buffer may hold a train of datagrams */
	char name[300];         /* the server as given, for messages */
	uint8_t *rx;            /* XIO_RX_BATCH x XIO_RX_SLOT */
	uint8_t *rx_ctl;        /* XIO_RX_BATCH x XIO_RX_CTL */
	struct mmsghdr rmsg[XIO_RX_BATCH];
	struct iovec riov[XIO_RX_BATCH];
	uint8_t *tx;            /* XIO_TX_BATCH x XIO_TX_SLOT */
	struct mmsghdr smsg[XIO_TX_BATCH];
	struct iovec siov[XIO_TX_BATCH];
	unsigned ntx;           /* requests queued in tx */
	int send_errno;         /* the last send failure, 0 if none */
	uint64_t rcvbuf;
	uint64_t recv_calls;    /* recvmmsg calls that returned buffers */
	uint64_t rx_buffers;    /* buffers they returned */
};

/* A received buffer: len bytes (0: truncated), and the segment size of the
 * datagrams UDP GRO coalesced into it (0: one datagram). */
struct xio_rx {
	uint32_t len;
	uint32_t gso;
};

/* How a received buffer splits into datagrams: segments of gso bytes, the
 * last one possibly shorter; one datagram when gso is 0 or covers len. */
static inline uint32_t xio_gro_count(uint32_t len, uint32_t gso)
{
	return gso == 0 || gso >= len ? 1 : (len + gso - 1) / gso;
}

/* Segment i (< xio_gro_count) of the buffer: its offset in *off, its length
 * returned. */
static inline uint32_t xio_gro_segment(uint32_t len, uint32_t gso, uint32_t i, uint32_t *off)
{
	if (gso == 0 || gso >= len) {
		*off = 0;
		return len;
	}
	*off = i * gso;
	return len - *off < gso ? len - *off : gso;
}

/* Resolves "HOST[:PORT]", opens a UDP socket connected to it with a
 * receive buffer of rcvbuf bytes (or what the kernel grants), UDP_GRO on
 * when gro is set and the kernel has it. */
XIO_HIDDEN int xio_conn_open(struct xio_conn *c, const char *server, uint32_t rcvbuf, bool gro,
			     struct xio_error *err);
XIO_HIDDEN void xio_conn_close(struct xio_conn *c);
/* The next free request buffer (sending a full batch first). */
XIO_HIDDEN uint8_t *xio_conn_tx_buf(struct xio_conn *c, uint64_t *refused);
XIO_HIDDEN void xio_conn_tx_commit(struct xio_conn *c, size_t len);
/* Sends the queued requests with sendmmsg. A request the kernel refuses is
 * lost as on the wire (its range times out and is asked again): ICMP port
 * unreachable counts in *refused, any other failure is kept in send_errno
 * for the timeout's message. */
XIO_HIDDEN void xio_conn_flush(struct xio_conn *c, uint64_t *refused);
/* Waits until a datagram arrives, wake_fd (>= 0) fires or deadline_ns
 * passes. Returns 1 when datagrams are waiting, 0 on the deadline, 2 when
 * woken, -XIO_ESYS on a failure. */
XIO_HIDDEN int xio_conn_wait(struct xio_conn *c, int wake_fd, uint64_t deadline_ns,
			     struct xio_error *err);
/* Receives up to XIO_RX_BATCH buffers without blocking, their lengths and
 * GRO segment sizes in rx[]. Returns how many (0: none waiting). */
XIO_HIDDEN int xio_conn_recv(struct xio_conn *c, struct xio_rx rx[XIO_RX_BATCH],
			     uint64_t *refused, struct xio_error *err);
static inline const uint8_t *xio_conn_rx(const struct xio_conn *c, int i)
{
	return c->rx + (size_t)i * XIO_RX_SLOT;
}

/* ---- the engine: flows, each a socket with its timer, window and counters ---- */

#define XIO_REQ_TABLE 4096 /* requests remembered per flow, by stream_id modulo */
#define XIO_RE_REQ_MAX 64  /* re-requests per chunk per timeout */
#define XIO_FLOWS_MAX 64
#define XIO_GAPS_MAX 3      /* holes tracked per request (more: the timeout) */
#define XIO_REORDER_THRESHOLD 3 /* datagrams past a hole before it is a loss
				   (RFC 9002's kPacketThreshold) */
#define XIO_GAP_WATCH 32    /* requests with holes a flow watches for the time rule */
#define XIO_GAP_TIME_MIN_NS 1000000ull /* the time rule's least wait */

/* ---- xio_cookie.c: the address cookie (xio-read 1.2) ---- */

/* The cookie of one (server address, local address): what the last
 * STAT_REPLY to a flow leaving from that local address gave. The flows on
 * one local address share it (a flow is a thread during a read: under
 * lock). Every READ_REQUEST carries it while `have`; a server that gives
 * none (1.0, or validation off) gets none. */
struct xio_cookie {
	pthread_mutex_t lock;
	uint32_t server;               /* the server's index in the list */
	struct sockaddr_storage local; /* the port not counted */
	uint8_t v[XIO_COOKIE_LEN];
	bool have;
	uint32_t gen; /* STAT_REPLYs taken so far (0: none yet): what a request went with */
};

/* A request sent, remembered so that answers can be checked against it. */
struct xio_req {
	uint32_t id;        /* stream_id; 0 = unused */
	uint8_t opcode;     /* READ_REQUEST or STAT_REQUEST */
	uint8_t cookie;     /* it carried the cookie */
	uint32_t cookie_gen; /* xio_cookie.gen when it was sent */
	uint8_t first_try;  /* the chunk's first request: its answer is an RTT sample */
	uint8_t sampled;
	uint32_t slot;
	uint64_t chunk_seq; /* the chunk it was for (a STAT: the stat's number) */
	uint64_t a, b;      /* the range asked for */
	uint64_t sent_ns;
	uint64_t expect;    /* where its answer has reached: the end of the furthest
			       datagram received (a server answers in order) */
	uint64_t end_ns;    /* when it reached the end of the range (0: not yet) */
	uint8_t ngaps;
	struct xio_gap {
		uint64_t a, b;  /* a hole the answer left behind it */
		uint32_t after; /* datagrams of the answer received past it */
	} gaps[XIO_GAPS_MAX];
};

/* A chunk being read: one slot of a flow's window. Its clock (last_ns)
 * starts when its latest request is sent and restarts with every new unit;
 * while that request has brought nothing (waiting), new units for requests
 * sent before it restart it too: a server answers in order, so a request
 * queued behind others is not late. */
struct xio_slot {
	uint64_t chunk_seq; /* 0 = free */
	uint64_t start;     /* first unit (token or byte) of the chunk in the file */
	uint64_t dst;       /* where that unit goes: its index in the caller's memory */
	uint64_t last_ns;
	uint64_t sent_ns;   /* when its latest request went out */
	uint64_t order;     /* the same, in the flow's request order */
	bool waiting;       /* nothing received since then */
	bool retried;       /* asked again at least once (no more RTT samples) */
	unsigned fails;     /* timeouts in a row without a new unit */
	bool cookie_wait;   /* refused for its cookie: asked again with the next one */
	struct xio_missing miss;
};

/* A flow: a UDP socket of its own (its own source port) to its own server
 * address, with the requests it sent, its window of chunks, its timer and
 * its counters. A read runs its flows on threads of their own (flow 0 on
 * the caller's), all taking chunks from the read's one dispenser. */
struct xio_flow {
	struct xio_conn conn;
	struct xio_rtt rtt;
	struct xio_stats st;
	uint32_t next_id;
	uint64_t chunk_seq;
	uint64_t order;         /* request rounds sent */
	struct xio_req *reqs;   /* XIO_REQ_TABLE */
	struct xio_slot *slots; /* opts.window */
	uint64_t *bits;         /* the slots' bitmaps */
	uint64_t low;           /* the lowest dst index it is reading (UINT64_MAX: none);
				   under the read's lock when it falls */
	struct xio_cc cc;
	uint32_t watch[XIO_GAP_WATCH]; /* stream_ids of requests with holes */
	unsigned nwatch;
	uint64_t inflight;      /* bytes asked for and not received (4 a token, 1 a
				   byte) */
	struct xio_cookie *cookie; /* that of its server and local address, in the
				      engine's table */
	uint32_t server;        /* the server it reads from: its index in the list */
};

/* A server of the list. state, drops, rejoins and last_error change under
 * the engine's server lock (a read's flows drop it from their threads). */
struct xio_server {
	char *name;             /* as given in the list */
	uint32_t state;         /* enum xio_server_state */
	uint32_t nflows;        /* flows to it */
	uint64_t drops, rejoins;
	uint64_t mtime_ns, mtime_differs;
	struct xio_error last_error;
};

struct xio_engine {
	struct xio_opts opts;
	uint32_t nflows;
	struct xio_flow *flows; /* max(opts.flows, nservers); flow i reads from
				   server i % nservers */
	uint32_t nservers;
	struct xio_server *servers;
	pthread_mutex_t server_lock;
	struct xio_cookie *cookies; /* one per server and local address of the flows */
	uint32_t ncookies;
	int wake_fd;            /* eventfd: a stream closed, or a flow of the read failed */
	bool canceled;          /* the stream was closed (atomic) */
	uint64_t slot_units;    /* most units of a chunk */
	xio_progress_fn progress;
	void *progress_arg;
};

/* The number of flows a client has by default: the CPUs this process may
 * run on (sched_getaffinity), at most 4 (docs/client.md). */
XIO_HIDDEN uint32_t xio_default_flows(void);
XIO_HIDDEN int xio_opts_check(const struct xio_opts *o, struct xio_error *err);
/* Opens the flows to the servers of the comma-separated list. */
XIO_HIDDEN int xio_engine_init(struct xio_engine *e, const char *servers,
			       const struct xio_opts *o, struct xio_error *err);
/* Server i's state and counters (its flows' added up), as the public
 * xio_*_server_stats. */
XIO_HIDDEN int xio_engine_server_stats(struct xio_engine *e, uint32_t i,
				       struct xio_server_stats *st, size_t size,
				       struct xio_error *err);
/* Drops server i (if it is up) with the reason in *why, its last error:
 * returns the servers still up. */
XIO_HIDDEN uint32_t xio_engine_drop(struct xio_engine *e, uint32_t i, const struct xio_error *why);
/* The servers up. */
XIO_HIDDEN uint32_t xio_engine_up(struct xio_engine *e);
/* The failure when no server is left: path, then each server with its last
 * error ("A: ...; B: ..."), the code theirs when they agree (else
 * XIO_ETIMEOUT); with one server its own error as it is. */
XIO_HIDDEN int xio_engine_all_failed(struct xio_engine *e, const char *path,
				     struct xio_error *err);
XIO_HIDDEN void xio_engine_fini(struct xio_engine *e);
/* A fresh non-zero stream_id of a flow and its table entry. */
XIO_HIDDEN struct xio_req *xio_flow_new_req(struct xio_flow *f);
XIO_HIDDEN struct xio_req *xio_flow_find_req(struct xio_flow *f, uint32_t id);
/* The one place a request is built: a new stream_id, the request queued
 * on the flow's socket (sent by xio_conn_flush), a READ_REQUEST with the
 * address cookie of the flow's local address when there is one, its table
 * entry with opcode, sent_ns and the cookie filled in, counted in
 * requests. */
XIO_HIDDEN struct xio_req *xio_flow_request(struct xio_flow *f, uint8_t opcode, uint64_t first,
					    uint32_t count, uint16_t max_count, uint8_t options,
					    const char *path, size_t path_len, uint64_t now);
/* A flow's counters with its timer's state filled in. */
XIO_HIDDEN void xio_flow_stats(const struct xio_flow *f, struct xio_stats *st);
/* The engine's: the flows' counters summed (docs/client.md says how the
 * timer's and the window's are combined). */
XIO_HIDDEN void xio_engine_stats(const struct xio_engine *e, struct xio_stats *st);
/* Stops the read in progress, from another thread (xio_stream_close). */
XIO_HIDDEN void xio_engine_cancel(struct xio_engine *e);
/* Reads units [first, first + count) of path into dst: UINT16 tokens, or
 * bytes when raw (xio_read.c). */
XIO_HIDDEN int xio_engine_read(struct xio_engine *e, const char *path, uint64_t first,
			       uint64_t count, uint8_t *dst, bool raw, struct xio_error *err);
/* Reads the units of n spans of path into dst, each span's right after the
 * previous one's (xio_read.c). */
XIO_HIDDEN int xio_engine_readv(struct xio_engine *e, const char *path,
				const struct xio_span *spans, size_t n, uint8_t *dst, bool raw,
				struct xio_error *err);
/* Gives each flow the cookie of its server and local address (the flows
 * to one server that leave from one address share one). 0, or -XIO_ESYS. */
XIO_HIDDEN int xio_cookies_init(struct xio_engine *e, struct xio_error *err);
XIO_HIDDEN void xio_cookies_fini(struct xio_engine *e);
/* Takes the cookie of a STAT_REPLY (none in a 16-byte body: a server that
 * does not validate addresses). */
XIO_HIDDEN void xio_cookie_take(struct xio_cookie *c, const uint8_t *b, uint32_t len,
				const struct xio_hdr *h);
/* Adds the cookie, when there is one, to request r of len bytes in buf
 * (XIO_TX_SLOT bytes) and notes it in r; returns the new length. */
XIO_HIDDEN size_t xio_cookie_add(struct xio_cookie *c, struct xio_req *r, uint8_t *buf,
				 size_t len);
/* The number of STAT_REPLYs taken so far. */
XIO_HIDDEN uint32_t xio_cookie_gen(struct xio_cookie *c);
/* Forgets the cookie (a server back at 1.0 refused it). */
XIO_HIDDEN void xio_cookie_drop(struct xio_cookie *c);
/* Sends (queues and flushes) a STAT_REQUEST for stat number stat_no on
 * flow f (xio_stat.c). */
XIO_HIDDEN struct xio_req *xio_flow_send_stat(struct xio_flow *f, const char *path, size_t plen,
					      uint64_t stat_no, bool first_try);
/* STAT_REQUEST with retries, to every server on its first flow, the
 * answers compared (xio_stat.c). */
XIO_HIDDEN int xio_engine_stat(struct xio_engine *e, const char *path, struct xio_stat *st,
			       struct xio_error *err);
/* Checks a path's length for a request (1..1024 bytes). */
XIO_HIDDEN int xio_path_len(const char *path, size_t *len, struct xio_error *err);

/* The client handle (xio_client.c). */
struct xio_client {
	pthread_mutex_t lock;
	char *server;           /* the list as given */
	struct xio_engine e;
};

#endif /* XIO_PRIV_H */
