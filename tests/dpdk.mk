# tests/dpdk.mk: end-to-end tests of build/xio-pipeline on DPDK with real
# net_pcap / net_null vdevs (tests/e2e/test_dpdk_vectors.sh), and pcap-cmp,
# the frame-by-frame capture comparison they use. XIO_VECTORS overrides
# where the conformance captures are (default ../shared/vectors).
# dpdk-live (root; run it under flock /tmp/xio-live.lock): net_af_packet and
# net_af_xdp ports on veths between network namespaces, --bidirectional
# (tests/e2e/test_dpdk_live.sh).

$(BUILD)/tests/pcap-cmp: tests/e2e/pcap_cmp.c $(TOOLS_PCAP_OBJ) common/xio_pcap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) $< $(TOOLS_PCAP_OBJ) -o $@ $(PCAP_LIBS)

DPDK_TEST_BINS := $(BUILD)/xio-pipeline $(BUILD)/nodpdk/xio-pipeline $(BUILD)/tests/pcap-cmp \
	$(BUILD)/xio-gen $(BUILD)/xio-verify

.PHONY: dpdk
dpdk: $(DPDK_TEST_BINS)
	BUILD=$(BUILD) bash tests/e2e/test_dpdk_vectors.sh

TESTS += dpdk

.PHONY: dpdk-live
dpdk-live: $(BUILD)/xio-pipeline $(BUILD)/tests/pcap-cmp $(BUILD)/hostile/xio-ref-model
	BUILD=$(BUILD) bash tests/e2e/test_dpdk_live.sh

TESTS += dpdk-live

# The same tests against the ASan+UBSan build (about 3 minutes): run by hand
# or from a fragment that adds it to TESTS.
.PHONY: dpdk-asan
dpdk-asan: $(DPDK_TEST_BINS) $(BUILD)/asan/xio-pipeline
	BUILD=$(BUILD) XIO_PIPELINE=$(BUILD)/asan/xio-pipeline bash tests/e2e/test_dpdk_vectors.sh
