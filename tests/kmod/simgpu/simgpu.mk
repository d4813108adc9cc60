# SPDX-License-Identifier: GPL-2.0-only
# simgpu, the simulated drm_sched GPU of the VM tests, built out of tree for every kernel the VM
# suites boot (tests/vm/kernel-releases.sh): build/kmod/<release>/simgpu.ko. The sources are
# copied to build/kmod/<release>/src so Kbuild's outputs never land in tests/. Also builds the
# guest-side smoke test, build/kmod/simgpu-smoke (a static binary: the guest runs the host's
# root read-only, but this way the test needs nothing from it but the kernel).

SIMGPU_DIR := tests/kmod/simgpu
SIMGPU_SRCS := $(wildcard $(SIMGPU_DIR)/*.c $(SIMGPU_DIR)/*.h) $(SIMGPU_DIR)/Kbuild \
	$(SIMGPU_DIR)/simgpu-probe.sh
SIMGPU_KSRCS := $(filter-out $(SIMGPU_DIR)/simgpu-smoke.c,$(SIMGPU_SRCS))
SIMGPU_RELEASES = $(shell tests/vm/kernel-releases.sh)
SIMGPU_KOS = $(foreach r,$(SIMGPU_RELEASES),$(OUTPUT)/kmod/$(r)/simgpu.ko)
SIMGPU_KCC ?= gcc-12

.PHONY: simgpu-modules simgpu-smoke
simgpu-modules: $(SIMGPU_KOS) $(OUTPUT)/kmod/simgpu-smoke
	@test -n "$(SIMGPU_RELEASES)" || \
		{ echo "simgpu: tests/vm/kernel-releases.sh listed no kernel" >&2; exit 1; }
simgpu-smoke: $(OUTPUT)/kmod/simgpu-smoke

$(OUTPUT)/kmod/%/simgpu.ko: $(SIMGPU_KSRCS)
	@test -d /usr/src/linux-headers-$* || \
		{ echo "simgpu: no /usr/src/linux-headers-$*; run scripts/install-deps.sh" >&2; exit 1; }
	@rm -rf $(OUTPUT)/kmod/$*/src && mkdir -p $(OUTPUT)/kmod/$*/src
	cp $(SIMGPU_KSRCS) $(OUTPUT)/kmod/$*/src/
	$(MAKE) -C /usr/src/linux-headers-$* M=$(abspath $(OUTPUT)/kmod/$*/src) CC=$(SIMGPU_KCC) \
		modules
	cp $(OUTPUT)/kmod/$*/src/simgpu.ko $@

$(OUTPUT)/kmod/simgpu-smoke: $(SIMGPU_DIR)/simgpu-smoke.c $(SIMGPU_DIR)/simgpu_drm.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(SIMGPU_DIR) $$($(PKG_CONFIG) --cflags libdrm) -static $< -o $@

CLEAN_PATHS += $(OUTPUT)/kmod
