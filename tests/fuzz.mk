# tests/fuzz.mk: the libFuzzer target over the stage core (tests/fuzz/).
#   make fuzz FUZZ_SECONDS=N   fuzz for N seconds (default 60)
#   make fuzz-smoke            the same for FUZZ_SMOKE_SECONDS (30), in make test
#   make fuzz-mutants          plants known bugs in copies of stages/ and checks
#                              that the target catches each (MUTANT_SECONDS each)
# The stage core is rebuilt with clang for coverage under ASan+UBSan into
# build/fuzz/; the seeds are the frames of $(XIO_VECTORS)/*/in.pcap, written
# to build/fuzz/seeds; what the fuzzer finds grows build/fuzz/corpus, and a
# crashing input lands in build/fuzz/artifacts/. Inputs that once failed
# are kept in tests/fuzz/regress/ and replayed first.

FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_BIN      := $(FUZZ_DIR)/xio-fuzz-stage
FUZZ_VECTORS  := $(or $(XIO_VECTORS),../shared/vectors)
FUZZ_SECONDS  ?= 60
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   := $(filter-out -O2,$(CFLAGS)) -O1 -gline-tables-only $(FUZZ_SAN) \
		 -fsanitize=fuzzer-no-link
FUZZ_OPTS     := -max_len=9100 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		 -artifact_prefix=$(FUZZ_DIR)/artifacts/

$(eval $(call stages_lib,$(FUZZ_DIR),$(CLANG),$(FUZZ_CFLAGS),$(STAGES_NATIVE_SRC)))

FUZZ_SRC := tests/fuzz/fuzz_stage.c tests/fuzz/fuzz_check.c tests/hostile/xio_ref.c

$(FUZZ_BIN): $(FUZZ_SRC) $(FUZZ_DIR)/libxio_stages.a $(wildcard tests/fuzz/*.h tests/hostile/*.h stages/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(filter-out -fsanitize=fuzzer-no-link,$(FUZZ_CFLAGS)) -fsanitize=fuzzer \
		-Itests/hostile $(ISAL_CFLAGS) $(FUZZ_SRC) $(FUZZ_DIR)/libxio_stages.a -o $@ $(ISAL_LIBS)

# $(call fuzz_run,SECONDS): regression inputs, then seeds + corpus for SECONDS.
define fuzz_run
	@rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	python3 tests/fuzz/mkseeds.py $(FUZZ_VECTORS) $(FUZZ_DIR)/seeds
	@if ls tests/fuzz/regress/* >/dev/null 2>&1; then \
		echo "$(FUZZ_BIN) tests/fuzz/regress/*"; \
		$(FUZZ_BIN) tests/fuzz/regress/* 2>&1 | tail -n 3; \
		test $${PIPESTATUS[0]} -eq 0; fi
	$(FUZZ_BIN) $(FUZZ_OPTS) -max_total_time=$(1) $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds
endef

.PHONY: fuzz fuzz-smoke fuzz-mutants
fuzz: SHELL := /bin/bash
fuzz: $(FUZZ_BIN)
	$(call fuzz_run,$(FUZZ_SECONDS))

fuzz-smoke: SHELL := /bin/bash
fuzz-smoke: $(FUZZ_BIN)
	$(call fuzz_run,$(FUZZ_SMOKE_SECONDS))

MUTANT_SECONDS ?= 60
fuzz-mutants: $(FUZZ_BIN)
	@rm -rf $(FUZZ_DIR)/seeds
	python3 tests/fuzz/mkseeds.py $(FUZZ_VECTORS) $(FUZZ_DIR)/seeds
	bash tests/fuzz/mutants.sh $(BUILD) $(FUZZ_DIR)/seeds $(MUTANT_SECONDS)

TESTS += fuzz-smoke
