# drivers/xdp/: the eBPF/XDP path. The XDP program (clang -target bpf) is
# embedded in a `bpftool gen skeleton` header; the loader, the AF_XDP workers
# and the entry point xio_xdp_run() go into xio-pipeline through
# XIO_XDP_OBJS / XIO_XDP_ASAN_OBJS / XIO_XDP_LIBS (pipeline/pipeline.mk).
# Tests (root): xdp-unit (BPF_PROG_TEST_RUN on every frame of the basic
# vectors) and xdp-e2e (three network namespaces, tcpreplay, tcpdump).
# bench-xdp-prog (root, never a test): the program alone, BPF_PROG_TEST_RUN
# ns/frame on the bench capture.

BPFTOOL   ?= bpftool
XDP_BUILD := $(BUILD)/xdp

LIBBPF_CFLAGS := $(shell $(PKGCONF) --cflags libbpf 2>/dev/null)
LIBBPF_LIBS   := $(shell $(PKGCONF) --libs libbpf 2>/dev/null || echo -lbpf)
LIBXDP_CFLAGS := $(shell $(PKGCONF) --cflags libxdp 2>/dev/null)
LIBXDP_LIBS   := $(shell $(PKGCONF) --libs libxdp 2>/dev/null || echo -lxdp)

XDP_BPF_CFLAGS := -O2 -g -target bpf -ffreestanding -Wall \
	-I/usr/include/$(shell $(CC) -dumpmachine) -Istages -Idrivers/xdp
XDP_CFLAGS := $(CFLAGS) -Idrivers/xdp -I$(XDP_BUILD) $(LIBXDP_CFLAGS) $(LIBBPF_CFLAGS)

XIO_VECTORS ?= $(abspath ../shared/vectors)

XDP_SKEL := $(XDP_BUILD)/xio_xdp.skel.h
XDP_HDRS := drivers/xdp/xio_xdp.h drivers/xdp/xio_xdp_shared.h drivers/xdp/xio_xsk.h \
	pipeline/xio_config.h pipeline/xio_counters.h $(wildcard stages/*.h)

$(XDP_BUILD):
	mkdir -p $@

$(XDP_BUILD)/xio_xdp.bpf.o: drivers/xdp/xio_xdp.bpf.c drivers/xdp/xio_xdp_shared.h \
		stages/xio_wire.h | $(XDP_BUILD)
	$(CLANG) $(XDP_BPF_CFLAGS) -c $< -o $@

$(XDP_SKEL): $(XDP_BUILD)/xio_xdp.bpf.o
	$(BPFTOOL) gen skeleton $< name xio_xdp_bpf > $@.tmp && mv $@.tmp $@

$(XDP_BUILD)/%.o: drivers/xdp/%.c $(XDP_SKEL) $(XDP_HDRS) | $(XDP_BUILD)
	$(CC) $(XDP_CFLAGS) -c $< -o $@

$(BUILD)/asan/xdp/%.o: drivers/xdp/%.c $(XDP_SKEL) $(XDP_HDRS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(XDP_CFLAGS)) $(ASAN_FLAGS) -c $< -o $@

XIO_XDP_OBJS      := $(XDP_BUILD)/xio_xdp.o $(XDP_BUILD)/xio_xsk.o
XIO_XDP_ASAN_OBJS := $(BUILD)/asan/xdp/xio_xdp.o $(BUILD)/asan/xdp/xio_xsk.o
XIO_XDP_LIBS      := $(LIBXDP_LIBS) $(LIBBPF_LIBS) -lnuma -lpthread

# Unit test: the XDP program through BPF_PROG_TEST_RUN, the frames it hands
# to AF_XDP through the stage core, against the vectors.
XDP_UNIT := $(XDP_BUILD)/xdp_unit
$(XDP_UNIT): tests/xdp/xdp_unit.c tests/unit/xio_unit.c pipeline/xio_counters.c common/xio_pcap.c \
		common/xio_buf.c common/xio_json.c common/xio_metrics.c \
		$(XDP_SKEL) \
		$(XDP_HDRS) $(STAGES_LIB) | $(XDP_BUILD)
	$(CC) $(XDP_CFLAGS) -Itests/unit $(PCAP_CFLAGS) $(CUNIT_CFLAGS) $(filter %.c,$^) \
		$(STAGES_LIB) $(XIO_XDP_LIBS) $(ISAL_LIBS) $(PCAP_LIBS) $(CUNIT_LIBS) -lm -o $@

ALL += $(XDP_UNIT)

.PHONY: xdp-unit xdp-e2e
xdp-unit: $(XDP_UNIT)
	XIO_VECTORS=$(XIO_VECTORS) $(XDP_UNIT)

xdp-e2e: $(BUILD)/xio-pipeline
	XIO_PIPELINE=$(BUILD)/xio-pipeline XIO_VECTORS=$(XIO_VECTORS) bash tests/xdp/xdp_e2e.sh

TESTS += xdp-unit xdp-e2e

# The program alone: BPF_PROG_TEST_RUN ns/frame on the bench capture
# (tests/bench/xio_bench_xdp.c prog); XDP_PROG_OBJ=other.bpf.o times another
# build's. Root; a benchmark, never a test.
XDP_PROG_OBJ ?= $(XDP_BUILD)/xio_xdp.bpf.o

.PHONY: bench-xdp-prog
bench-xdp-prog: $(BUILD)/bench/xio-bench-xdp $(XDP_BUILD)/xio_xdp.bpf.o $(BUILD)/xio-gen
	BUILD=$(BUILD) bash -c '. scripts/bench/lib.sh && bench_captures'
	$(BUILD)/bench/xio-bench-xdp prog $(XDP_PROG_OBJ) $(BUILD)/bench/cap-nocrc.pcap
