#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/client/test_xio.py: the Python binding (client/python/xio) against
# xcl-server (started by test_python.sh: XCL_SERVER host:port, XCL_WANT the
# expected outputs of make_data.py), run from the virtual environment it
# was installed into (XCL_VENV); a list of servers (XCL_SERVER2, and a
# server started late on XCL_LATE_PORT); the real xio-server with address
# cookies rotating every second behind a paced link (XIO_SERVER) and with
# validation off (XIO_SERVER_OFF). Every array is compared whole with
# numpy's narrowing of the source.
import os
import subprocess
import threading
import time
import unittest

import numpy as np

import xio

SERVER = os.environ["XCL_SERVER"]
WANT = os.environ["XCL_WANT"]
DEAD = os.environ["XCL_DEAD"]
SERVER2 = os.environ["XCL_SERVER2"]
XIO_SERVER = os.environ["XIO_SERVER"]
XIO_SERVER_OFF = os.environ["XIO_SERVER_OFF"]


def want(name):
    return np.fromfile(os.path.join(WANT, name), dtype="<u2")


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = want("tok.u16")

    def setUp(self):
        self.c = xio.Client(SERVER, crc=True)

    def tearDown(self):
        self.c.close()

    def test_installed_and_found_by_itself(self):
        self.assertNotIn("XIO_LIB", os.environ)
        self.assertNotIn("PYTHONPATH", os.environ)
        here = os.path.dirname(os.path.realpath(xio.__file__))
        venv = os.path.realpath(os.environ["XCL_VENV"])
        self.assertTrue(here.startswith(venv + os.sep), here)
        self.assertEqual(os.path.dirname(xio.library_path), here)
        self.assertRegex(os.path.basename(xio.library_path), r"^libxio\.so\.\d+$")

    def test_stat(self):
        st = self.c.stat("tok.bin")
        self.assertEqual(st["tokens"], len(self.tok))
        self.assertEqual(st["size"], 4 * len(self.tok))
        self.assertTrue(st["is_tokens"])

    def test_read_whole_and_part(self):
        a = self.c.read("tok.bin")
        self.assertEqual(a.dtype, np.uint16)
        self.assertEqual(a.tobytes(), self.tok.tobytes())
        b = self.c.read("tok.bin", 1_234_567, 89_012)
        self.assertEqual(b.tobytes(), self.tok[1_234_567:1_234_567 + 89_012].tobytes())
        self.assertEqual(len(self.c.read("tok.bin", 5, 0)), 0)
        s = self.c.stats()
        self.assertEqual(s["tokens"], len(self.tok) + 89_012)
        self.assertGreater(s["re_requests"], 0)
        self.assertGreater(s["replies_uint16"], 0)
        self.assertGreater(s["replies_int32"], 0)
        self.assertEqual(s["datagrams"], sum(s[k] for k in (
            "replies_uint16", "replies_int32", "data_replies", "answers", "duplicates",
            "crc_errors", "malformed", "ignored")))

    def test_read_ranges(self):
        rng = np.random.default_rng(5)
        n = len(self.tok)
        firsts = rng.integers(0, n - 5000, 300)
        counts = rng.integers(1, 5000, 300)
        counts[::7] = 1
        ranges = [(int(f), int(c)) for f, c in zip(firsts, counts)]
        ranges += [ranges[3], (n - 1, 1), (0, 70_000), (50, 100)]  # a repeat, the end, overlaps
        got = self.c.read_ranges("tok.bin", ranges)
        self.assertEqual(got.dtype, np.uint16)
        want_ = np.concatenate([self.tok[f:f + c] for f, c in ranges])
        self.assertEqual(got.tobytes(), want_.tobytes())
        self.assertEqual(len(self.c.read_ranges("tok.bin", [])), 0)
        with self.assertRaises(xio.XioError) as e:
            self.c.read_ranges("tok.bin", [(0, 10), (n - 5, 10)])
        self.assertEqual(e.exception.code_name, "range")

    def test_flows(self):
        with xio.Client(SERVER, crc=True, flows=3, chunk=65_536, window=2) as c:
            got = c.read_ranges("tok.bin", [(0, len(self.tok)), (1000, 300_000)])
            self.assertEqual(got.tobytes(),
                             np.concatenate([self.tok, self.tok[1000:301_000]]).tobytes())
            fl = c.flow_stats()
            self.assertEqual(len(fl), 3)
            s = c.stats()
            self.assertEqual(s["flows"], 3)
            self.assertEqual(s["tokens"], len(self.tok) + 300_000)
            for k in ("tokens", "datagrams", "requests", "re_requests", "duplicates"):
                self.assertEqual(sum(f[k] for f in fl), s[k], k)
            b = np.concatenate(list(c.batches("tok.bin", 100_000, prefetch=3)))
            self.assertEqual(b.tobytes(), self.tok.tobytes())
        with self.assertRaises(xio.XioError) as e:
            xio.Client(SERVER, flows=65)
        self.assertEqual(e.exception.code_name, "bad_argument")

    def test_read_bytes(self):
        raw = self.c.read_bytes("ds.idx")
        with open(os.path.join(os.environ["XCL_ROOT"], "ds.idx"), "rb") as f:
            self.assertEqual(raw.tobytes(), f.read())

    def test_batches_in_order(self):
        got = list(self.c.batches("tok.bin", 100_000, prefetch=3))
        self.assertEqual([len(b) for b in got[:-1]], [100_000] * (len(got) - 1))
        self.assertEqual(len(got[-1]), len(self.tok) % 100_000)
        self.assertEqual(np.concatenate(got).tobytes(), self.tok.tobytes())

    def test_batches_ranks_concatenate(self):
        parts = []
        for r in range(3):
            it = self.c.batches("tok.bin", 65_536, prefetch=2, rank=r, world=3, copy=False)
            f, n = xio.shard(0, len(self.tok), r, 3)
            self.assertEqual((it.first, it.count), (f, n))
            parts.append(np.concatenate([b.copy() for b in it]))
            self.assertEqual(it.stats()["tokens"], n)
        self.assertEqual(np.concatenate(parts).tobytes(), self.tok.tobytes())

    def test_shared_by_threads(self):
        out = {}

        def reader(i):
            out[i] = self.c.read("tok.bin", i * 500_000, 500_000)

        ts = [threading.Thread(target=reader, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(np.concatenate([out[i] for i in range(4)]).tobytes(),
                         self.tok[:2_000_000].tobytes())

    def test_errors(self):
        with self.assertRaises(xio.XioError) as e:
            self.c.read("nope.bin", 0, 10)
        self.assertEqual((e.exception.code_name, e.exception.server_code), ("server", 1))
        self.assertIn("not_found", str(e.exception))
        with self.assertRaises(xio.XioError) as e:
            self.c.read("oor.bin")
        self.assertEqual(e.exception.code_name, "token")
        # the first met of the two: chunks arrive in parallel
        self.assertRegex(str(e.exception), r"^oor.bin: token (123457 is 70000|1500000 is -3), "
                         r"outside 0\.\.65535 \(saturate clamps it\)$")
        with xio.Client(SERVER, saturate=True) as s:
            self.assertEqual(s.read("oor.bin").tobytes(), want("oor.sat.u16").tobytes())
            self.assertEqual(s.stats()["clamped"], 2)
        with self.assertRaises(xio.XioError) as e:
            xio.Client("[::1")
        self.assertEqual(e.exception.code_name, "address")
        with xio.Client(DEAD, timeout_ms=50, retries=1) as d:
            with self.assertRaises(xio.XioError) as e:
                d.stat("tok.bin")
        self.assertEqual(e.exception.code_name, "timeout")
        self.assertIn("after 2 tries", str(e.exception))


class ReplicaTest(unittest.TestCase):
    """A list of servers: the read spread over them, a dropped server
    rejoining at a new STAT."""

    @classmethod
    def setUpClass(cls):
        cls.tok = want("tok.u16")

    def test_list_and_shares(self):
        with xio.Client([SERVER, SERVER2], crc=True, flows=2) as c:
            self.assertEqual(c.server, SERVER + "," + SERVER2)
            self.assertEqual(c.stat("tok.bin")["tokens"], len(self.tok))
            self.assertEqual(c.read("tok.bin").tobytes(), self.tok.tobytes())
            sv = c.server_stats()
            self.assertEqual([s["address"] for s in sv], [SERVER, SERVER2])
            self.assertEqual([s["state"] for s in sv], ["up", "up"])
            self.assertTrue(all(s["tokens"] > 0 and s["last_error"] is None for s in sv), sv)
            self.assertEqual(sum(s["tokens"] for s in sv), c.stats()["tokens"])
            it = c.batches("tok.bin", 100_000, prefetch=3)
            self.assertEqual(np.concatenate(list(it)).tobytes(), self.tok.tobytes())
            bs = it.server_stats()
            self.assertEqual(len(bs), 2)
            self.assertEqual(sum(s["tokens"] for s in bs), len(self.tok))

    def test_rejoin_at_stat(self):
        port = os.environ["XCL_LATE_PORT"]
        late = "127.0.0.1:" + port
        with xio.Client(SERVER2 + "," + late, timeout_ms=50, retries=1) as c:
            c.stat("tok.bin")  # the second server is not there yet: dropped
            self.assertEqual(c.read("tok.bin", 0, 500_000).tobytes(), self.tok[:500_000].tobytes())
            sv = c.server_stats()
            self.assertEqual([s["state"] for s in sv], ["up", "dropped"])
            self.assertEqual((sv[1]["tokens"], sv[1]["drops"]), (0, 1))
            self.assertRegex(sv[1]["last_error"], "^no answer to STAT after 2 tries")
            p = subprocess.Popen([os.environ["XCL_BIN"], "--port", port, "--root",
                                  os.environ["XCL_ROOT"]], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
            try:
                self.assertTrue(p.stdout.readline().startswith(b"listening"))
                # still dropped until a STAT reaches it
                c.read("tok.bin", 0, 500_000)
                self.assertEqual(c.server_stats()[1]["tokens"], 0)
                c.stat("tok.bin")
                sv = c.server_stats()
                self.assertEqual((sv[1]["state"], sv[1]["rejoins"]), ("up", 1))
                self.assertEqual(c.read("tok.bin").tobytes(), self.tok.tobytes())
                self.assertGreater(c.server_stats()[1]["tokens"], 0)
            finally:
                p.terminate()
                p.wait()
                p.stdout.close()


class CookieTest(unittest.TestCase):
    """xio-read 1.2 against build/xio-server: the cookie of STAT on every READ."""

    def test_read_across_rotations(self):
        # 8 MB paced at 0.025 Gbit/s in chunks of 64 Ki tokens two at a time:
        # 2.7 s, longer than a cookie of a 1-second secret lives
        with xio.Client(XIO_SERVER, crc=True, chunk=65536, window=2) as c:
            st = c.stat("tok.bin")
            out = c.read("tok.bin", 0, st["tokens"])
            np.testing.assert_array_equal(out, want("tok.u16"))
            s = c.stats()
        self.assertGreaterEqual(s["cookie_refreshes"], 1)
        self.assertEqual(s["tokens"], len(out))

    def test_validation_off(self):
        with xio.Client(XIO_SERVER_OFF) as c:
            out = c.read("tok.bin", 1000, 300000)
            np.testing.assert_array_equal(out, want("tok.u16")[1000:301000])
            self.assertEqual(c.stats()["cookie_refreshes"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
