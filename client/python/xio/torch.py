# SPDX-License-Identifier: BSD-3-Clause
"""xio.torch: a PyTorch IterableDataset over an XIO token file.

    from xio.torch import TokenDataset
    ds = TokenDataset("storage1:7910", "train.bin", context=1024)
    loader = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=4)
    for inputs, targets in loader:  # LongTensor [8, 1024] each
        ...

The file's tokens are cut into samples of context + 1 consecutive tokens,
sample k starting at token k x context (so the target of one sample's last
input is the next sample's first token): inputs are tokens [0, context) of
the sample, targets tokens [1, context]. The samples are split into
contiguous parts, one per (rank, worker) pair: together the ranks and their
DataLoader workers see every sample exactly once, in file order within each
part. Each worker streams its part through libxio with prefetching.
"""
import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

from . import Client, shard


def _dist_rank_world():
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_rank(), torch.distributed.get_world_size()
    return 0, 1


class TokenDataset(IterableDataset):
    """(input, target) LongTensor pairs of `context` tokens from path on
    server. rank and world default to torch.distributed's (0 and 1 without
    it); first/count select a range of the file (count None: to the end);
    samples_per_batch samples are fetched per libxio batch, prefetch batches
    ahead; other keywords go to xio.Client (crc, saturate, timeout_ms, ...)."""

    def __init__(self, server, path, context, *, rank=None, world=None, first=0, count=None,
                 samples_per_batch=64, prefetch=4, **client_opts):
        super().__init__()
        if context < 1:
            raise ValueError("context must be at least 1")
        self.server, self.path, self.context = server, path, int(context)
        self.rank, self.world = rank, world
        self.first, self.count = int(first), count
        self.samples_per_batch, self.prefetch = int(samples_per_batch), int(prefetch)
        self.client_opts = client_opts

    def _part(self, client):
        """This (rank, worker)'s samples: the first one and how many."""
        count = self.count
        if count is None:
            count = client.stat(self.path)["tokens"] - self.first
        nsamples = max(count - 1, 0) // self.context
        rank, world = _dist_rank_world()
        rank = rank if self.rank is None else self.rank
        world = world if self.world is None else self.world
        info = get_worker_info()
        wid, nworkers = (info.id, info.num_workers) if info else (0, 1)
        return shard(0, nsamples, rank * nworkers + wid, world * nworkers)

    def __iter__(self):
        ctx = self.context
        with Client(self.server, **self.client_opts) as client:
            lo, n = self._part(client)
            if n == 0:
                return
            batches = client.batches(self.path, self.samples_per_batch * ctx, self.prefetch,
                                     first=self.first + lo * ctx, count=n * ctx + 1,
                                     copy=False)
            with batches:
                pending = np.empty(0, dtype=np.int64)
                for b in batches:
                    pending = np.concatenate((pending, b.astype(np.int64)))
                    k = (len(pending) - 1) // ctx
                    for i in range(k):
                        t = torch.from_numpy(pending[i * ctx:(i + 1) * ctx + 1].copy())
                        yield t[:-1], t[1:]
                    pending = pending[k * ctx:]
