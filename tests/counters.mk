# tests/counters.mk: xio-pipeline's counters seen from outside while it
# runs: DPDK telemetry (dpdk-telemetry.py and a socket client) against the
# stats JSON and the captures (tests/e2e/test_counters.sh); and the
# hardware counters' JSON without a worker (tests/counters/hw_json.c), for
# the machines with a PMU this VM is not. The stats JSON's per-stage blocks
# are also checked on every run of `make dpdk`.

$(BUILD)/tests/hw-json: tests/counters/hw_json.c pipeline/xio_hwcounters.c pipeline/xio_hwcounters.h \
		$(COMMON_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(filter %.c,$^) $(COMMON_LIB) -o $@ -lm

.PHONY: counters
counters: $(BUILD)/xio-pipeline $(BUILD)/tests/hw-json
	$(BUILD)/tests/hw-json
	BUILD=$(BUILD) bash tests/e2e/test_counters.sh

TESTS += counters
