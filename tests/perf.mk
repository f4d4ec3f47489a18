# tests/perf.mk: `make bench` beyond the kernel benchmark (tests/bench_kernels.mk,
# which sorts before this file, so its bench-kernels runs first):
#   bench-pipeline  xio-pipeline (rtc, pipeline; with and without CRC) against
#                   dpdk-testpmd io forwarding on the same in-memory capture
#   bench-xdp       xio-pipeline's XDP kernel and afxdp modes against the
#                   xdp-bench pass/redirect baselines on veth (root)
#   bench-stage     the stage core per frame outside DPDK: PMD-like copy,
#                   forward, narrow, the kernel alone (tests/bench/bench_stage.c)
#   bench-report    docs/perf.md and docs/perf.png from the CSVs
#   bench-live      a fetch through the live path (tests/live/lib.sh's
#                   namespaces): xio-pipeline --bidirectional (DPDK
#                   net_af_packet, XDP kernel) against dpdk-testpmd io and a
#                   plain XDP bridge; writes its section of docs/perf.md (root)
#   bench-transport xio-fetch against a TCP read of the same file (the tests'
#                   own baseline: xio-tcp-server with sendfile, xio-tcp-read
#                   narrowing with the stage core's kernel) on loopback and
#                   through the live path, loss-free and with 1 % loss; writes
#                   its section of docs/perf.md (root for the live path)
#   bench-training  random 2,048-token samples through xio's read_ranges
#                   against a sequential read of the same 1 GiB file, and
#                   numpy over a local memmap (the ceiling); writes its
#                   section of docs/perf.md (scripts/bench/training.py)
#   bench-replicas  one read over 1, 2 and 3 xio-servers on loopback, each on
#                   cores of its own, and the shares with one paced to a
#                   quarter (scripts/bench/replicas.sh; not in `make bench`:
#                   it needs 3K + 1 cores)
# Scripts in scripts/bench/; raw figures and logs in build/bench/. Never part
# of make test: nothing here passes or fails on a timing.

BENCH_XDP_TOOL := $(BUILD)/bench/xio-bench-xdp
BENCH_XDP_BPF_CFLAGS := -O2 -g -target bpf -ffreestanding -Wall \
	-I/usr/include/$(shell $(CC) -dumpmachine) -Itests/bench
BENCH_LIBBPF_CFLAGS := $(shell $(PKGCONF) --cflags libbpf 2>/dev/null)
BENCH_LIBBPF_LIBS   := $(shell $(PKGCONF) --libs libbpf 2>/dev/null || echo -lbpf)

$(BUILD)/bench/xio_bench_xdp.bpf.o: tests/bench/xio_bench_xdp.bpf.c tests/bench/xio_bench_xdp.h
	@mkdir -p $(@D)
	$(CLANG) $(BENCH_XDP_BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/xio_bench_xdp.skel.h: $(BUILD)/bench/xio_bench_xdp.bpf.o
	bpftool gen skeleton $< name xio_bench_xdp_bpf > $@.tmp && mv $@.tmp $@

$(BENCH_XDP_TOOL): tests/bench/xio_bench_xdp.c tests/bench/xio_bench_xdp.h common/xio_pcap.c \
		common/xio_pcap.h $(BUILD)/bench/xio_bench_xdp.skel.h
	$(CC) $(CFLAGS) -Itests/bench -I$(BUILD)/bench $(BENCH_LIBBPF_CFLAGS) $(PCAP_CFLAGS) $(LDFLAGS) \
		-o $@ $(filter %.c,$^) $(BENCH_LIBBPF_LIBS) $(PCAP_LIBS)

BENCH_STAGE     := $(BUILD)/bench/bench_stage
BENCH_STAGE_CSV ?= $(BUILD)/bench/stage.csv

$(BENCH_STAGE): tests/bench/bench_stage.c $(STAGES_LIB) $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ISAL_CFLAGS) $(LDFLAGS) -o $@ $< $(STAGES_LIB) $(ISAL_LIBS)

# The TCP baseline of bench-transport (tests/bench/xio_tcp.h).
TCP_SERVER := $(BUILD)/bench/xio-tcp-server
TCP_READ   := $(BUILD)/bench/xio-tcp-read

$(TCP_SERVER): tests/bench/xio_tcp_server.c tests/bench/xio_tcp.h apps/xio_main.h $(XIO_MAIN_OBJ) \
		$(COMMON_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iapps -Itests/bench $(LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) -lpthread \
		$(COMMON_LIBS)

$(TCP_READ): tests/bench/xio_tcp_read.c tests/bench/xio_tcp.h apps/xio_main.h $(XIO_MAIN_OBJ) \
		$(COMMON_LIB) $(STAGES_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iapps -Itests/bench $(LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) \
		-lpthread $(ISAL_LIBS) $(COMMON_LIBS)

ALL += $(TCP_SERVER) $(TCP_READ)

# What bench-transport's device run (scripts/bench/transport-device.sh) needs,
# built without DPDK: the server, the client, xio-pipeline's XDP path and the
# TCP baseline (scripts/bench/devtools.sh carries them to a machine that
# cannot build them).
.PHONY: host-tools
host-tools: $(BUILD)/xio-server $(BUILD)/xio-fetch $(BUILD)/nodpdk/xio-pipeline $(TCP_SERVER) \
	$(TCP_READ)

.PHONY: bench-pipeline bench-xdp bench-report bench-live bench-stage bench-transport bench-training bench-replicas
bench-stage: $(BENCH_STAGE)
	$(BENCH_STAGE) --csv $(BENCH_STAGE_CSV)

bench-pipeline: $(BUILD)/xio-pipeline $(BUILD)/xio-gen
	BUILD=$(BUILD) bash scripts/bench/pipeline.sh

bench-xdp: $(BUILD)/xio-pipeline $(BUILD)/xio-gen $(BENCH_XDP_TOOL)
	BUILD=$(BUILD) bash scripts/bench/xdp.sh

bench-report:
	@[ -f $(BENCH_KERNELS_CSV) ] || $(MAKE) --no-print-directory bench-kernels
	BUILD=$(BUILD) python3 scripts/bench/report.py --kernels $(BENCH_KERNELS_CSV) \
		--pipeline $(BUILD)/bench/pipeline-runs.csv --xdp $(BUILD)/bench/xdp-runs.csv \
		--live $(BUILD)/bench/live-runs.csv --stage $(BENCH_STAGE_CSV) \
		--transport $(BUILD)/bench/transport-runs.csv \
		--section $(BUILD)/bench/training.md --section docs/perf-data/cuda_feed-h100.md \
		--section docs/perf-data/replicas-h100.md --md docs/perf.md --png docs/perf.png

bench-live: $(BUILD)/xio-server $(BUILD)/xio-fetch $(BUILD)/xio-pipeline $(BENCH_XDP_TOOL)
	BUILD=$(BUILD) flock /tmp/xio-live.lock bash scripts/bench/live.sh
	python3 scripts/bench/live_report.py --csv $(BUILD)/bench/live-runs.csv --md docs/perf.md

TRANSPORT_BINS := $(BUILD)/xio-server $(BUILD)/xio-fetch $(BUILD)/xio-pipeline \
	$(BUILD)/live/xio-fault $(TCP_SERVER) $(TCP_READ)
bench-transport: $(TRANSPORT_BINS)
	BUILD=$(BUILD) flock /tmp/xio-live.lock bash scripts/bench/transport.sh
	python3 scripts/bench/transport_report.py --csv $(BUILD)/bench/transport-runs.csv \
		--md docs/perf.md

bench-training: $(LIBXIO_SO) $(BUILD)/xio-server
	BUILD=$(BUILD) /usr/bin/python3 scripts/bench/training.py --build $(BUILD) \
		--csv $(BUILD)/bench/training-runs.csv --md docs/perf.md

# one read over 1, 2 and 3 servers (REPLICAS_THREADS=K: 3K + 1 cores at least;
# the 16-core device machine: REPLICAS_THREADS=4 REPLICAS_MB=2048)
bench-replicas: $(BUILD)/xio-server $(BUILD)/xio-fetch
	BUILD=$(BUILD) bash scripts/bench/replicas.sh


# What xio-server's READ answers cost (docs/server.md, "How a READ leaves"):
# CPU per token and per random request, on loopback, against the TCP
# baseline; SERVER_SEND_BASE names other xio-server binaries (an older
# build) to run in the same rounds.
.PHONY: bench-server-send
bench-server-send: $(BUILD)/xio-server $(BUILD)/xio-fetch $(TCP_SERVER) $(TCP_READ) $(LIBXIO_SO)
	BUILD=$(BUILD) bash scripts/bench/server_send.sh $(SERVER_SEND_BASE) $(BUILD)/xio-server

BENCHES += bench-stage bench-pipeline bench-xdp bench-report bench-live bench-transport bench-training \
	bench-server-send
