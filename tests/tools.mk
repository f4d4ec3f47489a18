# tests/tools.mk: end-to-end tests of xio-gen and xio-verify: tshark reads
# xio-gen's captures, xio-verify accepts a capture narrowed by the stage core
# (tests/e2e/narrow_pcap.c) and rejects lost, duplicated, altered and
# still-INT32 frames, and bad command lines fail with a message.

TOOLS_TEST_BINS := $(BUILD)/xio-gen $(BUILD)/xio-verify $(BUILD)/tests/narrow_pcap

$(BUILD)/tests/narrow_pcap: tests/e2e/narrow_pcap.c $(TOOLS_PCAP_OBJ) $(STAGES_LIB) \
		common/xio_pcap.h $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) $< $(TOOLS_PCAP_OBJ) $(STAGES_LIB) -o $@ $(PCAP_LIBS) $(ISAL_LIBS)

.PHONY: tools
tools: $(TOOLS_TEST_BINS)
	BUILD=$(BUILD) XIO_VERSION=$(XIO_VERSION) bash tests/e2e/test_tools.sh

TESTS += tools
