# SPDX-License-Identifier: GPL-2.0-only
#
# VM test stages: boot Debian's 6.1 and 6.12 kernels (the two releases
# tests/vm/kernel-releases.sh prints) and unstable's newest 7.2 kernel (tests/vm/sid-root.sh)
# under QEMU TCG and run tests/vm/run-suite.sh once per kernel. vm-test-<short> writes
# "<passed> <failed>" to $(RESULTS)/vm-test-<short>.
# Other fragments add what the guest suite needs with `VM_TEST_DEPS += <target>`.
# Knobs: VM_TIMEOUT (seconds for the whole boot+suite), VM_CASE_TIMEOUT (per case),
# VM_SIMGPU_PARAMS ("k=v ..." for simgpu), VM_CASES (run only these case names), VM_ENV
# ("NAME=VALUE ..." for the guest, e.g. CASE41_RUNS=3), SOAK_SECONDS (vm-soak's churn, default
# 600).
# `make vm-shell KERNEL=6.1|6.12|7.2` opens an interactive root shell in the guest (Ctrl-A x quits).

VM_KERNELS := 6.1 6.12
# Kernels Debian 12 does not have: from unstable, simgpu built for them in a chroot of it.
VM_SID_KERNELS := 7.2
VM_TEST_DEPS ?=
VM_TIMEOUT ?= 1500
KERNEL ?= 6.1
# simgpu.mk defines simgpu-modules; without it the VM runs without simgpu.
VM_SIMGPU_DEP := $(if $(wildcard tests/kmod/simgpu/simgpu.mk),simgpu-modules)

# vm-test-7.2: 7.2 skips tracer programs now and then (PREEMPT_LAZY, counted in
# recursion_misses) and the tracer makes up for a skipped queue or run event
# (bpf/drmtop_sched.bpf.c), and the cases expect what the kernel does, learnt from the kernel
# (fdinfo status keys left out at 0, 6.17's tracepoint names from gpu_sched's BTF). Skips come
# at random, so on 7.2 case 41 runs 10 times (CASE41_RUNS, each run's misses in the log),
# which needs a longer per-case limit; the stage takes about 11 minutes, 16 in a fresh clone
# (making the chroot, building simgpu, fetching the kernel). On 7.2 the scheduler thread can
# be preempted between the run tracepoint and run_job: the tracer reports that bracket
# (start_slack_ns) and case 41 checks the truth against it.
TEST_TARGETS += $(addprefix vm-test-,$(VM_KERNELS) $(VM_SID_KERNELS))
# Case 65 (signals) runs on 6.12 only: what it proves is userspace's (the handlers, whole
# output, exit status) and the kernel's fd-based lifetime of BPF links and maps, the same on
# every kernel, and it takes 3-6 minutes of the CI hour per kernel under TCG.
# Case 90 (churn soak) runs 600 s on 6.12 in a stage of its own (vm-soak, below), and 90 s in
# the 7.2 suite, where the kernel skips tracer programs under churn: each client still once,
# closed, with its jobs, no map left fuller than before, every loss a skip the kernel made.
# (VM_SKIP_<short>: case names separated by commas; the guest splits VM_ENV at spaces.)
# Cases 35 (the live view, fdinfo only) and 70 (a real Prometheus scraping drmtop serve) run on
# 6.12 only too: what they prove is the views' and the exporter's (both read the model, which
# cases 30, 41 and 60 check against the truth on every kernel), and together they take 2-3
# minutes per kernel.
VM_SKIP_6.1 := 35-drmtop-tui,65-drmtop-signals,70-drmtop-prometheus,90-drmtop-soak
VM_SKIP_7.2 := 35-drmtop-tui,65-drmtop-signals,70-drmtop-prometheus
vm-test-7.2: VM_ENV ?= CASE41_RUNS=10 SOAK_SECONDS=90
vm-test-7.2: VM_CASE_TIMEOUT ?= 900

.PHONY: $(addprefix vm-test-,$(VM_KERNELS) $(VM_SID_KERNELS)) vm-shell vm-kernels

# A case that runs in a stage of its own is left out of a kernel's suite (VM_SKIP_<short>), unless
# VM_CASES names it.
define vm_test_recipe
	@VM_TIMEOUT=$(VM_TIMEOUT) VM_CASE_TIMEOUT="$(VM_CASE_TIMEOUT)" \
		VM_SIMGPU_PARAMS="$(VM_SIMGPU_PARAMS)" VM_CASES="$(VM_CASES)" \
		VM_GUEST_ENV="$(VM_ENV) $(if $(VM_CASES),,$(if $(VM_SKIP_$*),VM_SKIP_CASES=$(VM_SKIP_$*)))" \
		tests/vm/vm-test.sh $* $(RESULTS)/vm-test-$*
endef

# The prerequisites are expanded when the recipe runs (second expansion), so fragments
# included after this one still add to VM_TEST_DEPS. A sid kernel's stage needs only its own
# simgpu (simgpu-sid-<short>, which also makes or refreshes the chroot), not the host builds.
.SECONDEXPANSION:
$(addprefix vm-test-,$(VM_KERNELS)): vm-test-%: all $(VM_SIMGPU_DEP) $$(VM_TEST_DEPS)
	$(vm_test_recipe)
$(addprefix vm-test-,$(VM_SID_KERNELS)): vm-test-%: all \
		$(VM_SIMGPU_DEP:simgpu-modules=simgpu-sid-%) $$(VM_TEST_DEPS)
	$(vm_test_recipe)

# The churn soak (tests/vm/cases/90-drmtop-soak.sh): SOAK_SECONDS of short-lived clients under
# drmtop -J and drmtop record, in a boot of 6.12 of its own, so that its ten minutes do not count
# against a suite's time limit; the suites leave the case out. About 13 minutes of CI under TCG.
# Writes "<passed> <failed>" to $(RESULTS)/vm-soak.
TEST_TARGETS += vm-soak
SOAK_SECONDS ?= 600
# heapwatch.so: malloc's count of bytes in use, sampled inside the soak's drmtop (LD_PRELOAD).
HEAPWATCH := $(OUTPUT)/tests/heapwatch.so
$(HEAPWATCH): tests/vm/heapwatch.c | $(OUTPUT)/tests
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNFLAGS) $(CFLAGS) -fPIC -shared $< $(LDFLAGS) -pthread -o $@
VM_TEST_DEPS += $(HEAPWATCH)
SOAK_KERNEL := 6.12
VM_SKIP_$(SOAK_KERNEL) := 90-drmtop-soak
.PHONY: vm-soak
vm-soak: all $(VM_SIMGPU_DEP) $$(VM_TEST_DEPS)
	@VM_STAGE=vm-soak VM_TIMEOUT=$$(($(SOAK_SECONDS) + 1200)) \
		VM_CASE_TIMEOUT=$$(($(SOAK_SECONDS) + 900)) VM_CASES=90-drmtop-soak \
		VM_SIMGPU_PARAMS="$(VM_SIMGPU_PARAMS)" VM_GUEST_ENV="SOAK_SECONDS=$(SOAK_SECONDS)" \
		tests/vm/vm-test.sh $(SOAK_KERNEL) $(RESULTS)/vm-soak

# The harness from a copy under /tmp (tests/vm/path-test.sh): a checkout anywhere must work.
TEST_TARGETS += vm-path
.PHONY: vm-path
vm-path:
	@tests/vm/path-test.sh $(RESULTS)/vm-path

vm-shell:
	@tests/vm/run-in-vm.sh --kernel $(KERNEL) --interactive --timeout 0 \
		$(if $(VM_SIMGPU_PARAMS),--simgpu-params "$(VM_SIMGPU_PARAMS)") -- /bin/bash -i

# Fetch every kernel ahead of time (CI caches build/vm/kernels, and build/sid for unstable's).
vm-kernels:
	@for k in $(VM_SID_KERNELS); do tests/vm/sid-root.sh prepare $$k >/dev/null || exit 1; done
	@for k in $(VM_KERNELS) $(VM_SID_KERNELS); do \
		tests/vm/fetch-kernel.sh $$(tests/vm/resolve-kernel.sh $$k) || exit 1; done
