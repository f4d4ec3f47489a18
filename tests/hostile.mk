# tests/hostile.mk: the hostile-capture test (tests/hostile/). A seeded
# generator of hostile captures, an independent reference model of the spec
# that says what must come out, and the stage core replaying the capture
# under ASan+UBSan, whole and in segments; make test runs it as "hostile".
# "hostile-dpdk" replays the same captures through build/xio-pipeline in
# both modes (pipeline/pipeline.mk's binary); "hostile-xdp" runs hostile
# captures through the XDP program with BPF_PROG_TEST_RUN (drivers/xdp's
# xdp_unit, as root).

HOSTILE_DIR := $(BUILD)/hostile
HOSTILE_GEN := $(HOSTILE_DIR)/xio-hostile-gen
HOSTILE_REF := $(HOSTILE_DIR)/xio-ref-model
HOSTILE_REPLAY := $(HOSTILE_DIR)/xio-stage-replay
HOSTILE_TOOLS := $(HOSTILE_GEN) $(HOSTILE_REF) $(HOSTILE_REPLAY)

# The model shares nothing with stages/: its own sources and libpcap only.
$(HOSTILE_REF): tests/hostile/xio_ref.c tests/hostile/xio_ref_main.c tests/hostile/xio_ref.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/hostile $(PCAP_CFLAGS) $(filter %.c,$^) -o $@ $(PCAP_LIBS)

$(HOSTILE_GEN): tests/hostile/hostile_gen.c $(STAGES_LIB) $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PCAP_CFLAGS) $< -o $@ $(STAGES_LIB) $(PCAP_LIBS) $(ISAL_LIBS)

# The stage core under ASan+UBSan: a hostile frame that makes it step outside
# its buffers fails the test.
$(HOSTILE_REPLAY): tests/hostile/stage_replay.c pipeline/xio_counters.c common/xio_pcap.c \
		common/xio_buf.c common/xio_json.c common/xio_metrics.c \
		$(BUILD)/asan/libxio_stages.a $(wildcard stages/*.h pipeline/*.h drivers/*.h)
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS) $(PCAP_CFLAGS) $(filter %.c,$^) -o $@ \
		$(BUILD)/asan/libxio_stages.a $(PCAP_LIBS) $(ISAL_LIBS) -lm

.PHONY: hostile hostile-dpdk hostile-xdp
hostile: $(HOSTILE_TOOLS)
	bash tests/hostile/run.sh stage $(BUILD)

hostile-dpdk: $(HOSTILE_TOOLS) $(BUILD)/xio-pipeline
	bash tests/hostile/run.sh dpdk $(BUILD)

hostile-xdp: $(HOSTILE_TOOLS) $(BUILD)/xdp/xdp_unit
	bash tests/hostile/run.sh xdp $(BUILD)

TESTS += hostile hostile-dpdk hostile-xdp
