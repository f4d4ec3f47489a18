# SPDX-License-Identifier: BSD-3-Clause
"""ctypes declarations of libxio (client/xio.h) and where the library is.

The library is, in order: $XIO_LIB (a path to libxio.so); the copy an
installed package carries beside this file (libxio.so.1, put there by
client/python/setup.py); build/libxio.so of the checkout this package lives
in (client/python/xio/ -> ../../../build/); a libxio.so.1 the dynamic loader
finds (the soname of this mirror of xio.h's structures: a library of another
major number is refused).
"""
import ctypes
import ctypes.util
import os

c_u32, c_u64, c_i32 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32
SONAME = "libxio.so.1"  # client/client.mk LIBXIO_SO_MAJOR: the structures below are its


class Error(ctypes.Structure):
    _fields_ = [("code", c_i32), ("server_code", c_u32), ("msg", ctypes.c_char * 256)]


class Opts(ctypes.Structure):
    _fields_ = [(name, c_u32) for name in (
        "chunk_tokens", "window", "timeout_ms", "retries", "max_count", "rcvbuf", "crc",
        "saturate", "gro", "flows", "strict_mtime")]


STATS_FIELDS = (
    "tokens", "bytes", "datagrams", "bytes_received", "replies_uint16", "replies_int32",
    "data_replies", "answers", "requests", "re_requests", "timeouts", "duplicates",
    "crc_errors", "malformed", "ignored", "clamped", "refused", "srtt_us", "rttvar_us",
    "rto_us", "rcvbuf", "recv_calls", "rx_buffers", "gro", "flows", "gap_re_requests",
    "timeout_re_requests", "cwnd", "cwnd_reductions", "cookie_refreshes")


class Stats(ctypes.Structure):
    _fields_ = [(name, c_u64) for name in STATS_FIELDS]


SERVER_STATS_FIELDS = (
    "tokens", "bytes", "datagrams", "requests", "re_requests", "timeouts", "refused", "drops",
    "rejoins", "mtime_ns", "mtime_differs")


class ServerStats(ctypes.Structure):
    _fields_ = ([("address", ctypes.c_char * 256), ("state", c_u32), ("flows", c_u32)]
                + [(name, c_u64) for name in SERVER_STATS_FIELDS] + [("last_error", Error)])


class Stat(ctypes.Structure):
    _fields_ = [("size", c_u64), ("tokens", c_u64), ("mtime_ns", c_u64), ("is_tokens", c_u32)]


class MegatronIdx(ctypes.Structure):
    _fields_ = [("sequences", c_u64), ("documents", c_u64), ("tokens", c_u64),
                ("dtype", ctypes.c_uint8)]


class StreamOpts(ctypes.Structure):
    _fields_ = [("first", c_u64), ("count", c_u64), ("batch_tokens", c_u64), ("depth", c_u32),
                ("rank", c_u32), ("world", c_u32)]


def _find():
    env = os.environ.get("XIO_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    carried = os.path.join(here, SONAME)
    if os.path.exists(carried):
        return carried
    built = os.path.join(here, "..", "..", "..", "build", "libxio.so")
    if os.path.exists(built):
        return os.path.normpath(built)
    found = ctypes.util.find_library("xio")
    if found == SONAME:
        return found
    raise ImportError("xio: %s not found%s: build it (make) in the checkout of this "
                      "package, install it (make install), or set XIO_LIB to its path"
                      % (SONAME, " (the loader has %s, another ABI)" % found if found else ""))


def _declare(lib):
    p, vp = ctypes.POINTER, ctypes.c_void_p
    sigs = {
        "xio_code_name": (ctypes.c_char_p, [ctypes.c_int]),
        "xio_opts_init": (None, [p(Opts)]),
        "xio_connect": (ctypes.c_int, [ctypes.c_char_p, p(Opts), p(vp), p(Error)]),
        "xio_close": (None, [vp]),
        "xio_stat": (ctypes.c_int, [vp, ctypes.c_char_p, p(Stat), p(Error)]),
        "xio_read": (ctypes.c_int, [vp, ctypes.c_char_p, c_u64, c_u64, vp, p(Error)]),
        "xio_readv": (ctypes.c_int, [vp, ctypes.c_char_p, vp, ctypes.c_size_t, vp, p(Error)]),
        "xio_read_bytes": (ctypes.c_int, [vp, ctypes.c_char_p, c_u64, c_u64, vp, p(Error)]),
        "xio_client_stats": (None, [vp, p(Stats)]),
        "xio_client_flows": (c_u32, [vp]),
        "xio_client_flow_stats": (ctypes.c_int, [vp, c_u32, p(Stats), p(Error)]),
        "xio_client_server_count": (c_u32, [vp]),
        "xio_client_server_stats": (ctypes.c_int, [vp, c_u32, p(ServerStats), ctypes.c_size_t,
                                                   p(Error)]),
        "xio_stream_server_count": (c_u32, [vp]),
        "xio_stream_server_stats": (ctypes.c_int, [vp, c_u32, p(ServerStats), ctypes.c_size_t,
                                                   p(Error)]),
        "xio_server_state_name": (ctypes.c_char_p, [c_u32]),
        "xio_shard": (ctypes.c_int, [c_u64, c_u64, c_u32, c_u32, p(c_u64), p(c_u64)]),
        "xio_stream_opts_init": (None, [p(StreamOpts), c_u64]),
        "xio_stream_open": (ctypes.c_int, [vp, ctypes.c_char_p, p(StreamOpts), p(vp), p(Error)]),
        "xio_stream_next": (ctypes.c_int, [vp, p(p(ctypes.c_uint16)), p(ctypes.c_size_t),
                                           p(Error)]),
        "xio_stream_range": (None, [vp, p(c_u64), p(c_u64)]),
        "xio_stream_stats": (None, [vp, p(Stats)]),
        "xio_stream_close": (None, [vp]),
        "xio_megatron_idx_narrow": (ctypes.c_int, [vp, ctypes.c_size_t, c_u64, p(MegatronIdx),
                                                   p(Error)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


path = _find()
lib = _declare(ctypes.CDLL(path))
