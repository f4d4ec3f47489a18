#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_metrics.sh: the --metrics endpoints (GET /metrics, Prometheus text)
# of xio-server and xio-pipeline, with Debian's prometheus:
#  - promtool check metrics on both programs' text;
#  - a real Prometheus server on loopback (its own --storage.tsdb.path under
#    build/) scraping xio-server every second during a live read (xio-fetch,
#    paced so that it lasts several scrapes) and once more after it, the
#    server still up; then, the server stopped, the query API returns every
#    counter of the stats JSON, equal;
#  - the same Prometheus scraping xio-pipeline (net_pcap replay of the sample
#    capture) while it runs: the last scrape equals its stats JSON.
# Loopback ports 21200-21209.
set -u
BUILD=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root_dir=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
W=$BUILD/metrics
UDP=21200 PROM=21201 SRVM=21202 XPM=21203
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap cleanup EXIT

rm -rf "$W" && mkdir -p "$W/root" "$W/tsdb"
# 4 Mi tokens (16 MiB) of INT32 in 0..65535
"$PY" -c 'import numpy, sys; numpy.random.default_rng(7).integers(0, 65536, 4 << 20, dtype=numpy.int32).tofile(sys.argv[1])' "$W/root/tokens.bin"

# get URL FILE: the body, or non-zero
get() { "$PY" - "$1" "$2" <<'PY'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
    open(sys.argv[2], "wb").write(r.read())
PY
}
# wait_url URL: up to 10 s for an answer
wait_url() { for _ in $(seq 100); do get "$1" /dev/null 2>/dev/null && return 0; sleep 0.1; done; return 1; }

cat >"$W/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: xio-server
    static_configs: [{targets: ['127.0.0.1:$SRVM']}]
  - job_name: xio-pipeline
    static_configs: [{targets: ['127.0.0.1:$XPM']}]
YML
promtool check config "$W/prometheus.yml" >"$W/promtool-config.log" 2>&1 && ok ||
	{ bad "promtool check config"; cat "$W/promtool-config.log"; }
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
	--web.listen-address=127.0.0.1:$PROM --log.level=warn >"$W/prometheus.log" 2>&1 &
pids+=($!)
wait_url "http://127.0.0.1:$PROM/-/ready" || { bad "prometheus did not start"; cat "$W/prometheus.log"; exit 1; }

# --- xio-server ---------------------------------------------------------------
"$BUILD/xio-server" --root "$W/root" --bind 127.0.0.1 --port $UDP --allow 127.0.0.1 \
	--rate 0.02 --metrics 127.0.0.1:$SRVM --stats-json "$W/server.json" 2>"$W/server.log" &
srv=$!
pids+=($srv)
wait_url "http://127.0.0.1:$SRVM/metrics" || { bad "xio-server --metrics does not answer"; cat "$W/server.log"; exit 1; }
get "http://127.0.0.1:$SRVM/metrics" "$W/server-0.prom"
promtool check metrics <"$W/server-0.prom" >"$W/promtool.log" 2>&1 && ok ||
	{ bad "promtool check metrics (xio-server)"; cat "$W/promtool.log"; }
# what a GET of anything else gets
if "$PY" -c 'import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=5)
except urllib.error.HTTPError as e:
    sys.exit(e.code != 404)
sys.exit(1)' "http://127.0.0.1:$SRVM/"; then ok; else bad "GET / is not 404"; fi

# the live read: 16 MiB at 0.02 Gbit/s, about 7 s of 1 s scrapes
t0=$(date +%s.%N)
if "$BUILD/xio-fetch" --server 127.0.0.1:$UDP tokens.bin --out "$W/tokens.u16" --quiet \
	--stats-json "$W/fetch.json" >"$W/fetch.log" 2>&1; then ok; else bad "xio-fetch"; cat "$W/fetch.log"; fi
t1=$(date +%s.%N)
get "http://127.0.0.1:$SRVM/metrics" "$W/server-1.prom"
promtool check metrics <"$W/server-1.prom" >"$W/promtool.log" 2>&1 && ok ||
	{ bad "promtool check metrics (xio-server, after the read)"; cat "$W/promtool.log"; }

# a scrape after the read, the server still up
for _ in $(seq 100); do
	last=$("$PY" "$here/prom.py" last-ts "http://127.0.0.1:$PROM" xio_server_datagrams_total)
	"$PY" -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]) + 0.2)' "$last" "$t1" && break
	sleep 0.2
done
if "$PY" -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))' "$last" "$t1"; then ok; else bad "no scrape after the read"; fi
kill -0 $srv 2>/dev/null && ok || bad "xio-server is not up after the read"
kill -TERM $srv && wait $srv
rc=$?
[ $rc -eq 0 ] && ok || bad "xio-server exit $rc"

# every counter of the stats JSON, from Prometheus at the last scrape; and
# scrapes during the read: samples strictly between 0 and the final count
if "$PY" "$here/prom.py" server "$W/server.json" "http://127.0.0.1:$PROM" "$t0" "$t1"; then ok; else fail=$((fail + 1)); fi

# --- xio-pipeline -------------------------------------------------------------
"$BUILD/xio-pipeline" --no-huge --no-shconf --no-pci \
	--vdev "net_pcap0,rx_pcap=$root_dir/pcap/sample.pcap,tx_pcap=$W/xp-out.pcap" -- \
	--duration 4 --metrics 127.0.0.1:$XPM --stats-json "$W/pipeline.json" >"$W/pipeline.log" 2>&1 &
xp=$!
pids+=($xp)
wait_url "http://127.0.0.1:$XPM/metrics" || { bad "xio-pipeline --metrics does not answer"; cat "$W/pipeline.log"; }
sleep 1.5
get "http://127.0.0.1:$XPM/metrics" "$W/pipeline.prom"
promtool check metrics <"$W/pipeline.prom" >"$W/promtool.log" 2>&1 && ok ||
	{ bad "promtool check metrics (xio-pipeline)"; cat "$W/promtool.log"; }
grep -q '^xio_pipeline_port_imissed_total{port="0",name="net_pcap0"} ' "$W/pipeline.prom" && ok ||
	bad "no per-port sample in xio-pipeline's text"
wait $xp
rc=$?
[ $rc -eq 0 ] && ok || { bad "xio-pipeline exit $rc"; cat "$W/pipeline.log"; }
if "$PY" "$here/prom.py" pipeline "$W/pipeline.json" "http://127.0.0.1:$PROM"; then ok; else fail=$((fail + 1)); fi

echo "metrics: $pass passed, $fail failed"
[ $fail -eq 0 ]
