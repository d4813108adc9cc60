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
SIMGPU_RELEASES = $(shell tests/vm/kernel-releases.sh 2>/dev/null)
SIMGPU_KOS = $(foreach r,$(SIMGPU_RELEASES),$(OUTPUT)/kmod/$(r)/simgpu.ko)
SIMGPU_KCC ?= gcc-12

.PHONY: simgpu-modules simgpu-smoke
simgpu-modules: $(SIMGPU_KOS) $(OUTPUT)/kmod/simgpu-smoke
	@test -n "$(SIMGPU_RELEASES)" || { tests/vm/kernel-releases.sh >/dev/null; \
		echo "simgpu: tests/vm/kernel-releases.sh listed no kernel" >&2; exit 1; }
simgpu-smoke: $(OUTPUT)/kmod/simgpu-smoke

# Kernels from unstable (VM_SID_KERNELS and VM_RT_KERNELS, vm.mk) are built with a compiler that does not run on
# Debian 12: their simgpu is built in the unstable chroot (tests/vm/sid-root.sh) with its gcc.
SIMGPU_SID_KCC ?= gcc-16
SID_ROOT ?= $(OUTPUT)/sid
export SID_ROOT := $(abspath $(SID_ROOT))

# simgpu-sid-<series>: make or refresh the chroot, then build simgpu for the newest release of
# that series (found at run time, so the target cannot name the .ko itself).
.PHONY: $(addprefix simgpu-sid-,$(VM_SID_KERNELS) $(VM_RT_KERNELS))
$(addprefix simgpu-sid-,$(VM_SID_KERNELS) $(VM_RT_KERNELS)): simgpu-sid-%: $(OUTPUT)/kmod/simgpu-smoke
	@rel=$$(tests/vm/sid-root.sh prepare $*) && \
		$(MAKE) --no-print-directory $(OUTPUT)/kmod/$$rel/simgpu.ko

# The headers decide where a release is built: the host's (Debian 12 kernels) or the chroot's.
$(OUTPUT)/kmod/%/simgpu.ko: $(SIMGPU_KSRCS)
	@test -d /usr/src/linux-headers-$* || test -d $(SID_ROOT)/usr/src/linux-headers-$* || \
		{ echo "simgpu: no /usr/src/linux-headers-$*; run scripts/install-deps.sh" >&2; exit 1; }
	@rm -rf $(OUTPUT)/kmod/$*/src && mkdir -p $(OUTPUT)/kmod/$*/src
	cp $(SIMGPU_KSRCS) $(OUTPUT)/kmod/$*/src/
	$(if $(wildcard /usr/src/linux-headers-$*), \
		$(MAKE) -C /usr/src/linux-headers-$* M=$(abspath $(OUTPUT)/kmod/$*/src) \
			CC=$(SIMGPU_KCC) modules, \
		tests/vm/sid-root.sh run --bind $(abspath $(OUTPUT)/kmod/$*/src) /var/tmp/simgpu -- \
			make -C /usr/src/linux-headers-$* M=/var/tmp/simgpu CC=$(SIMGPU_SID_KCC) modules)
	cp $(OUTPUT)/kmod/$*/src/simgpu.ko $@

$(OUTPUT)/kmod/simgpu-smoke: $(SIMGPU_DIR)/simgpu-smoke.c $(SIMGPU_DIR)/simgpu_drm.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(SIMGPU_DIR) $$($(PKG_CONFIG) --cflags libdrm) -static $< -o $@

CLEAN_PATHS += $(OUTPUT)/kmod
