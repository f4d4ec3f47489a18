# tests/bench_kernels.mk: the kernel benchmark (make bench, never make test):
# every narrowing kernel, memcpy and CRC32C on 64 B..9000 B buffers; the CSV
# goes to build/bench/kernels.csv.

BENCH_KERNELS     := $(BUILD)/bench/bench_kernels
BENCH_KERNELS_CSV ?= $(BUILD)/bench/kernels.csv

$(BENCH_KERNELS): tests/bench/bench_kernels.c $(STAGES_LIB) $(wildcard stages/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ISAL_CFLAGS) $(LDFLAGS) -o $@ $< $(STAGES_LIB) $(ISAL_LIBS)

.PHONY: bench-kernels
bench-kernels: $(BENCH_KERNELS)
	$(BENCH_KERNELS) --csv $(BENCH_KERNELS_CSV)

BENCHES += bench-kernels
