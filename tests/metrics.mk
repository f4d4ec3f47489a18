# tests/metrics.mk: the --metrics endpoints of xio-server and xio-pipeline
# against Debian's prometheus (promtool check metrics; a Prometheus server
# on loopback, ports 21200-21209, its storage under build/metrics/):
# tests/metrics/test_metrics.sh.

.PHONY: metrics
metrics: $(BUILD)/xio-server $(BUILD)/xio-pipeline $(BUILD)/xio-fetch
	bash tests/metrics/test_metrics.sh $(BUILD)

TESTS += metrics
