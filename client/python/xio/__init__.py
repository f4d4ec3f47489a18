# SPDX-License-Identifier: BSD-3-Clause
"""xio: read INT32 token files from an XIO server as UINT16 numpy arrays.

A thin binding of libxio (client/xio.h, docs/client.md) through ctypes:

    import xio
    with xio.Client("storage1:7910") as c:          # or "s1,s2,s3": replicas
        print(c.stat("train.bin"))                  # {'tokens': ..., 'size': ...}
        head = c.read("train.bin", 0, 1 << 20)      # numpy.uint16, 1 Mi tokens
        some = c.read_ranges("train.bin", [(0, 2048), (10**6, 2048)])  # 4096 tokens
        for batch in c.batches("train.bin", 1 << 20, prefetch=4, rank=0, world=8):
            ...                                     # this rank's part, in order

Calls release the GIL while libxio works; one Client may be shared by
threads (its calls take turns). Failures raise XioError. xio.torch has a
PyTorch IterableDataset when torch imports.
"""
import ctypes

import numpy as np

from . import _lib
from ._lib import lib

__all__ = ["Client", "Batches", "XioError", "shard", "library_path"]

library_path = _lib.path


class XioError(RuntimeError):
    """A libxio failure: code (1..), code_name ("timeout", "server", "token",
    ...), server_code (the server's ERROR_REPLY code, else 0), and the
    message."""

    def __init__(self, err):
        self.code = err.code
        self.code_name = lib.xio_code_name(err.code).decode()
        self.server_code = err.server_code
        super().__init__(err.msg.decode(errors="replace"))


def _check(rc, err):
    if rc < 0:
        raise XioError(err)
    return rc


def _path(p):
    return p.encode() if isinstance(p, str) else bytes(p)


def shard(first, count, rank, world):
    """(first, count) of the rank-th of world contiguous parts of a range."""
    f, n = ctypes.c_uint64(), ctypes.c_uint64()
    if lib.xio_shard(first, count, rank, world, ctypes.byref(f), ctypes.byref(n)) < 0:
        raise ValueError("rank %d of world %d" % (rank, world))
    return f.value, n.value


def _stats_dict(st):
    return {name: getattr(st, name) for name in _lib.STATS_FIELDS}


def _server_list(server):
    """"a,b" as it is; a list or tuple of "HOST[:PORT]" joined with commas."""
    if isinstance(server, (list, tuple)):
        return ",".join(server)
    return server


def _server_stats(count, stats, h):
    """Each server's state and counters: a list of dicts, in the list's
    order (state "up" or "dropped", last_error None or the message)."""
    out = []
    for i in range(count(h)):
        st, err = _lib.ServerStats(), _lib.Error()
        _check(stats(h, i, ctypes.byref(st), ctypes.sizeof(st), ctypes.byref(err)), err)
        d = {"address": st.address.decode(), "state": lib.xio_server_state_name(st.state).decode(),
             "flows": st.flows}
        d.update({name: getattr(st, name) for name in _lib.SERVER_STATS_FIELDS})
        d["last_error"] = st.last_error.msg.decode(errors="replace") if st.last_error.code else None
        out.append(d)
    return out


class _Handle:
    """A libxio handle freed by close(), the end of a with block or garbage
    collection; _free is the libxio function that frees it."""

    _h = None

    def close(self):
        if self._h:
            self._before_close()
            self._free(self._h)
            self._h = None

    def _before_close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class Client(_Handle):
    """A client of one server, "HOST[:PORT]" (port 7910 by default), or of
    servers exporting the same files: "a,b:7911,[fd00::3]:7910" or a list
    of such strings; a read is spread over them, a server that stops
    answering is dropped and the others read its part (server_stats()).

    Options as in xio-fetch: chunk (tokens per request), window (requests
    outstanding), timeout_ms (first and most timeout), retries, crc (ask
    for and check CRC32C), saturate (clamp tokens outside 0..65535 instead
    of raising), max_count (tokens per datagram, 0 = the server's choice),
    rcvbuf (socket receive buffer bytes), flows (sockets and threads in
    all, at least one a server), strict_mtime (servers must agree on a
    file's mtime, not only its size)."""

    _free = staticmethod(lib.xio_close)

    def __init__(self, server, *, chunk=None, window=None, timeout_ms=None, retries=None,
                 crc=False, saturate=False, max_count=None, rcvbuf=None, flows=None, gro=True,
                 strict_mtime=False):
        o = _lib.Opts()
        lib.xio_opts_init(ctypes.byref(o))
        for name, v in (("chunk_tokens", chunk), ("window", window), ("timeout_ms", timeout_ms),
                        ("retries", retries), ("max_count", max_count), ("rcvbuf", rcvbuf),
                        ("flows", flows)):
            if v is not None:
                setattr(o, name, int(v))
        o.crc, o.saturate, o.gro = int(bool(crc)), int(bool(saturate)), int(bool(gro))
        o.strict_mtime = int(bool(strict_mtime))
        server = _server_list(server)
        self.server = server
        self._opts = o
        h, err = ctypes.c_void_p(), _lib.Error()
        _check(lib.xio_connect(server.encode(), ctypes.byref(o), ctypes.byref(h),
                               ctypes.byref(err)), err)
        self._h = h

    def _handle(self):
        if not self._h:
            raise ValueError("xio.Client is closed")
        return self._h

    def stat(self, path):
        """{'size': bytes, 'tokens': size // 4, 'mtime_ns': ..., 'is_tokens': bool}."""
        st, err = _lib.Stat(), _lib.Error()
        _check(lib.xio_stat(self._handle(), _path(path), ctypes.byref(st), ctypes.byref(err)),
               err)
        return {"size": st.size, "tokens": st.tokens, "mtime_ns": st.mtime_ns,
                "is_tokens": bool(st.is_tokens)}

    def _to_end(self, path, first, count, unit):
        if count is None:
            total = self.stat(path)[unit]
            if first > total:
                raise XioError(_err(6, "%s: has %d %s, first %d is past its end"
                                    % (path, total, unit, first)))
            count = total - first
        return count

    def read(self, path, first=0, count=None):
        """Tokens [first, first + count) of path (count None: to the end) as a
        numpy uint16 array."""
        count = self._to_end(path, first, count, "tokens")
        out = np.empty(count, dtype=np.uint16)
        if count:
            err = _lib.Error()
            _check(lib.xio_read(self._handle(), _path(path), first, count,
                                out.ctypes.data_as(ctypes.c_void_p), ctypes.byref(err)), err)
        return out

    def read_ranges(self, path, ranges):
        """The tokens of many ranges of path, [(first, count), ...], in one
        pipelined read (xio_readv): one numpy uint16 array, the ranges'
        tokens concatenated in the order given. Every range must lie inside
        the file."""
        spans = np.array(ranges, dtype=np.uint64).reshape(-1, 2)
        out = np.empty(int(spans[:, 1].sum()) if len(spans) else 0, dtype=np.uint16)
        if len(out):
            spans = np.ascontiguousarray(spans)
            err = _lib.Error()
            _check(lib.xio_readv(self._handle(), _path(path),
                                 spans.ctypes.data_as(ctypes.c_void_p), len(spans),
                                 out.ctypes.data_as(ctypes.c_void_p), ctypes.byref(err)), err)
        return out

    def read_bytes(self, path, first=0, count=None):
        """Bytes [first, first + count) of any file (a RAW read) as numpy uint8."""
        count = self._to_end(path, first, count, "size")
        out = np.empty(count, dtype=np.uint8)
        if count:
            err = _lib.Error()
            _check(lib.xio_read_bytes(self._handle(), _path(path), first, count,
                                      out.ctypes.data_as(ctypes.c_void_p), ctypes.byref(err)),
                   err)
        return out

    def batches(self, path, batch_tokens, prefetch=4, rank=0, world=1, first=0, count=None,
                copy=True):
        """An iterator of numpy uint16 arrays of batch_tokens tokens (the last
        may be shorter) over the rank-th of world parts of [first, first +
        count) (count None: to the end), prefetch batches fetched ahead on a
        libxio thread. copy=False yields zero-copy views into libxio's ring,
        valid only until the next batch is asked for."""
        return Batches(self, path, batch_tokens, prefetch, rank, world, first, count or 0, copy)

    def stats(self):
        """The client's counters (xio_stats) as a dict: its flows' added up."""
        st = _lib.Stats()
        lib.xio_client_stats(self._handle(), ctypes.byref(st))
        return _stats_dict(st)

    def flow_stats(self):
        """Each flow's own counters: a list of dicts, one per flow."""
        out = []
        for i in range(lib.xio_client_flows(self._handle())):
            st, err = _lib.Stats(), _lib.Error()
            _check(lib.xio_client_flow_stats(self._h, i, ctypes.byref(st), ctypes.byref(err)),
                   err)
            out.append(_stats_dict(st))
        return out

    def server_stats(self):
        """Each server's state ("up", "dropped") and counters (tokens,
        re_requests, drops, rejoins, mtime_ns, last_error, ...)."""
        return _server_stats(lib.xio_client_server_count, lib.xio_client_server_stats,
                             self._handle())


def _err(code, msg):
    e = _lib.Error()
    e.code = code
    e.msg = msg.encode()[:255]
    return e


class Batches(_Handle):
    """The iterator of Client.batches: a libxio prefetching stream. first
    and count are its range after sharding; close() stops it (so does the
    end of the iteration and garbage collection)."""

    _free = staticmethod(lib.xio_stream_close)

    def __init__(self, client, path, batch_tokens, prefetch, rank, world, first, count, copy):
        o, err, h = _lib.StreamOpts(), _lib.Error(), ctypes.c_void_p()
        lib.xio_stream_opts_init(ctypes.byref(o), int(batch_tokens))
        o.depth, o.rank, o.world, o.first, o.count = prefetch, rank, world, first, count
        self._copy = copy
        self._last = _stats_dict(_lib.Stats())
        self._last_servers = []
        _check(lib.xio_stream_open(client._handle(), _path(path), ctypes.byref(o),
                                   ctypes.byref(h), ctypes.byref(err)), err)
        self._h = h
        f, n = ctypes.c_uint64(), ctypes.c_uint64()
        lib.xio_stream_range(h, ctypes.byref(f), ctypes.byref(n))
        self.first, self.count = f.value, n.value

    def __iter__(self):
        return self

    def __next__(self):
        if not self._h:
            raise StopIteration
        ptr, n, err = ctypes.POINTER(ctypes.c_uint16)(), ctypes.c_size_t(), _lib.Error()
        rc = lib.xio_stream_next(self._h, ctypes.byref(ptr), ctypes.byref(n), ctypes.byref(err))
        if rc == 0:
            self.close()
            raise StopIteration
        if rc < 0:
            self.close()
            raise XioError(err)
        view = np.ctypeslib.as_array(ptr, shape=(n.value,))
        return view.copy() if self._copy else view

    def stats(self):
        """The stream's counters as a dict (as of its last complete read)."""
        if self._h:
            st = _lib.Stats()
            lib.xio_stream_stats(self._h, ctypes.byref(st))
            self._last = _stats_dict(st)
        return self._last

    def server_stats(self):
        """The stream's servers, as Client.server_stats (as of now; kept
        from the close on)."""
        if self._h:
            self._last_servers = _server_stats(lib.xio_stream_server_count,
                                               lib.xio_stream_server_stats, self._h)
        return self._last_servers

    def _before_close(self):
        self.stats()  # kept for after the end
        self.server_stats()
