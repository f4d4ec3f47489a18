# apps/tools.mk: the capture tools xio-gen and xio-verify (no DPDK), with the
# libpcap file module common/xio_pcap.c they share with the tests.

# apps/xio_main.c: the exiting helpers of the mains (apps/xio_main.h) on
# common/xio_cli.h; every main of apps/ but xio-pipeline and xio-server
# links it with libxio_common.a.
XIO_MAIN_OBJ := $(BUILD)/apps/xio_main.o
$(XIO_MAIN_OBJ): apps/xio_main.c apps/xio_main.h common/xio_cli.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

TOOLS_PCAP_OBJ := $(BUILD)/common/xio_pcap.o

$(TOOLS_PCAP_OBJ): common/xio_pcap.c common/xio_pcap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) -c $< -o $@

$(BUILD)/apps/xio-gen.o $(BUILD)/apps/xio-verify.o: $(BUILD)/apps/%.o: apps/%.c \
		apps/xio_main.h common/xio_pcap.h $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) -c $< -o $@

$(BUILD)/xio-gen $(BUILD)/xio-verify: $(BUILD)/%: $(BUILD)/apps/%.o $(TOOLS_PCAP_OBJ) $(XIO_MAIN_OBJ) \
		$(COMMON_LIB) $(STAGES_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) $(ISAL_LIBS) $(COMMON_LIBS)

ALL += $(BUILD)/xio-gen $(BUILD)/xio-verify
INSTALL_BINS += $(BUILD)/xio-gen $(BUILD)/xio-verify
