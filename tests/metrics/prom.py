#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# prom.py: test_metrics.sh's side of Prometheus's HTTP query API.
#   prom.py last-ts BASE METRIC            the timestamp of METRIC's last sample (0: none)
#   prom.py server JSON BASE T0 T1         xio-server: every counter of its stats JSON equal
#                                          to the last scrape, and scrapes between T0 and T1
#                                          strictly between 0 and the final datagrams
#   prom.py pipeline JSON BASE             xio-pipeline: every counter equal to the last scrape
# Exit 0 when all holds; each difference on a FAIL line.
import json
import sys
import urllib.parse
import urllib.request


def api(base, path, **q):
    with urllib.request.urlopen(base + path + "?" + urllib.parse.urlencode(q), timeout=5) as r:
        j = json.load(r)
    assert j["status"] == "success", j
    return j["data"]["result"]


def last(base, family):
    """The last sample of every series of family: {labels: value}, labels
    without job, instance and the name."""
    return {tuple(sorted((k, v) for k, v in s["metric"].items()
                         if k not in ("job", "instance", "__name__"))): int(float(s["value"][1]))
            for s in api(base, "/api/v1/query", query="last_over_time(%s[10m])" % family)}


def compare(prog, prefix, base, pairs):
    """pairs: (what, family, labels, json value); the failures, and how many."""
    bad = []
    for what, family, labels, want in pairs:
        got = last(base, prefix + family + "_total").get(labels)
        if got != want:
            bad.append("%s: %s: prometheus %s, stats JSON %s" % (prog, what, got, want))
    return bad


def server(path, base, t0, t1):
    j = json.load(open(path))
    pairs = []
    for key, by, label in (("requests", "requests_by_opcode", "opcode"),
                           ("answers", "answers_by_opcode", "opcode"),
                           ("errors", "errors_by_code", "code"),
                           ("send_errors_by_reason", "send_errors_by_reason", "reason")):
        pairs += [("%s{%s=%s}" % (key, label, n), key, ((label, n),), v) for n, v in j[by].items()]
    pairs += [(k, k, (), j[k]) for k in ("datagrams", "bytes", "file_bytes", "send_errors",
                                         "send_retries", "icmp_errors", "received", "refused",
                                         "ignored", "cache_hits", "cache_opens", "cookies_issued")]
    bad = compare("xio-server", "xio_server_", base, pairs)
    if j["datagrams"] == 0 or j["requests_by_opcode"]["read_request"] == 0:
        bad.append("xio-server: the read left no trace: %s" % j)
    if not j["cookies"] or j["cookies_issued"] == 0:
        bad.append("xio-server: the read took no address cookie: %s" % j)
    mid = [int(float(v)) for s in api(base, "/api/v1/query_range", query="xio_server_datagrams_total",
                                      start=t0, end=t1, step="0.5") for _, v in s["values"]]
    during = sum(1 for v in mid if 0 < v < j["datagrams"])
    if not during:
        bad.append("xio-server: no scrape during the read: %s" % mid)
    print("  metrics: xio-server: %d counters from Prometheus equal the stats JSON; "
          "%d samples during the read" % (len(pairs), during))
    return bad


def pipeline(path, base):
    j = json.load(open(path))
    pairs = [(k, k, (), j[k]) for k in ("rx_packets", "tx_packets", "dropped_packets", "narrowed_packets",
                                        "tokens_narrowed", "tokens_saturated", "bytes_in", "bytes_out")]
    pairs += [("reasons{reason=%s}" % n, "reasons", (("reason", n),), v) for n, v in j["reasons"].items()]
    for port, p in j["ports"].items():
        pairs += [("port %s %s" % (port, k), "port_" + k, (("name", p["name"]), ("port", port)), p[k])
                  for k in ("ipackets", "opackets", "imissed", "ierrors", "rx_nombuf", "oerrors")]
    bad = compare("xio-pipeline", "xio_pipeline_", base, pairs)
    if j["rx_packets"] == 0:
        bad.append("xio-pipeline: the replay left no trace")
    print("  metrics: xio-pipeline: %d counters from Prometheus equal the stats JSON" % len(pairs))
    return bad


def main(argv):
    if argv[1] == "last-ts":
        r = api(argv[2], "/api/v1/query", query="timestamp(%s)" % argv[3])
        print(r[0]["value"][1] if r else 0)
        return 0
    bad = server(*argv[2:6]) if argv[1] == "server" else pipeline(*argv[2:4])
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
