# apps/tools.mk: the capture tools xio-gen and xio-verify (no DPDK), with the
# libpcap file module drivers/xio_pcap.c they share with the tests.

# apps/xio_cli.c: option helpers every app links (apps/xio_cli.h).
XIO_CLI_OBJ := $(BUILD)/apps/xio_cli.o
$(XIO_CLI_OBJ): apps/xio_cli.c apps/xio_cli.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

TOOLS_PCAP_OBJ := $(BUILD)/drivers/xio_pcap.o

$(TOOLS_PCAP_OBJ): drivers/xio_pcap.c drivers/xio_pcap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) -c $< -o $@

$(BUILD)/apps/xio-gen.o $(BUILD)/apps/xio-verify.o: $(BUILD)/apps/%.o: apps/%.c \
		apps/xio_cli.h drivers/xio_pcap.h $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) -c $< -o $@

$(BUILD)/xio-gen $(BUILD)/xio-verify: $(BUILD)/%: $(BUILD)/apps/%.o $(TOOLS_PCAP_OBJ) $(XIO_CLI_OBJ) \
		$(STAGES_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) $(ISAL_LIBS)

ALL += $(BUILD)/xio-gen $(BUILD)/xio-verify
INSTALL_BINS += $(BUILD)/xio-gen $(BUILD)/xio-verify
