# tests/live.mk: the live test of the whole system (tests/live/): storage
# (xio-server) | DPU (xio-pipeline --bidirectional) | host (xio-fetch) in three
# network namespaces joined by veth pairs, on every DPU driver, then through
# faults. Its tools: xio-fault, the seeded loss/duplication/reordering BPF
# program at the storage's tc egress, and fault-unit, the test of that
# program alone. Both e2e targets need root and take /tmp/xio-live.lock so
# that two live tests never overlap.
#   make e2e          fault-unit, then tests/live/e2e.sh (about 6 minutes),
#                     then tests/live/replicas.sh (three storage nodes behind
#                     one DPU, about 10 s)

LIVE_BUILD := $(BUILD)/live
LIVE_BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -ffreestanding -Wall \
	-I/usr/include/$(shell $(CC) -dumpmachine) -Itests/live
LIVE_CFLAGS := $(CFLAGS) -Itests/live -I$(LIVE_BUILD) $(LIBBPF_CFLAGS)
LIVE_LOCK ?= /tmp/xio-live.lock

$(LIVE_BUILD)/xio_fault.bpf.o: tests/live/xio_fault.bpf.c tests/live/xio_fault.h
	@mkdir -p $(@D)
	$(CLANG) $(LIVE_BPF_CFLAGS) -c $< -o $@

$(LIVE_BUILD)/xio_fault.skel.h: $(LIVE_BUILD)/xio_fault.bpf.o
	$(BPFTOOL) gen skeleton $< name xio_fault_bpf > $@.tmp && mv $@.tmp $@

$(LIVE_BUILD)/xio-fault: tests/live/xio_fault.c tests/live/xio_fault.h $(LIVE_BUILD)/xio_fault.skel.h \
		$(XIO_MAIN_OBJ) $(COMMON_LIB)
	$(CC) $(LIVE_CFLAGS) -Iapps $(filter %.c %.o %.a,$^) -o $@ $(LIBBPF_LIBS) $(COMMON_LIBS)

$(LIVE_BUILD)/fault-unit: tests/live/fault_unit.c tests/unit/xio_unit.c tests/live/xio_fault.h \
		$(LIVE_BUILD)/xio_fault.skel.h $(STAGES_LIB)
	$(CC) $(LIVE_CFLAGS) -Itests/unit $(CUNIT_CFLAGS) $(filter %.c,$^) $(STAGES_LIB) -o $@ \
		$(LIBBPF_LIBS) $(CUNIT_LIBS) $(ISAL_LIBS)

ALL += $(LIVE_BUILD)/xio-fault $(LIVE_BUILD)/fault-unit

.PHONY: e2e fault-unit
fault-unit: $(LIVE_BUILD)/fault-unit
	flock $(LIVE_LOCK) $(LIVE_BUILD)/fault-unit

LIVE_BINS := $(BUILD)/xio-server $(BUILD)/xio-fetch $(BUILD)/xio-pipeline $(LIVE_BUILD)/xio-fault

e2e: $(LIVE_BUILD)/fault-unit $(LIVE_BINS)
	flock $(LIVE_LOCK) $(LIVE_BUILD)/fault-unit
	BUILD=$(BUILD) flock $(LIVE_LOCK) bash tests/live/e2e.sh
	BUILD=$(BUILD) flock $(LIVE_LOCK) bash tests/live/replicas.sh

TESTS += e2e
