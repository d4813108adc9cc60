# SPDX-License-Identifier: GPL-2.0-only
# make arm64: drmtop, its BPF objects and unit tests cross-built for arm64 from this machine
# (gcc-aarch64-linux-gnu against Debian 12's arm64 libraries), the unit tests run under
# qemu-aarch64, and simgpu cross-built against Debian's arm64 6.12 headers: a commit that breaks
# the arm64 build fails here. On an arm64 machine a plain `make` builds natively.
TEST_TARGETS += arm64

ARM64_DIR := $(OUTPUT)/arm64

.PHONY: arm64
arm64: $(OUTPUT)/drmtop
	@MAKE="$(MAKE)" $(STAGE_RUN) arm64 -- tests/arm64/run-arm64.sh $(OUTPUT) $(ARM64_DIR)

CLEAN_PATHS += $(ARM64_DIR)
