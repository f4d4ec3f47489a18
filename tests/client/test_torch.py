#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/client/test_torch.py: xio.torch against xcl-server (started by
# test_python.sh: XCL_SERVER, XCL_WANT the expected UINT16 tokens of
# make_data.py). Each sample is identified by its tokens and compared whole
# with the file's; torch is Debian's python3-torch and must import.
import json
import os
import unittest

import numpy as np
import torch

import xio
import xio.torch
from xio.torch import BlendedTokenDataset, TokenDataset, to_device, widen

SERVER = os.environ["XCL_SERVER"]
WANT = os.environ["XCL_WANT"]


def want(name):
    return np.fromfile(os.path.join(WANT, name), dtype="<u2")


TOK = want("tok.u16")
DS = want("ds.bin")


def key(x):
    return np.asarray(x, dtype=np.int64).tobytes()


def sample_table(tok, first, count, ctx):
    """{input tokens: k} of the samples of [first, first + count), and the
    samples (context + 1 tokens each)."""
    t = tok[first:first + count].astype(np.int64)
    n = (count - 1) // ctx
    rows = [t[k * ctx:k * ctx + ctx + 1] for k in range(n)]
    return {key(r[:-1]): k for k, r in enumerate(rows)}, rows


class Reads:
    """Counts Client.read_ranges calls and ranges in this process."""

    def __enter__(self):
        self.calls, self.ranges = 0, []
        self.orig = xio.Client.read_ranges

        def counted(client, path, ranges):
            self.calls += 1
            self.ranges.append(len(ranges))
            return self.orig(client, path, ranges)
        xio.Client.read_ranges = counted
        return self

    def __exit__(self, *exc):
        xio.Client.read_ranges = self.orig


def ds(**kw):
    ctx = kw.pop("context", 1000)
    args = dict(first=300_001, count=200_000, samples_per_batch=7, prefetch=2, crc=True)
    args.update(kw)
    return TokenDataset(SERVER, "tok.bin", ctx, **args)


def ks(dataset, table):
    """The sample numbers a dataset yields, each checked whole."""
    out = []
    for x, y in dataset:
        k = table[0][key(x)]
        assert x.dtype == torch.int64 and y.dtype == torch.int64
        assert key(y) == key(table[1][k][1:])
        out.append(k)
    return out


class TokenDatasetTest(unittest.TestCase):
    table = sample_table(TOK, 300_001, 200_000, 1000)
    n = 199

    def test_server_list(self):
        other = os.environ["XCL_OTHER"]
        d = TokenDataset([SERVER, other], "tok.bin", 1000, first=300_001, count=200_000)
        self.assertEqual(d.server, SERVER + "," + other)
        self.assertEqual(ks(d, self.table), list(range(self.n)))

    def test_in_order_exact_tokens_and_batched_reads(self):
        with Reads() as r:
            got = ks(ds(), self.table)
        self.assertEqual(got, list(range(self.n)))
        # 199 samples in reads of 7: one range each (consecutive samples)
        self.assertEqual((r.calls, set(r.ranges)), (29, {1}))

    def test_shuffle_deterministic_and_once_per_epoch(self):
        a = ks(ds(shuffle=True, seed=5), self.table)
        self.assertEqual(a, ks(ds(shuffle=True, seed=5), self.table))
        self.assertEqual(sorted(a), list(range(self.n)))
        self.assertNotEqual(a, list(range(self.n)))
        d = ds(shuffle=True, seed=5)
        d.set_epoch(1)
        with Reads() as r:
            b = ks(d, self.table)
        self.assertEqual(sorted(b), list(range(self.n)))
        self.assertNotEqual(a, b)
        self.assertNotEqual(a, ks(ds(shuffle=True, seed=6), self.table))
        self.assertEqual(r.calls, 29)
        self.assertEqual(sum(r.ranges), self.n - sum(  # consecutive pairs share a range
            1 for i in range(0, self.n, 7) for j in range(i + 1, min(i + 7, self.n))
            if b[j] == b[j - 1] + 1))
        e = np.random.default_rng([5, 1]).permutation(self.n)
        self.assertEqual(b, e.tolist())

    def test_ranks_and_workers_partition(self):
        for shuffle in (False, True):
            seen = []
            for rank in range(2):
                d = ds(shuffle=shuffle, seed=3, rank=rank, world=2, samples_per_batch=5)
                loader = torch.utils.data.DataLoader(d, batch_size=4, num_workers=2)
                mine = []
                for x, y in loader:
                    self.assertEqual(tuple(x.shape[1:]), (1000,))
                    for xi, yi in zip(x.numpy(), y.numpy()):
                        k = self.table[0][key(xi)]
                        self.assertEqual(key(yi), key(self.table[1][k][1:]))
                        mine.append(k)
                # each of the rank's two workers: its quarter of the order
                order = (np.random.default_rng([3, 0]).permutation(self.n) if shuffle
                         else np.arange(self.n))
                parts = [order[f:f + c].tolist() for f, c in
                         (xio.shard(0, self.n, 2 * rank + w, 4) for w in range(2))]
                self.assertEqual(sorted(mine), sorted(parts[0] + parts[1]))
                seen += mine
            self.assertEqual(sorted(seen), list(range(self.n)))

    def test_resume_exact(self):
        for shuffle in (False, True):
            args = dict(shuffle=shuffle, seed=9, rank=2, world=3)
            d = ds(**args)
            d.set_epoch(4)
            full = ks(d, self.table)
            self.assertEqual(len(full), 66)
            for k in (0, 1, 7, 30, 65, 66):
                d = ds(**args)
                d.set_epoch(4)
                it = iter(d)
                head = [self.table[0][key(next(it)[0])] for _ in range(k)]
                state = json.loads(json.dumps(d.state_dict()))  # plain types
                self.assertEqual((state["epoch"], state["samples"]), (4, k))
                del it
                e = ds(**args)
                e.load_state_dict(state)
                self.assertEqual(e.state_dict(), state)
                self.assertEqual(head + ks(e, self.table), full)
                # the next epoch starts from its beginning again
                e.set_epoch(5)
                self.assertEqual(len(ks(e, self.table)), 66)

    def test_resume_refuses_another_stream(self):
        d = ds(rank=0, world=3)
        it = iter(d)
        next(it)
        state = d.state_dict()
        for other in (ds(rank=1, world=3), ds(rank=0, world=3, seed=1), ds(world=3, rank=0,
                                                                          context=999)):
            other.load_state_dict(state)
            with self.assertRaisesRegex(ValueError, "load each stream's own state"):
                next(iter(other))

    def test_resume_in_dataloader_workers(self):
        loader = torch.utils.data.DataLoader(ResumeCheck(), batch_size=None, num_workers=2)
        results = list(loader)
        self.assertEqual(sorted(r[0] for r in results), [0, 1])
        for wid, ok, n in results:
            self.assertTrue(ok, wid)
            self.assertEqual(n, xio.shard(0, 199, wid, 2)[1])

    def test_one_flow_in_workers(self):
        loader = torch.utils.data.DataLoader(WorkerFlows(), batch_size=None, num_workers=2)
        self.assertEqual([tuple(int(v) for v in r) for r in loader], [(1, 2), (1, 2)])

    def test_uint16_and_widen(self):
        table = sample_table(TOK, 0, 20_001, 500)
        raw = list(TokenDataset(SERVER, "tok.bin", 500, count=20_001, uint16=True,
                                samples_per_batch=9))
        self.assertEqual(len(raw), 40)
        self.assertEqual(raw[0].dtype, torch.int16)
        self.assertEqual(raw[0][:4].tolist(), [0, -1, -32768, 1])  # 0, 65535, 32768, 1
        x, y = widen(torch.stack(raw))
        self.assertEqual((x.dtype, tuple(x.shape)), (torch.int64, (40, 500)))
        for k in range(40):
            self.assertEqual(key(x[k]), key(table[1][k][:-1]))
            self.assertEqual(key(y[k]), key(table[1][k][1:]))
        loader = torch.utils.data.DataLoader(
            TokenDataset(SERVER, "tok.bin", 500, count=20_001, uint16=True), batch_size=8,
            num_workers=2)
        got = [(a, b) for a, b in to_device(loader, "cpu")]
        self.assertEqual(len(got), 6)  # each worker: 20 samples in 8, 8, 4
        rows = sorted(key(a[i]) + key(b[i]) for a, b in got for i in range(len(a)))
        self.assertEqual(rows, sorted(key(x[k]) + key(y[k]) for k in range(40)))


class WorkerFlows(torch.utils.data.IterableDataset):
    """The flows of xio.torch.client in a DataLoader worker: by default and
    with flows=2."""

    def __iter__(self):
        with xio.torch.client(SERVER) as a, xio.torch.client(SERVER, flows=2) as b:
            yield a.stats()["flows"], b.stats()["flows"]


class ResumeCheck(torch.utils.data.IterableDataset):
    """In each DataLoader worker: the worker's stream read whole, then read
    again stopped after a third and resumed from its state_dict in a new
    dataset; yields (worker id, whether both agree, samples)."""

    def __iter__(self):
        wid = torch.utils.data.get_worker_info().id
        full = [key(x) for x, _ in ds(shuffle=True, seed=2)]
        d = ds(shuffle=True, seed=2)
        it = iter(d)
        head = [key(next(it)[0]) for _ in range(len(full) // 3)]
        e = ds(shuffle=True, seed=2)
        e.load_state_dict(d.state_dict())
        yield wid, head + [key(x) for x, _ in e] == full, len(full)


class BlendTest(unittest.TestCase):
    def blend(self, seed=0, **kw):
        a = TokenDataset(SERVER, "tok.bin", 100, count=100_001, shuffle=True, seed=1,
                         samples_per_batch=16, **kw)
        b = TokenDataset(SERVER, "ds.bin", 100, shuffle=True, seed=2, samples_per_batch=16, **kw)
        return BlendedTokenDataset([a, b], [3, 7], seed=seed)

    def sources(self):
        ta, tb = sample_table(TOK, 0, 100_001, 100), sample_table(DS, 0, len(DS), 100)
        return ta, tb

    def label(self, x, tables):
        for s, t in enumerate(tables):
            if key(x) in t[0]:
                return s, t[0][key(x)]
        raise AssertionError("a sample of no source")

    def test_proportions_and_determinism(self):
        tables = self.sources()
        got = [self.label(x, tables) for x, _ in self.blend()]
        # the stream ends when source 0 (1000 samples, weight 0.3) runs out
        self.assertEqual(sum(1 for s, _ in got if s == 0), 1000)
        given = np.zeros(2)
        for n, (s, _) in enumerate(got, 1):
            given[s] += 1
            self.assertTrue(np.all(np.abs(given - np.array([0.3, 0.7]) * n) <= 1.0), n)
        # each source in its own shuffled order
        for s, seed in ((0, 1), (1, 2)):
            order = [k for t, k in got if t == s]
            nall = len(tables[s][1])
            self.assertEqual(order, np.random.default_rng([seed, 0]).permutation(nall)
                             [:len(order)].tolist())
        self.assertEqual([self.label(x, tables) for x, _ in self.blend()], got)

    def test_state_resume(self):
        tables = self.sources()
        full = [self.label(x, tables) for x, _ in self.blend(rank=1, world=2)]
        b = self.blend(rank=1, world=2)
        it = iter(b)
        head = [self.label(next(it)[0], tables) for _ in range(333)]
        state = json.loads(json.dumps(b.state_dict()))
        self.assertEqual(state["samples"], 333)
        self.assertEqual(sum(state["given"]), 333)
        c = self.blend(rank=1, world=2)
        c.load_state_dict(state)
        self.assertEqual(head + [self.label(x, tables) for x, _ in c], full)

    def test_refusals(self):
        a = TokenDataset(SERVER, "tok.bin", 100)
        with self.assertRaisesRegex(ValueError, "one weight per dataset"):
            BlendedTokenDataset([a], [1, 2])
        with self.assertRaisesRegex(ValueError, "positive"):
            BlendedTokenDataset([a, a], [1, 0])
        with self.assertRaisesRegex(ValueError, "all uint16"):
            BlendedTokenDataset([a, TokenDataset(SERVER, "tok.bin", 100, uint16=True)], [1, 1])

    def test_workers_partition(self):
        tables = self.sources()
        loader = torch.utils.data.DataLoader(self.blend(), batch_size=10, num_workers=2)
        got = [self.label(x, tables) for xb, _ in loader for x in xb]
        self.assertEqual(len(set(got)), len(got))
        self.assertEqual(sum(1 for s, _ in got if s == 0), 1000)


if __name__ == "__main__":
    unittest.main(verbosity=2)
