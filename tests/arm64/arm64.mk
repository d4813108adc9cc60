# SPDX-License-Identifier: GPL-2.0-only
# make arm64: drmtop, its BPF objects, unit tests and simgpu cross-built for arm64 from this
# machine (tests/arm64/cross.sh: gcc-aarch64-linux-gnu against Debian 12's arm64 libraries and
# headers), checked, the unit tests run under qemu-aarch64: a commit that breaks the arm64 build
# fails here. On an arm64 machine a plain `make` builds natively.
# make vm-test-arm64: Debian 12's arm64 6.12 kernel under qemu-system-aarch64 (virt, TCG) with an
# arm64 root of Debian's packages (tests/vm/arm64-root.sh) and the arm64 build, running the
# tracer cases of the x86 suites (VM_ARM64_CASES) with their tolerances; then arm64 6.1, which has
# no BPF trampolines, for what drmtop does without them (tests/arm64/vm-test-arm64.sh).
TEST_TARGETS += arm64 vm-test-arm64
TEST_TIMED += vm-test-arm64

ARM64_DIR := $(OUTPUT)/arm64
VM_ARM64_CASES ?= 00-environment 10-simgpu-load 20-workload-selfcheck 39-bpf-trampolines 40-bpf-attach \
	41-bpf-busy-memory 42-bpf-shared-clients 43-bpf-short-lived 60-drmtop-bpf \
	80-simgpu-personalities
# Of case 60: the idle closes the tracer counts in the kernel, whose handover with the reader
# rests on ordered atomics that arm64 runs as such only when asked (drmtop_ordered_add).
VM_ARM64_CASE60_PARTS ?= idle
# Of case 80: v3d (arm64's own GPU) and the drivers without engine time, whose figures are the
# tracer's alone (run here only, where those GPUs ship: tests/vm/vm.mk); amdgpu's and the
# firmware-scheduled parts hold nothing arm64-specific.
# panthor runs on 7.2 (x86) instead, with its fdinfo time under profiling: its table entry is
# the same on every architecture, and the arm64 stage is in the timed pool's longer lane; rocket
# on 6.12 (x86), whose kernel has accel, which Debian's arm64 6.12 has not.
VM_ARM64_CASE80_PARTS ?= v3d,lima,etnaviv,nouveau,powervr

.PHONY: arm64 arm64-vm-deps vm-test-arm64
# Every host BPF object: the stage compares each with the arm64 build's, and the test object is
# no prerequisite of drmtop (a stale one failed the comparison after a plain make).
arm64: $(OUTPUT)/drmtop $(BPF_OBJS)
	@MAKE="$(MAKE)" $(STAGE_RUN) arm64 -- tests/arm64/run-arm64.sh $(OUTPUT) $(ARM64_DIR)

# Everything the arm64 guest runs from the build: the programs, simgpu-smoke and simgpu (the
# stage builds them itself, first).
arm64-vm-deps:
	@MAKE="$(MAKE)" tests/arm64/cross.sh $(ARM64_DIR) vm-guest-bins \
		$(abspath $(ARM64_DIR))/build/kmod/simgpu-smoke simgpu
# The arm64 root the guest boots into (run-in-vm.sh's default place for it).
.PHONY: arm64-root
arm64-root:
	@tests/vm/arm64-root.sh $(ARM64_DIR)/root
# What vm-test-arm64 fetches before its first boot, fetched beside make test's build and host
# stages (TEST_PREPARE, the Makefile): at the stage's start it held a slot of the timed pool.
TEST_PREPARE += arm64-root
VM_PREPARE_KERNELS += arm64-6.12 arm64-6.1

vm-test-arm64: $(OUTPUT)/drmtop
	@MAKE="$(MAKE)" ARM64_DIR=$(ARM64_DIR) VM_TIMEOUT=$(VM_TIMEOUT) \
		VM_CASE_TIMEOUT="$(VM_CASE_TIMEOUT)" VM_SIMGPU_PARAMS="$(VM_SIMGPU_PARAMS)" \
		VM_ARM64_CASES="$(or $(VM_CASES),$(VM_ARM64_CASES))" \
		VM_GUEST_ENV="CASE60_PARTS=$(VM_ARM64_CASE60_PARTS) \
			CASE80_PARTS=$(VM_ARM64_CASE80_PARTS) $(VM_ENV)" \
		VM_ARM64_BUILD=$(abspath $(ARM64_DIR))/build \
		$(STAGE_RUN) $@ -- tests/arm64/vm-test-arm64.sh $(RESULTS)/$@

CLEAN_PATHS += $(ARM64_DIR)
