# tests/wireshark.mk: `make wireshark`: the Wireshark dissector
# apps/wireshark/xio.lua under tshark against the project's own parse
# (tests/wireshark/xio_fields.c) over the vectors, xio-gen captures and a
# capture of every read-protocol opcode (tests/wireshark/xio_opcodes_pcap.c).

WIRESHARK_TEST_BINS := $(BUILD)/tests/xio_fields $(BUILD)/tests/xio_opcodes_pcap

$(WIRESHARK_TEST_BINS): $(BUILD)/tests/%: tests/wireshark/%.c $(TOOLS_PCAP_OBJ) $(STAGES_LIB) \
		common/xio_pcap.h $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) $< $(TOOLS_PCAP_OBJ) $(STAGES_LIB) -o $@ $(PCAP_LIBS) $(ISAL_LIBS)

.PHONY: wireshark
wireshark: $(WIRESHARK_TEST_BINS) $(BUILD)/xio-gen
	BUILD=$(BUILD) bash tests/wireshark/test_dissector.sh

TESTS += wireshark
