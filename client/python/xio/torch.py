# SPDX-License-Identifier: BSD-3-Clause
"""xio.torch: PyTorch datasets over XIO token files.

    from xio.torch import TokenDataset, BlendedTokenDataset, to_device
    ds = TokenDataset("storage1:7910", "train.bin", context=1024, shuffle=True, seed=7)
    loader = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=4)
    for epoch in range(3):
        ds.set_epoch(epoch)
        for inputs, targets in loader:  # LongTensor [8, 1024] each
            ...

The tokens [first, first + count) of a file are cut into samples of
context + 1 consecutive tokens, sample k starting at token first + k x
context (so the target of one sample's last input is the next sample's
first token): inputs are tokens [0, context) of the sample, targets tokens
[1, context]. Every sample is seen once per epoch, split over the streams
of (rank, DataLoader worker) pairs without overlap: in file order, each
stream a contiguous part, or with shuffle=True in a permutation of all the
samples drawn from (seed, epoch), each stream a contiguous part of it.
Each stream reads through a connection of its own, samples_per_batch
samples per Client.read_ranges call, prefetch such calls ahead on a thread.

state_dict() / load_state_dict() follow torchdata's StatefulDataLoader:
the state of the stream iterating in this process (its epoch and the
samples it has yielded); a dataset with the same arguments that loads it
yields the rest of that stream exactly.

uint16=True yields each sample as one tensor of context + 1 UINT16 tokens
(int16 bits: torch has no uint16), a quarter of the bytes of the int64
pair; to_device() copies such batches to the GPU and widens them there.
"""
import queue
import threading

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

from . import Client, _server_list, shard

__all__ = ["TokenDataset", "BlendedTokenDataset", "to_device", "widen", "client"]


def _dist_rank_world():
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_rank(), torch.distributed.get_world_size()
    return 0, 1


def _stream(rank, world):
    """(stream, streams): this (rank, DataLoader worker) among all."""
    r, w = _dist_rank_world()
    r = r if rank is None else rank
    w = w if world is None else world
    if not 0 <= r < w:
        raise ValueError("rank %d of world %d" % (r, w))
    info = get_worker_info()
    wid, nworkers = (info.id, info.num_workers) if info else (0, 1)
    return r * nworkers + wid, w * nworkers


def client(server, **client_opts):
    """An xio.Client for this process: in a DataLoader worker one flow
    unless flows= says otherwise (the workers are the parallelism,
    docs/client.md's Flows)."""
    if get_worker_info() is not None:
        client_opts.setdefault("flows", 1)
    return Client(server, **client_opts)


class _Prefetcher:
    """Runs fetch(item) for the items in order on a thread of its own, up
    to depth results ahead of the consumer; iterating it yields them."""

    def __init__(self, fetch, items, depth):
        self._q = queue.Queue(max(1, depth))
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, args=(fetch, items), daemon=True)
        self._t.start()

    def _put(self, v):
        while not self._stop.is_set():
            try:
                self._q.put(v, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def _run(self, fetch, items):
        try:
            for it in items:
                if self._stop.is_set() or not self._put((True, fetch(it))):
                    return
            self._put((True, None))
        except BaseException as e:  # handed to the consumer
            self._put((False, e))

    def __iter__(self):
        try:
            while True:
                ok, v = self._q.get()
                if not ok:
                    raise v
                if v is None:
                    return
                yield v
        finally:
            self._stop.set()
            self._t.join()


class TokenDataset(IterableDataset):
    """Samples of `context` tokens from path on server: (input, target)
    LongTensor pairs, or with uint16=True one int16 tensor of context + 1
    UINT16 tokens. rank and world default to torch.distributed's (0 and 1
    without it); first/count select a range of the file (count None: to
    the end); shuffle=True permutes the samples by seed and the epoch
    (set_epoch); samples_per_batch samples are fetched per read,
    prefetch reads ahead; other keywords go to xio.Client (crc, saturate,
    timeout_ms, ...)."""

    def __init__(self, server, path, context, *, shuffle=False, seed=0, rank=None, world=None,
                 first=0, count=None, samples_per_batch=64, prefetch=4, uint16=False,
                 **client_opts):
        super().__init__()
        if context < 1:
            raise ValueError("context must be at least 1")
        if samples_per_batch < 1 or prefetch < 1:
            raise ValueError("samples_per_batch and prefetch must be at least 1")
        # "a,b,c" or a list of servers: one read spread over them (Client)
        self.server, self.path, self.context = _server_list(server), path, int(context)
        self.shuffle, self.seed = bool(shuffle), int(seed)
        self.rank, self.world = rank, world
        self.first, self.count = int(first), count
        self.samples_per_batch, self.prefetch = int(samples_per_batch), int(prefetch)
        self.uint16 = bool(uint16)
        self.client_opts = client_opts
        self.epoch = 0
        self._resume = None
        self._state = None

    def set_epoch(self, epoch):
        """The epoch whose permutation shuffle=True draws (seed, epoch)."""
        self.epoch = int(epoch)

    def _nsamples(self, client):
        count = self.count
        if count is None:
            count = client.stat(self.path)["tokens"] - self.first
        return max(count - 1, 0) // self.context

    def _order(self, nsamples, stream, streams, epoch):
        """The sample numbers of a stream in its order, for an epoch."""
        lo, n = shard(0, nsamples, stream, streams)
        if not self.shuffle:
            return np.arange(lo, lo + n, dtype=np.int64)
        perm = np.random.default_rng([self.seed, epoch]).permutation(nsamples)
        return perm[lo:lo + n]

    def _fetch(self, client, ks):
        """The samples ks as a (len(ks), context + 1) uint16 array: one
        range per run of consecutive samples, all in one read."""
        ctx = self.context
        cut = np.flatnonzero(np.diff(ks) != 1) + 1
        runs = np.split(ks, cut)
        ranges = [(self.first + int(r[0]) * ctx, len(r) * ctx + 1) for r in runs]
        tokens = client.read_ranges(self.path, ranges)
        out, at, row = np.empty((len(ks), ctx + 1), dtype=np.uint16), 0, 0
        for (_, n), r in zip(ranges, runs):
            w = np.lib.stride_tricks.sliding_window_view(tokens[at:at + n], ctx + 1)[::ctx]
            out[row:row + len(r)] = w
            at, row = at + n, row + len(r)
        return out

    _IDENTITY = ("stream", "samples_total", "seed", "shuffle", "context", "first")

    @classmethod
    def _check_state(cls, state, want):
        for k in cls._IDENTITY:
            if state.get(k) != want[k]:
                raise ValueError("TokenDataset.load_state_dict: the state is of %s %r, this "
                                 "dataset's stream has %r: load each stream's own state into "
                                 "a dataset made with the same arguments"
                                 % (k, state.get(k), want[k]))

    def _samples(self, stream, streams, epoch, start, state=None):
        """An iterator of this stream's samples from its start-th, as numpy
        uint16 arrays of context + 1 tokens; state is updated as it goes."""
        client = self._open()
        nsamples = self._nsamples(client)
        done = start
        self._state = self._state_of(stream, streams, nsamples, epoch, done)
        if state is not None:
            self._check_state(state, self._state)
        order = self._order(nsamples, stream, streams, epoch)[start:]
        b = self.samples_per_batch
        batches = (order[i:i + b] for i in range(0, len(order), b))
        fetched = iter(_Prefetcher(lambda ks: self._fetch(client, ks), batches, self.prefetch))
        try:
            for batch in fetched:
                for row in batch:
                    done += 1
                    self._state["samples"] = done
                    yield row
        finally:
            fetched.close()
            client.close()

    def _open(self):
        """What this process's stream reads from: a client of its own."""
        return client(self.server, **self.client_opts)

    def _state_of(self, stream, streams, nsamples, epoch, samples):
        return {"epoch": epoch, "samples": samples, "stream": [stream, streams],
                "samples_total": nsamples, "seed": self.seed, "shuffle": self.shuffle,
                "context": self.context, "first": self.first}

    def _begin(self):
        """(stream, streams, epoch, start, state) of a new iteration: from
        a loaded state once, else from the start of self.epoch."""
        stream, streams = _stream(self.rank, self.world)
        state, self._resume = self._resume, None
        if state is not None:
            return stream, streams, state["epoch"], state["samples"], state
        return stream, streams, self.epoch, 0, None

    def __iter__(self):
        stream, streams, epoch, start, state = self._begin()
        for row in self._samples(stream, streams, epoch, start, state):
            yield _sample(row, self.uint16)

    def state_dict(self):
        """The state of this process's stream: its epoch and the samples it
        has yielded (a loaded state not yet iterated, or the start of the
        epoch when nothing has been)."""
        if self._resume is not None:
            return dict(self._resume)
        if self._state is not None:
            return dict(self._state)
        return {"epoch": self.epoch, "samples": 0}

    def load_state_dict(self, state):
        """The next iteration resumes the stream of state (checked against
        this dataset's arguments and the stream it runs as)."""
        self.epoch = int(state["epoch"])
        self._resume = dict(state) if "stream" in state else None


def _sample(row, uint16):
    if uint16:
        return torch.from_numpy(row.view(np.int16).copy())
    t = torch.from_numpy(row.astype(np.int64))
    return t[:-1], t[1:]


class BlendedTokenDataset(IterableDataset):
    """Samples drawn from several TokenDatasets (other files, other
    servers) by weight: in each (rank, worker) stream the i-th sample comes
    from the source whose weight x max(i, 1) exceeds the samples it has
    given most (Megatron-LM's BlendedDataset rule; ties go to the source
    first in an order drawn from seed), so after every n samples each
    source has given its weight x n within one. Each source reads its own
    part of its samples (its shuffle, its seed); the stream ends when the
    source the rule picks has no sample left. Give the sources the same
    rank and world. set_epoch and the state follow TokenDataset's."""

    def __init__(self, datasets, weights, *, seed=0):
        super().__init__()
        if len(datasets) != len(weights) or not datasets:
            raise ValueError("one weight per dataset, at least one dataset")
        w = np.asarray(weights, dtype=np.float64)
        if (w <= 0).any():
            raise ValueError("weights must be positive")
        if len({d.uint16 for d in datasets}) != 1:
            raise ValueError("the sources must all be uint16=True or all uint16=False")
        self.datasets, self.weights = list(datasets), w / w.sum()
        self.seed = int(seed)
        self.tie_order = np.random.default_rng(self.seed).permutation(len(datasets))
        self.epoch = 0
        self._resume = None
        self._state = None

    def set_epoch(self, epoch):
        self.epoch = int(epoch)
        for d in self.datasets:
            d.set_epoch(epoch)

    def choose(self, i, given):
        """The source of sample i after given[d] samples from each."""
        err = self.weights * max(i, 1) - given
        return int(self.tie_order[np.argmax(err[self.tie_order])])

    def __iter__(self):
        stream, streams = _stream(self.datasets[0].rank, self.datasets[0].world)
        state, self._resume = self._resume, None
        epoch = self.epoch if state is None else state["epoch"]
        given = np.zeros(len(self.datasets), dtype=np.int64)
        if state is not None:
            if state["stream"] != [stream, streams] or len(state["given"]) != len(given):
                raise ValueError("BlendedTokenDataset.load_state_dict: the state is of stream "
                                 "%r of %d sources, this is stream %r of %d"
                                 % (state["stream"], len(state["given"]), [stream, streams],
                                    len(given)))
            given[:] = state["given"]
        its = []
        for d, g in zip(self.datasets, given):
            s, ss = _stream(d.rank, d.world)
            its.append(d._samples(s, ss, epoch, int(g)))
        i = int(given.sum())
        self._state = {"epoch": epoch, "samples": i, "given": given.tolist(),
                       "stream": [stream, streams]}
        try:
            while True:
                d = self.choose(i, given)
                row = next(its[d], None)
                if row is None:
                    return
                given[d] += 1
                i += 1
                self._state["samples"], self._state["given"] = i, given.tolist()
                yield _sample(row, self.datasets[0].uint16)
        finally:
            for it in its:
                it.close()

    def state_dict(self):
        if self._resume is not None:
            return dict(self._resume)
        if self._state is not None:
            return dict(self._state, given=list(self._state["given"]))
        return {"epoch": self.epoch, "samples": 0}

    def load_state_dict(self, state):
        self.set_epoch(state["epoch"])
        self._resume = dict(state) if "given" in state else None


def widen(batch):
    """(inputs, targets) int64 from a batch of UINT16 samples (int16 bits,
    [B, context + 1]), on the batch's device."""
    wide = batch.to(torch.int64) & 0xFFFF
    return wide[:, :-1].contiguous(), wide[:, 1:].contiguous()


def to_device(batches, device="cuda"):
    """Iterates batches of UINT16 samples (a DataLoader over datasets made
    with uint16=True; pin_memory=True saves a copy) and yields (inputs,
    targets) int64 on device: each batch goes over PCIe as two bytes a token
    (pinned host memory, a non_blocking copy on a side stream while the
    previous batch is in use) and is widened on the GPU. In the main
    process: CUDA does not start in forked DataLoader workers."""
    device = torch.device(device)
    if device.type != "cuda":
        for b in batches:
            yield widen(b.to(device))
        return
    side = torch.cuda.Stream(device)
    pending = None
    for b in batches:
        if not b.is_pinned():
            b = b.pin_memory()
        with torch.cuda.stream(side):
            x, y = widen(b.to(device, non_blocking=True))
            done = torch.cuda.Event()
            done.record(side)
        if pending is not None:
            yield _ready(*pending, device)
        pending = (x, y, done)
    if pending is not None:
        yield _ready(*pending, device)


def _ready(x, y, done, device):
    cur = torch.cuda.current_stream(device)
    cur.wait_event(done)
    x.record_stream(cur)
    y.record_stream(cur)
    return x, y
