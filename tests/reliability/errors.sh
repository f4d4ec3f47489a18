#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# errors.sh: bad command lines and setup errors against the real
# xio-pipeline. Every case must end with a non-zero exit of its own (not a
# signal, not the watchdog's timeout) and a line naming the problem, with no
# sanitizer report and no sign of a half-torn-down port (mbufs missing from
# the pool, rings freed twice).
#  - option errors: found before the EAL starts, so the whole output is that
#    one line and no port is created (the --vdev's tx_pcap file never appears);
#  - setup errors (missing capture, unwritable output, a port or lcore that
#    does not exist, too little memory, an interface that does not exist):
#    the EAL may have said its part, then one "XIO:" or PMD line says what.
#
#   errors.sh BUILD [BINARY]       (default BUILD/xio-pipeline)
set -u
build=${1:?usage: errors.sh BUILD [BINARY]}
xp=${2:-$build/xio-pipeline}
root=$(cd "$(dirname "$0")/../.." && pwd)
vec=${XIO_VECTORS:-$root/../shared/vectors}/basic-keep/in.pcap
work=$build/reliability/${REL_TAG:-native}/errors
mkdir -p "$work"
log=$work/log
tx=$work/tx.pcap
eal=(--no-huge --no-shconf --no-pci -m 256 --lcores '0@0,1@1,2@0')
vdev=(--vdev "net_pcap0,rx_pcap=$vec,tx_pcap=$tx")
pass=0 fail=0

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	sed 's/^/  | /' "$log" | head -n 20
}

# run ARGS...: xio-pipeline under a 60 s watchdog; sets rc.
run() {
	rm -f "$tx"
	timeout -k 5 60 "$xp" "$@" >"$log" 2>&1
	rc=$?
}

# common DESC: what every error case must show.
common() {
	if [ "$rc" -eq 0 ]; then bad "$1: exit 0"; return 1; fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then bad "$1: hung (killed by the watchdog)"; return 1; fi
	if [ "$rc" -ge 128 ]; then bad "$1: died of signal $((rc - 128))"; return 1; fi
	if grep -Eq 'AddressSanitizer|runtime error:|LeakSanitizer' "$log"; then bad "$1: sanitizer report"; return 1; fi
	if grep -Eq 'not back in the pool|Cannot free ring|Segmentation|Aborted' "$log"; then
		bad "$1: unclean teardown"; return 1
	fi
	return 0
}

# opt DESC REGEX OPTIONS...: an option error, caught before the EAL starts:
# exit 2, as every program's bad command line.
opt() {
	local desc=$1 re=$2
	shift 2
	run "${eal[@]}" "${vdev[@]}" -- "$@"
	common "$desc" || return
	if [ "$rc" -ne 2 ]; then bad "$desc: exit $rc, want 2"; return; fi
	if [ "$(wc -l <"$log")" -ne 1 ] || ! grep -Eq -- "^xio-pipeline: $re" "$log"; then
		bad "$desc: want exactly one line matching 'xio-pipeline: $re'"; return
	fi
	if [ -e "$tx" ]; then bad "$desc: a port was created before the options were checked"; return; fi
	pass=$((pass + 1))
}

# setup DESC REGEX ARGS...: an error found while starting (EAL, ports, lcores).
setup() {
	local desc=$1 re=$2
	shift 2
	run "$@"
	common "$desc" || return
	if ! grep -Eq -- "$re" "$log"; then bad "$desc: no line matching '$re'"; return; fi
	pass=$((pass + 1))
}

# --- option values: out of range, malformed, unknown, inconsistent ------
opt "udp port 0" "--udp-port '0': expected a number in 1\.\.65535" --udp-port 0
opt "udp port 65536" "--udp-port '65536': expected a number in 1\.\.65535" --udp-port 65536
opt "udp port negative" "--udp-port '-1': expected a number" --udp-port -1
opt "udp port hex junk" "--udp-port '0x1ee6': expected a number" --udp-port 0x1ee6
opt "rx port out of range" "--rx-port '70000': expected a number in 0\.\.1023" --rx-port 70000
opt "tx port out of range" "--tx-port '99999': expected a number in 0\.\.1023" --tx-port 99999
opt "rx port empty" "--rx-port '': expected a number" --rx-port ''
opt "rxq 0" "--rxq '0': expected a number in 1\.\." --rxq 0
opt "rxq too many" "--rxq '17': expected a number in 1\.\.16" --rxq 17
opt "burst 0" "--burst '0': expected a number in 1\.\.512" --burst 0
opt "burst 513" "--burst '513': expected a number in 1\.\.512" --burst 513
opt "burst huge" "--burst '99999999999999999999': expected a number" --burst 99999999999999999999
opt "ring not a power of two" "--ring-size: 1000 is not a power of two" --ring-size 1000
opt "ring 0" "--ring-size '0': expected a number in 2\.\." --ring-size 0
opt "ring too big" "--ring-size '4194304': expected a number in 2\.\.1048576" --ring-size 4194304
opt "mbuf size tiny" "--mbuf-size '10': expected a number in 128\.\." --mbuf-size 10
opt "unknown mode" "--mode 'fast': expected rtc\|pipeline" --mode fast
opt "mode empty" "--mode '': expected rtc\|pipeline" --mode ''
opt "unknown policy" "--overflow 'clip': expected keep\|saturate\|drop" --overflow clip
opt "policy case" "--overflow 'KEEP': expected keep" --overflow KEEP
opt "unknown driver" "--driver 'foo': expected auto\|dpdk\|xdp" --driver foo
opt "unknown xdp mode" "--xdp-mode 'foo': expected auto\|kernel\|afxdp" --xdp-mode foo
opt "unknown xdp attach" "--xdp-attach 'foo': expected native\|generic" --xdp-attach foo
opt "idle-exit junk" "--idle-exit '12x': expected a number" --idle-exit 12x
opt "duration negative" "--duration '-1': expected a number in 0\.001\." --duration -1
opt "duration junk" "--duration 'abc': expected a number" --duration abc
opt "duration nan" "--duration 'nan': expected a number" --duration nan
opt "stats interval 0" "--stats-interval '0': expected a number in 0\.01\." --stats-interval 0
opt "stats file in a missing folder" "--stats-json '/nonexistent/dir/s.json': cannot write in '/nonexistent/dir'" \
	--stats-json /nonexistent/dir/s.json
opt "stats file is a folder" "--stats-json '$work': cannot write: Is a directory" --stats-json "$work"
opt "stats file empty" "--stats-json '': empty file name" --stats-json ''
opt "stage lcores malformed" "--stage-lcores: 'a,b,c' is not a comma-separated list" \
	--mode pipeline --stage-lcores a,b,c
opt "stage lcores count" "--stage-lcores: 2 lcores given, 3 needed" --mode pipeline --stage-lcores 1,2
opt "stage lcores in rtc" "--stage-lcores: needs --mode pipeline" --stage-lcores 1,1,1
opt "value missing" "option '--burst' needs a value" --burst
opt "unknown option" "unknown option '--bogus'" --bogus
opt "stray argument" "unexpected argument 'extra'" extra
opt "xdp without iface" "--driver: xdp needs --iface" --driver xdp
opt "xdp iface missing" "--iface: no interface 'xio-nope0' here" --driver xdp --iface xio-nope0
opt "xdp egress missing" "--egress: no interface 'xio-nope1' here" --iface lo --egress xio-nope1

# --- setup: EAL, capture files, ports, lcores, memory -------------------
setup "missing capture file" "Couldn't open $work/missing\.pcap" \
	"${eal[@]}" --vdev "net_pcap0,rx_pcap=$work/missing.pcap,tx_pcap=$tx" -- --idle-exit 100
setup "unwritable output capture" "Couldn't open /nonexistent/out\.pcap" \
	"${eal[@]}" --vdev "net_pcap0,rx_pcap=$vec,tx_pcap=/nonexistent/out.pcap" -- --idle-exit 100
setup "rx port does not exist" "port 3 does not exist: the EAL found 1 port" \
	"${eal[@]}" "${vdev[@]}" -- --rx-port 3 --idle-exit 100
setup "tx port does not exist" "port 2 does not exist: the EAL found 1 port" \
	"${eal[@]}" "${vdev[@]}" -- --tx-port 2 --idle-exit 100
setup "more queues than the port has" "port 0 \(net_pcap\) has 1 RX / 1 TX queues, 2 / 2 needed" \
	"${eal[@]}" "${vdev[@]}" -- --rxq 2 --mode pipeline --idle-exit 100
setup "no worker lcore (rtc)" "rtc mode needs 1 worker lcores" \
	--no-huge --no-shconf --no-pci -m 256 --lcores 0@0 "${vdev[@]}" -- --idle-exit 100
setup "no worker lcore (pipeline)" "pipeline mode needs at least one worker lcore" \
	--no-huge --no-shconf --no-pci -m 256 --lcores 0@0 "${vdev[@]}" -- --mode pipeline --idle-exit 100
setup "stage lcore not a worker" "--stage-lcores: lcore 5 is not a worker lcore" \
	"${eal[@]}" "${vdev[@]}" -- --mode pipeline --stage-lcores 1,5,1 --idle-exit 100
setup "not enough memory" "cannot create [0-9]+ mbufs .*Cannot allocate memory" \
	"${eal[@]}" "${vdev[@]}" -- --mode pipeline --ring-size 1048576 --idle-exit 100
setup "lcore that does not exist" "EAL: (core 7 unavailable|invalid parameter for --lcores)" \
	--no-huge --no-shconf --no-pci --lcores '0@0,1@7' "${vdev[@]}" -- --idle-exit 100
setup "unknown vdev" "EAL: (Unable to parse device|failed to parse device) 'net_bogus0'|the DPDK EAL cannot start" \
	"${eal[@]}" --vdev net_bogus0 -- --idle-exit 100
setup "EAL cannot start" "the DPDK EAL cannot start" \
	--no-huge --in-memory --no-pci --lcores '0@0,1@1' -- --idle-exit 100
setup "no port" "the DPDK EAL found no port" "${eal[@]}" -- --idle-exit 100

echo "errors: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
