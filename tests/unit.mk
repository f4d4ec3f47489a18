# tests/unit.mk: the CUnit programs, one per tests/unit/test_*.c, in three
# flavours: native (build/tests/NAME), ASan+UBSan (build/asan/tests/NAME) and
# aarch64 (build/aarch64/tests/NAME, run under qemu-aarch64 so the NEON
# kernel really runs). Each links its flavour's stage core, the helpers of
# tests/unit/ (the *.c that are not test_*.c), pipeline/xio_counters.c when
# it exists, ISA-L, libpcap and CUnit. The tests find the conformance vectors
# through XIO_VECTORS (default: ../shared/vectors beside the repository).

UNIT_SRC     := $(sort $(wildcard tests/unit/test_*.c))
UNIT_NAMES   := $(patsubst tests/unit/%.c,%,$(UNIT_SRC))
# xio_counters.c writes through common/'s JSON writer and counter tables.
UNIT_COMMON  := common/xio_buf.c common/xio_json.c common/xio_metrics.c
UNIT_HELPERS := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c)) $(wildcard pipeline/xio_counters.c) \
	$(UNIT_COMMON)
UNIT_DEPS    := $(wildcard tests/unit/*.h stages/*.h pipeline/*.h common/*.h)
UNIT_INC     := -Itests/unit

# arm64 builds of the libraries: CUnit and libpcap through Debian multiarch,
# ISA-L unpacked under /opt/xio-arm64 by scripts/deps.sh (not co-installable).
# The programs run on multiarch's libc6:arm64, loader included (-L /): the
# cross toolchain's /usr/aarch64-linux-gnu holds a different glibc build, and
# its loader with multiarch's libc.so.6 hangs in fork().
AARCH64_ISAL_DIR ?= /opt/xio-arm64/usr/lib/aarch64-linux-gnu
AARCH64_RUN      ?= qemu-aarch64 -L /
AARCH64_LIBS     := -L$(AARCH64_ISAL_DIR) -Wl,-rpath,$(AARCH64_ISAL_DIR) -lisal -lpcap -lcunit -lm

UNIT_LIBS := $(ISAL_LIBS) $(PCAP_LIBS) $(CUNIT_LIBS) -lm
UNIT_ASAN_CFLAGS := $(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS)

# $(call unit_flavour,DIR,CC,CFLAGS(compile and link),INCLUDES,LIBS)
define unit_flavour
$1/tests/obj/%.o: tests/unit/%.c $(UNIT_DEPS)
	@mkdir -p $$(@D)
	$2 $3 $4 -c $$< -o $$@
$1/tests/obj/xio_counters.o: pipeline/xio_counters.c $(UNIT_DEPS)
	@mkdir -p $$(@D)
	$2 $3 $4 -c $$< -o $$@
$1/tests/obj/%.o: common/%.c $(UNIT_DEPS)
	@mkdir -p $$(@D)
	$2 $3 $4 -c $$< -o $$@
$(addprefix $1/tests/,$(UNIT_NAMES)): $1/tests/%: $1/tests/obj/%.o \
		$(patsubst %.c,$1/tests/obj/%.o,$(notdir $(UNIT_HELPERS))) $1/libxio_stages.a
	$2 $3 $(LDFLAGS) -o $$@ $$^ $5
endef

$(eval $(call unit_flavour,$(BUILD),$(CC),$(CFLAGS),$(UNIT_INC) $(CUNIT_CFLAGS) $(PCAP_CFLAGS) $(ISAL_CFLAGS),$(UNIT_LIBS)))
$(eval $(call unit_flavour,$(BUILD)/asan,$(CC),$(UNIT_ASAN_CFLAGS),$(UNIT_INC) $(CUNIT_CFLAGS) $(PCAP_CFLAGS) $(ISAL_CFLAGS),$(UNIT_LIBS)))
$(eval $(call unit_flavour,$(BUILD)/aarch64,$(AARCH64_CC),$(AARCH64_CFLAGS),$(UNIT_INC),$(AARCH64_LIBS)))

UNIT_BINS         := $(addprefix $(BUILD)/tests/,$(UNIT_NAMES))
UNIT_ASAN_BINS    := $(addprefix $(BUILD)/asan/tests/,$(UNIT_NAMES))
UNIT_AARCH64_BINS := $(addprefix $(BUILD)/aarch64/tests/,$(UNIT_NAMES))

.PHONY: unit unit-asan unit-aarch64 unit-build
unit unit-asan unit-aarch64: export XIO_VECTORS ?= $(abspath ../shared/vectors)
unit-asan: export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0:halt_on_error=1
unit-asan: export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1

unit-build: $(UNIT_BINS) $(UNIT_ASAN_BINS) $(UNIT_AARCH64_BINS)

# Each runs every program of its flavour and stops at the first failure.
unit: $(UNIT_BINS)
	@set -e; for t in $^; do echo "--- $$t"; $$t; done

unit-asan: $(UNIT_ASAN_BINS)
	@set -e; for t in $^; do echo "--- $$t (ASan+UBSan)"; $$t; done

unit-aarch64: $(UNIT_AARCH64_BINS)
	@echo "--- aarch64 unit tests under qemu-aarch64 ($(AARCH64_RUN)), narrowing kernel:" \
		"$$($(AARCH64_RUN) $(BUILD)/aarch64/tests/test_narrow --kernel)"
	@set -e; for t in $^; do echo "--- $$t (aarch64 under qemu-aarch64)"; $(AARCH64_RUN) $$t; done

TESTS += unit unit-asan unit-aarch64
