#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/e2e/sum_expected.py A B OUT: the counters of two vectors'
# expected.json added up, reason by reason, for a run that replays both
# captures at once (two RX queues, or both directions).
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
s = {k: a[k] + b[k] for k in a if k != "reasons"}
s["reasons"] = {r: a["reasons"][r] + b["reasons"][r] for r in a["reasons"]}
json.dump(s, open(sys.argv[3], "w"))
