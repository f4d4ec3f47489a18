# stages/: the XIO logic on plain buffers, built as a static library in three
# flavours: native (build/), ASan+UBSan (build/asan/) and aarch64 for the
# BlueField's Arm cores (build/aarch64/, run under qemu-aarch64).
# Kernel files carry their ISA in the name and get only that ISA's flags.

STAGES_SRC := $(sort $(wildcard stages/*.c))

STAGES_X86_ONLY := $(filter stages/xio_narrow_sse41.c stages/xio_narrow_avx2.c stages/xio_narrow_avx512.c,$(STAGES_SRC))
STAGES_ARM_ONLY := $(filter stages/xio_narrow_neon.c,$(STAGES_SRC))

stages_isa_flags = $(if $(findstring _sse41,$1),-msse4.1,$(if $(findstring _avx2,$1),-mavx2,$(if $(findstring _avx512,$1),-mavx512f -mavx512bw -mavx512vl)))

# $(call stages_lib,DIR,CC,CFLAGS,SOURCES)
define stages_lib
$1/stages/%.o: stages/%.c $(wildcard stages/*.h) | $1/stages
	$2 $3 $$(call stages_isa_flags,$$<) $(ISAL_CFLAGS) -c $$< -o $$@
$1/stages:
	mkdir -p $$@
$1/libxio_stages.a: $(patsubst stages/%.c,$1/stages/%.o,$4)
	rm -f $$@ && ar rcs $$@ $$^
endef

STAGES_NATIVE_SRC := $(filter-out $(STAGES_ARM_ONLY),$(STAGES_SRC))
STAGES_ARM_SRC    := $(filter-out $(STAGES_X86_ONLY),$(STAGES_SRC))

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
AARCH64_CC := aarch64-linux-gnu-gcc
AARCH64_CFLAGS := -O2 -g -std=gnu11 $(WARN) -D_GNU_SOURCE -Icommon -Istages -Ipipeline -march=armv8-a

$(eval $(call stages_lib,$(BUILD),$(CC),$(CFLAGS),$(STAGES_NATIVE_SRC)))
$(eval $(call stages_lib,$(BUILD)/asan,$(CC),$(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS),$(STAGES_NATIVE_SRC)))
$(eval $(call stages_lib,$(BUILD)/aarch64,$(AARCH64_CC),$(AARCH64_CFLAGS),$(STAGES_ARM_SRC)))

STAGES_LIB := $(BUILD)/libxio_stages.a
ALL += $(STAGES_LIB)
