# SPDX-License-Identifier: GPL-2.0-only
# dist/'s fleet files: Prometheus rules with their promtool unit tests, the scrape configuration,
# the Kubernetes DaemonSet (host, no root, a few seconds).
TEST_TARGETS += fleet

.PHONY: fleet
fleet: $(OUTPUT)/drmtop
	@DRMTOP=$(OUTPUT)/drmtop $(STAGE_RUN) fleet -- tests/dist/fleet-test.sh
