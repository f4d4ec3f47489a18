#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/client/test_megatron.py: xio.megatron against xcl-server (started
# by test_python.sh: XCL_SERVER, XCL_WANT the UINT16 Megatron-LM datasets
# make_data.py wrote, ds and ds2), driven by megatron_standin.py the way
# Megatron-LM's builder and GPTDataset drive it: every sample over XIO must
# equal the sample over the local files.
import os
import pickle
import sys
import tempfile
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import megatron_standin as mg  # noqa: E402

import xio  # noqa: E402
import xio.megatron  # noqa: E402
from xio.megatron import XioIndexedDataset, gpt_dataset_class  # noqa: E402

SERVER = os.environ["XCL_SERVER"]
WANT = os.environ["XCL_WANT"]
OTHER = os.environ["XCL_OTHER"]  # a second server over the same files


def local(name):
    return mg.LocalIndexedDataset(os.path.join(WANT, name))


def same_sample(t, a, b):
    t.assertEqual(sorted(a), sorted(b))
    for k in a:
        if torch.is_tensor(a[k]):
            t.assertEqual(a[k].dtype, b[k].dtype)
            t.assertTrue(torch.equal(a[k], b[k]), k)
        else:
            t.assertEqual(int(a[k]), int(b[k]))


class ReadCounter:
    """Counts Client.read_ranges calls (and their ranges) in this process."""

    def __enter__(self):
        self.calls, self.ranges = 0, 0
        self.orig = xio.Client.read_ranges

        def counted(client, path, ranges):
            self.calls += 1
            self.ranges += len(ranges)
            return self.orig(client, path, ranges)
        xio.Client.read_ranges = counted
        return self

    def __exit__(self, *exc):
        xio.Client.read_ranges = self.orig


class IndexedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.x = XioIndexedDataset(SERVER, "ds", crc=True)
        cls.loc = local("ds")

    def test_attributes(self):
        x, loc = self.x, self.loc
        self.assertEqual(x.path_prefix, "ds")
        self.assertIsNone(x.sequence_modes)
        for name, dtype in (("sequence_lengths", np.int32), ("sequence_pointers", np.int64),
                            ("document_indices", np.int64)):
            a, b = getattr(x, name), getattr(loc, name)
            self.assertEqual(a.dtype, dtype, name)
            self.assertEqual(a.tobytes(), b.tobytes(), name)
        self.assertEqual(len(x), 300)
        self.assertEqual(len(x.document_indices), 120)

    def test_server_list(self):
        x = XioIndexedDataset([SERVER, OTHER], "ds", crc=True)
        self.assertEqual(x.server, SERVER + "," + OTHER)
        for i in (0, 7, 299):
            self.assertEqual(x.get(i).tobytes(), self.loc.get(i).tobytes())
        cls = gpt_dataset_class([SERVER, OTHER], base=mg.GPTDataset, crc=True)
        self.assertIs(gpt_dataset_class(SERVER + "," + OTHER, base=mg.GPTDataset, crc=True), cls)

    def test_get_with_numpy_integers(self):
        x, loc = self.x, self.loc
        for idx in range(len(x)):
            self.assertEqual(x.get(np.int32(idx)).tobytes(), loc.get(idx).tobytes())
        size = int(x.sequence_lengths[7])
        for off, n in ((0, None), (3, None), (1, np.int32(size - 2)), (size - 1, np.int64(1)),
                       (5, 0)):
            got = x.get(np.int32(7), offset=off, length=n)
            self.assertEqual(got.dtype, np.uint16)
            self.assertEqual(got.tobytes(), loc.get(7, off, n).tobytes())
        with self.assertRaisesRegex(IndexError, "sequence 7 has %d tokens" % size):
            x.get(7, offset=1, length=size)

    def test_getitem_int_and_slice(self):
        x, loc = self.x, self.loc
        self.assertEqual(x[np.int64(-1)].tobytes(), loc.get(299).tobytes())
        parts = x[10:14]
        self.assertEqual([p.tobytes() for p in parts],
                         [loc.get(i).tobytes() for i in range(10, 14)])
        self.assertEqual(x[5:5], [])
        with self.assertRaisesRegex(ValueError, "contiguous"):
            x[0:10:2]
        with self.assertRaises(TypeError):
            x["0"]

    def test_refusals(self):
        with self.assertRaises(xio.XioError) as e:
            XioIndexedDataset(SERVER, "ds16")
        self.assertEqual(e.exception.code_name, "format")
        with self.assertRaises(xio.XioError) as e:
            XioIndexedDataset(SERVER, "nope")
        self.assertEqual(e.exception.code_name, "server")

    def test_pickle_reconnects_and_checks_the_index(self):
        self.x.get(0)
        y = pickle.loads(pickle.dumps(self.x))
        self.assertIsNot(y._conn, self.x._conn)
        self.assertEqual(y.get(3).tobytes(), self.loc.get(3).tobytes())
        self.assertEqual(y.client_opts, {"crc": True})
        state = self.x.__getstate__()
        state["idx_digest"] = "0" * 32
        z = XioIndexedDataset.__new__(XioIndexedDataset)
        with self.assertRaisesRegex(xio.XioError, "ds.idx on .* changed since"):
            z.__setstate__(state)


def build(cls, cache, sizes=(600, 40, 40), blend=(["ds", "ds2"], [30, 70]), seq=256):
    prefixes = blend[0]
    if cls is mg.GPTDataset:
        prefixes = [os.path.join(WANT, p) for p in prefixes]
    config = mg.Config((prefixes, blend[1]), "90,5,5", seq, cache)
    return mg.BlendedMegatronDatasetBuilder(cls, list(sizes), lambda: True, config).build()


class MegatronTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.cls = gpt_dataset_class(SERVER, base=mg.GPTDataset, readahead=8, crc=True)
        cls.want = build(mg.GPTDataset, os.path.join(cls.tmp.name, "local"))
        cls.got = build(cls.cls, os.path.join(cls.tmp.name, "xio"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_class(self):
        c = self.cls
        self.assertTrue(issubclass(c, mg.GPTDataset))
        self.assertIs(gpt_dataset_class(SERVER, base=mg.GPTDataset, readahead=8, crc=True), c)
        self.assertEqual(c.__name__, "XioGPTDataset_127.0.0.1_%s" % SERVER.split(":")[1])
        low = c.build_low_level_dataset("ds2", None)
        self.assertIsInstance(low, XioIndexedDataset)
        self.assertEqual((low.path_prefix, low.client_opts), ("ds2", {"crc": True}))
        self.assertIs(pickle.loads(pickle.dumps(c)), c)
        self.assertIs(torch.load(_saved(c)), c)

    def test_every_sample_equals_the_local_one(self):
        for want, got in zip(self.want, self.got):
            self.assertEqual(len(got), len(want))
            self.assertEqual(got.dataset_index.tobytes(), want.dataset_index.tobytes())
            for i in range(len(want)):
                same_sample(self, got[i], want[i])
        self.assertEqual([len(w) for w in self.want], [600, 40, 40])

    def test_readahead_batches_blended_reads(self):
        blend = self.got[0]
        for d in blend.datasets:
            d._xio_ready = frozenset()
            d.dataset._cache.clear()
            d.dataset._cached_tokens = 0
        with ReadCounter() as rc:
            for i in range(len(blend)):
                blend[i]
        given = np.bincount(blend.dataset_index, minlength=2)
        self.assertEqual(rc.calls, sum(-(-int(n) // 8) for n in given))

    def test_dataloader_batches_are_one_read_each(self):
        ds = self.got[0].datasets[1]
        ds.dataset._cache.clear()
        ds.dataset._cached_tokens = 0
        loader = torch.utils.data.DataLoader(ds, batch_size=16, num_workers=0)
        want = self.want[0].datasets[1]
        with ReadCounter() as rc:
            k = 0
            for batch in loader:
                for j in range(len(batch["tokens"])):
                    self.assertTrue(torch.equal(batch["tokens"][j], want[k]["tokens"]))
                    self.assertTrue(torch.equal(batch["labels"][j], want[k]["labels"]))
                    k += 1
        self.assertEqual(k, len(want))
        self.assertEqual(rc.calls, -(-len(want) // 16))
        self.assertGreater(rc.ranges, rc.calls * 16)

    def _loader_matches(self, ctx):
        blend, want = self.got[0], self.want[0]
        parent = os.getpid()
        loader = torch.utils.data.DataLoader(WithPid(blend), batch_size=8, num_workers=2,
                                             multiprocessing_context=ctx)
        k = 0
        for batch in loader:
            for j in range(len(batch["tokens"])):
                w = want[k]
                self.assertTrue(torch.equal(batch["tokens"][j], w["tokens"]))
                self.assertTrue(torch.equal(batch["labels"][j], w["labels"]))
                self.assertEqual(int(batch["dataset_id"][j]), int(w["dataset_id"]))
                k += 1
            # each worker reads through a connection of its own
            self.assertTrue(all(int(p) != parent for p in batch["pid"]))
            self.assertTrue(torch.equal(batch["pid"], batch["conn_pid"]))
        self.assertEqual(k, len(want))

    def test_dataloader_fork_workers(self):
        self.got[0][0]  # the parent has a connection open when the workers fork
        self._loader_matches("fork")

    def test_dataloader_spawn_workers(self):
        self._loader_matches("spawn")

    def test_torch_save(self):
        ds = torch.load(_saved(self.got[1]))
        self.assertIs(type(ds.datasets[0]), self.cls)
        for i in range(len(ds)):
            same_sample(self, ds[i], self.want[1][i])

    def test_cache_key_carries_the_server(self):
        other = gpt_dataset_class(OTHER, base=mg.GPTDataset, crc=True)
        cache = os.path.join(self.tmp.name, "shared")
        a = build(self.cls, cache, sizes=(100, 10, 10))
        b = build(other, cache, sizes=(100, 10, 10))
        names = sorted(os.listdir(cache))
        self.assertEqual(len(names), 2 * 2 * 3 * 4, names)  # 2 servers x 2 prefixes x 3 splits
        ka = a[0].datasets[0].cache_base()
        kb = b[0].datasets[0].cache_base()
        self.assertNotEqual(ka, kb)
        self.assertIn("XioGPTDataset_127.0.0.1_%s-train" % OTHER.split(":")[1], kb)
        # without path_to_cache, GPTDataset puts it under a local folder
        # named after the remote prefix
        no_cache = mg.Config((["ds"], [1]), "90,5,5", 256, None)
        cwd = os.getcwd()
        os.chdir(self.tmp.name)
        try:
            self.cls(a[0].datasets[0].dataset, "ds", np.arange(10, dtype=np.int32), 5, "train",
                     no_cache)
            self.assertEqual(os.listdir(os.path.join("ds", "cache")),
                             ["%s_indices" % self.cls.__name__])
        finally:
            os.chdir(cwd)


class WithPid(torch.utils.data.Dataset):
    """The blended dataset's samples with the worker's pid and the pid its
    sources' connections were opened in."""

    def __init__(self, blend):
        self.blend = blend

    def __len__(self):
        return len(self.blend)

    def __getitem__(self, i):
        s = self.blend[i]
        d = self.blend.datasets[int(s["dataset_id"])].dataset
        d._client()  # the connection a read here goes through
        return dict(s, pid=os.getpid(), conn_pid=d._pid)


def _saved(obj):
    import io
    f = io.BytesIO()
    torch.save(obj, f)
    f.seek(0)
    return f


if __name__ == "__main__":
    unittest.main(verbosity=2)
