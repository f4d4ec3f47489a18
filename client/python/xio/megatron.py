# SPDX-License-Identifier: BSD-3-Clause
"""xio.megatron: Megatron-LM's GPT datasets read from an XIO server.

    import xio.megatron
    dataset_type = xio.megatron.gpt_dataset_class("storage1:7910")  # for GPTDataset
    train_ds, valid_ds, test_ds = BlendedMegatronDatasetBuilder(
        dataset_type, train_val_test_num_samples, is_dataset_built, config).build()

XioIndexedDataset is the low-level dataset Megatron-LM's GPTDataset reads
through (the part of megatron.core.datasets.indexed_dataset.IndexedDataset it
uses): the index PREFIX.idx of an int32 dataset on the server is read once
(a RAW read), checked and rewritten by libxio's xio_megatron_idx_narrow into
the index of the UINT16 form, and the tokens of PREFIX.bin are read as
UINT16. gpt_dataset_class makes the GPTDataset subclass whose
build_low_level_dataset returns one, and which fetches the token ranges of
a whole batch of samples in one Client.read_ranges call. docs/client.md
says what a Megatron-LM user writes.
"""
import copyreg
import ctypes
import hashlib
import os
import re
import threading
from collections import OrderedDict

import numpy as np

from . import XioError, _check, _server_list
from ._lib import Error, MegatronIdx, lib

__all__ = ["XioIndexedDataset", "gpt_dataset_class"]


_HEADER = 34  # magic (9), version (8), dtype code (1), sequence and document counts (8 + 8)


class XioIndexedDataset:
    """The Megatron-LM indexed dataset path_prefix (.idx and .bin, int32 on
    the server) read from server, its tokens served as numpy uint16.

    Attributes as Megatron-LM's IndexedDataset: sequence_lengths (int32),
    sequence_pointers (int64 byte offsets into the UINT16 .bin: the int32
    pointers halved), document_indices (int64), sequence_modes (None),
    path_prefix. client_opts go to xio.Client (crc, saturate, timeout_ms,
    ...); cache_tokens bounds the tokens kept by prefetch().

    Each process opens its own connection when it first reads (a DataLoader
    worker, forked or spawned, never uses its parent's); pickling keeps the
    server, the prefix, the options and a digest of the index, and a copy
    that finds a different index on the server refuses to serve it."""

    def __init__(self, server, path_prefix, *, cache_tokens=1 << 24, **client_opts):
        # "a,b,c" or a list of servers: one read spread over them (Client)
        self.server, self.path_prefix = _server_list(server), path_prefix
        self.client_opts = client_opts
        self.cache_tokens = int(cache_tokens)
        self._load(None)

    # The connection: one per process, opened on first use.
    def _client(self):
        if self._conn is None or self._pid != os.getpid():
            from .torch import client  # one flow in a DataLoader worker
            self._conn = client(self.server, **self.client_opts)
            self._pid = os.getpid()
        return self._conn

    def _load(self, digest):
        self._conn, self._pid = None, None
        self._lock = threading.Lock()
        self._cache, self._cached_tokens = OrderedDict(), 0
        self._recording = None
        bin_path = self.path_prefix + ".bin"
        c = self._client()
        raw = c.read_bytes(self.path_prefix + ".idx")
        got = hashlib.blake2b(raw, digest_size=16).hexdigest()
        if digest is not None and got != digest:
            raise XioError(_error(9, "%s.idx on %s changed since this dataset was made: "
                                  "restart the training so that every process reads one index"
                                  % (self.path_prefix, self.server)))
        self.idx_digest = got
        st = c.stat(bin_path)
        info, err = MegatronIdx(), Error()
        _check(lib.xio_megatron_idx_narrow(raw.ctypes.data_as(ctypes.c_void_p), len(raw),
                                           st["tokens"], ctypes.byref(info), ctypes.byref(err)),
               err)
        n, d = info.sequences, info.documents
        self.sequence_lengths = np.frombuffer(raw, "<i4", n, _HEADER).astype(np.int32, copy=False)
        self.sequence_pointers = np.frombuffer(raw, "<i8", n, _HEADER + 4 * n).astype(
            np.int64, copy=False)
        self.document_indices = np.frombuffer(raw, "<i8", d, _HEADER + 12 * n).astype(
            np.int64, copy=False)
        self.sequence_modes = None
        self.dtype = np.uint16
        self._bin = bin_path

    def __getstate__(self):
        return {"server": self.server, "path_prefix": self.path_prefix,
                "client_opts": self.client_opts, "cache_tokens": self.cache_tokens,
                "idx_digest": self.idx_digest}

    def __setstate__(self, state):
        self.server, self.path_prefix = state["server"], state["path_prefix"]
        self.client_opts, self.cache_tokens = state["client_opts"], state["cache_tokens"]
        self._load(state["idx_digest"])

    def __len__(self):
        return len(self.sequence_lengths)

    def _range(self, idx, offset, length):
        """(first token, count) in .bin of get(idx, offset, length)."""
        size = int(self.sequence_lengths[idx])
        offset = int(offset)
        length = size - offset if length is None else int(length)
        if offset < 0 or length < 0 or offset + length > size:
            raise IndexError("%s: sequence %d has %d tokens: offset %d length %d is outside it"
                             % (self.path_prefix, int(idx), size, offset, length))
        return int(self.sequence_pointers[idx]) // 2 + offset, length

    def get(self, idx, offset=0, length=None):
        """Tokens [offset, offset + length) of sequence idx (length None: to
        its end) as numpy uint16; idx, offset and length may be numpy
        integers. Served from what prefetch() fetched when it is there."""
        first, count = self._range(idx, offset, length)
        if self._recording is not None:
            self._recording.append((first, count))
            return np.zeros(count, dtype=np.uint16)
        with self._lock:
            hit = self._cache.get((first, count))
        if hit is not None:
            return hit
        return self._client().read_ranges(self._bin, [(first, count)])

    def __getitem__(self, idx):
        """Sequence idx (an int) as numpy uint16, or a list of them for a
        contiguous slice, as Megatron-LM's IndexedDataset."""
        if isinstance(idx, (int, np.integer)):
            return self.get(idx)
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            if step != 1:
                raise ValueError("Slices into indexed_dataset must be contiguous")
            if stop <= start:
                return []
            sizes = self.sequence_lengths[start:stop]
            first = int(self.sequence_pointers[start]) // 2
            tokens = self._client().read_ranges(self._bin, [(first, int(sizes.sum()))])
            return np.split(tokens, np.cumsum(sizes)[:-1])
        raise TypeError("Unexpected type received for idx: {}".format(type(idx)))

    def record(self, fn, *args):
        """Calls fn(*args) with get() recording the ranges it is asked for
        (and returning zeros) instead of reading: the ranges, in order."""
        self._recording = []
        try:
            fn(*args)
            return self._recording
        finally:
            self._recording = None

    def prefetch(self, ranges):
        """Fetches the (first, count) ranges of .bin that are not cached yet
        in one Client.read_ranges call and keeps them for get(), the oldest
        dropped beyond cache_tokens tokens."""
        with self._lock:
            todo = list(OrderedDict.fromkeys(r for r in ranges if r not in self._cache))
        if not todo:
            return
        tokens = self._client().read_ranges(self._bin, todo)
        tokens.flags.writeable = False
        at = np.cumsum([0] + [n for _, n in todo])
        with self._lock:
            for i, r in enumerate(todo):
                self._cache[r] = tokens[at[i]:at[i + 1]]
                self._cached_tokens += r[1]
            while self._cached_tokens > self.cache_tokens and len(self._cache) > len(todo):
                _, old = self._cache.popitem(last=False)
                self._cached_tokens -= len(old)


def _error(code, msg):
    e = Error()
    e.code, e.msg = code, msg.encode()[:255]
    return e


# gpt_dataset_class: one class per (server, base, readahead, options), made
# once per process, pickled by reference to this function (copyreg on a
# metaclass of its own), so that spawned workers and torch.save rebuild it.
_classes = {}
_metas = {}


def _class_key(server, base, readahead, client_opts):
    return (server, base, readahead, tuple(sorted(client_opts.items())))


def _meta_for(base):
    m = type(base)
    if m not in _metas:
        meta = type("XioDatasetMeta", (m,), {})
        copyreg.pickle(meta, _rebuild_reducer)
        _metas[m] = meta
    return _metas[m]


def _rebuild_reducer(cls):
    return _rebuild, (cls.xio_server, cls.xio_base, cls.xio_readahead, cls.xio_client_opts)


def _rebuild(server, base, readahead, client_opts):
    return gpt_dataset_class(server, base, readahead=readahead, **client_opts)


def _cache_name(server, client_opts):
    """The class name, which Megatron-LM puts in its index cache key and
    file names: it carries the server (and saturate, which changes tokens),
    so two servers exporting one prefix never share cached indices."""
    name = "XioGPTDataset_" + re.sub(r"[^A-Za-z0-9.-]", "_", server)
    return name + ("_saturate" if client_opts.get("saturate") else "")


def gpt_dataset_class(server, base=None, *, readahead=32, **client_opts):
    """A subclass of base (Megatron-LM's
    megatron.core.datasets.gpt_dataset.GPTDataset when None, imported only
    now) whose build_low_level_dataset(dataset_path, config) returns
    XioIndexedDataset(server, dataset_path, **client_opts).

    Its samples fetch their tokens in batches: __getitems__ (a DataLoader's
    whole batch) and, for single samples, the next readahead samples of the
    dataset's order on a miss (a BlendedDataset asks each source for its
    samples in order), each batch one Client.read_ranges call. The same
    arguments give the same class in a process; it pickles by these
    arguments."""
    if base is None:
        from megatron.core.datasets.gpt_dataset import GPTDataset as base
    server = _server_list(server)  # a list of servers: one string, the class key
    key = _class_key(server, base, readahead, client_opts)
    if key in _classes:
        return _classes[key]

    def build_low_level_dataset(dataset_path, config):
        return XioIndexedDataset(server, dataset_path, **client_opts)

    # The get() calls of a sample, recorded: GPTDataset's own method that
    # makes them, or its whole __getitem__ where that is missing.
    query = getattr(base, "_query_document_sample_shuffle_indices", base.__getitem__)

    def _xio_prefetch(self, indices):
        ranges = []
        for i in indices:
            ranges += self.dataset.record(query, self, int(i))
        self.dataset.prefetch(ranges)
        self._xio_ready = set(int(i) for i in indices)

    def __getitem__(self, idx):
        if idx is not None and readahead > 0 and int(idx) not in self._xio_ready:
            self._xio_prefetch(range(int(idx), min(int(idx) + readahead, len(self))))
        return base.__getitem__(self, idx)

    def __getitems__(self, indices):
        self._xio_prefetch([i for i in indices if i is not None])
        return [self[i] for i in indices]

    ns = {
        "build_low_level_dataset": staticmethod(build_low_level_dataset),
        "_xio_prefetch": _xio_prefetch, "_xio_ready": frozenset(),
        "__getitem__": __getitem__, "__getitems__": __getitems__,
        "xio_server": server, "xio_base": base, "xio_readahead": readahead,
        "xio_client_opts": dict(client_opts), "__module__": __name__,
        "__doc__": "Megatron-LM's %s over the XIO server %s (xio.megatron)"
                   % (base.__name__, server),
    }
    cls = _meta_for(base)(_cache_name(server, client_opts), (base,), ns)
    _classes[key] = cls
    return cls
