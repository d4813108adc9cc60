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
# at random; case 41 prints its run's misses, and CASE41_RUNS=N runs it N times (with a longer
# per-case limit here). Every make-up is proven where it is forced, on every kernel (bpfdump
# --drop-*, cases 43 and 50), so repeating case 41 in make test bought CI time for nothing (10
# runs until 2026-11-26, 4.3 minutes; then 3, then 2: a minute each). On 7.2 the scheduler thread can
# be preempted between the run tracepoint and run_job: the tracer reports that bracket
# (start_slack_ns) and case 41 checks the truth against it.
VM_SUITES := $(VM_KERNELS) $(VM_SID_KERNELS)
# make test runs each kernel's suite as two stages (the Makefile's test: and README.md): the
# cases whose checks are exact (counts, bytes, flags; marked "# parallel-safe:" in their first
# five lines, run-suite.sh's VM_CASE_SET=exact) in vm-test-<short>-exact, which may share the
# host with any other VM (TEST_PARALLEL), and the cases that hold measured time to the truth in
# tight bands in vm-test-<short>-timed (TEST_TIMED), two at a time as well but only beside each
# other, after the others: the exact halves and the soak keep their VM's CPU busy (exec-heavy
# scripts, churn), the timed cases mostly wait on simgpu's timers. Run so at d835f01 (6.1 beside
# 7.2, 6.12 beside 7.2-rt), every timed case passed and took what it takes alone within 3 s or
# 12 %, but case 60 (10-12 s longer); 60 on 7.2 had failed beside an exact half. `make
# vm-test-<short>` runs the whole suite in one boot as before.
TEST_TARGETS += $(foreach k,$(VM_SUITES),vm-test-$(k)-exact vm-test-$(k)-timed)
# make starts a pool's stages in order, each in the first free slot. The soak (12.4 minutes) takes
# one slot, then bench-smoke (2.2); 7.2's (4.9) and 6.12's (7.5) exact halves the other, then
# 6.1's (4.6): the slots ended 1.7 minutes apart in a fresh-clone run at b59b1dd (make test's
# summary gives each stage's time and start).
TEST_PARALLEL += vm-soak $(foreach k,7.2 6.12 6.1,$(if $(filter $(k),$(VM_SUITES)),vm-test-$(k)-exact)) \
	$(addsuffix -exact,$(addprefix vm-test-,$(filter-out 7.2 6.12 6.1,$(VM_SUITES))))
TEST_TIMED += vm-test-6.12-timed vm-test-6.1-timed vm-test-7.2-timed
# Case 65 (signals) runs on 6.12 only: what it proves is userspace's (the handlers, whole
# output, exit status) and the kernel's fd-based lifetime of BPF links and maps, the same on
# every kernel, and it takes about 3 minutes per kernel under TCG (175 s at b59b1dd).
# Case 90 (churn soak) runs 600 s on 6.12 in a stage of its own (vm-soak, below), and 60 s on
# 7.2-rt (vm-test-7.2-rt; 90 s until 2026-11-29, the timed pool's longer lane), where the kernel
# skips tracer programs under churn three times as often as plain 7.2: each client still once,
# closed, with its jobs, no map left fuller than before, every loss a skip the kernel made.
# Plain 7.2's exact half ran the same 90 s too until 3363f77 (2.5 minutes of the parallel pool's
# longer slot, which then ended 2-3 minutes after the soak's): the same churn, fewer skips.
# (VM_SKIP_<short>: case names separated by commas; the guest splits VM_ENV at spaces.)
# Cases 35 (the live view, fdinfo only) and 70 (a real Prometheus scraping drmtop serve) run on
# 6.12 only too: what they prove is the views' and the exporter's (both read the model, which
# cases 30, 41 and 60 check against the truth on every kernel), and together they take 2-3
# minutes per kernel. So does case 63 (clients in five containers' and services' cgroups, sums
# per workload): the grouping is the model's; the kernel's part, the cgroup id the tracer takes
# at open, case 60 checks on every kernel.
# Case 39 (fentry/fexit as the kernel's trampolines allow) runs in the arm64 stage, on a kernel
# with them and one without: on x86, where every kernel has them, case 40 already requires every
# hook attached.
VM_SKIP_6.1 := 35-drmtop-tui,39-bpf-trampolines,63-drmtop-cgroups,65-drmtop-signals,70-drmtop-prometheus,90-drmtop-soak
VM_SKIP_7.2 := 35-drmtop-tui,39-bpf-trampolines,62-drmtop-pidns,63-drmtop-cgroups,65-drmtop-signals,70-drmtop-prometheus,90-drmtop-soak
# Case 80's firmware-scheduled churn (400 processes, some 2,400 schedulers, under record) runs on
# 6.1 (jobs owned through entity hooks) and 7.2 (through the fence's client id, with the kernel's
# skips), not on 6.12, whose attribution is 7.2's and whose churn under record the soak proves
# (vm-soak, 6.12). Its six drivers without engine time (lima .. rocket: a reload and two drmtops
# each, 36 s on 6.1, 57 % of the case) run once each: what they prove is the driver table's
# names and timing, the same on every kernel and architecture; four in the arm64 stage, where
# those GPUs ship, panthor on 7.2, whose fdinfo time with its profiling on is 7.x's, and rocket
# on 6.12, whose drm.ko has accel (Debian's arm64 6.12 has not): its clients on /dev/accel
# must be known to the tracer from their open. They
# ran on every kernel until 2026-11-29: some 10 minutes of the timed pool, whose end is make
# test's. So does v3d (arm64's GPU: its rings' names and depth 1 are the table's and simgpu's,
# 30 s a kernel). amdgpu runs on 6.1 and 6.12, whose kernel jobs (its buffer clears) the tracer
# tells apart in two ways (the driver's kernel-priority entity; the fence's client id, as 7.2).
vm-test-6.12 vm-test-6.12-timed: VM_ENV ?= CASE80_PARTS=amdgpu,fw,rocket
vm-test-6.1 vm-test-6.1-timed: VM_ENV ?= CASE80_PARTS=amdgpu,fw,fw-churn
$(foreach k,$(VM_SID_KERNELS),vm-test-$(k) vm-test-$(k)-exact vm-test-$(k)-timed): \
	VM_ENV ?= SOAK_SECONDS=90 CASE80_PARTS=fw,fw-churn,panthor
$(foreach k,$(VM_SID_KERNELS),vm-test-$(k) vm-test-$(k)-exact vm-test-$(k)-timed): \
	VM_CASE_TIMEOUT ?= 900

# vm-test-7.2-rt: unstable's PREEMPT_RT flavour of 7.2 (7.2.x+debN-rt-amd64), where
# drm_sched_job_done runs in the ktimers softirq thread, the kernel skips the tracer's programs
# about three times as often as on the plain kernel and completions come later: the cases where
# a lost event would show (41: busy time and jobs exact with the kernel's skips made up, 50:
# lanes and a job whose queue, run or done was lost, 90: 60 s of churn, every client once with
# its jobs, closed, every map back to idle). Case 43 (short-lived clients, and drops forced
# through bpfdump, whatever the kernel) ran here too until 2026-11-29: its closes under the
# kernel's skips are the churn's, and its 100 s were the timed pool's longer lane's. The guest
# knows nothing of the flavour; 00-environment checks that the host's kernel booted.
VM_RT_KERNELS := 7.2-rt
VM_RT_CASES := 00-environment 41-bpf-busy-memory 50-bpf-engine-capacity 90-drmtop-soak
TEST_TARGETS += $(addprefix vm-test-,$(VM_RT_KERNELS))
TEST_TIMED += $(addprefix vm-test-,$(VM_RT_KERNELS))
$(addprefix vm-test-,$(VM_RT_KERNELS)): VM_ENV ?= SOAK_SECONDS=60
$(addprefix vm-test-,$(VM_RT_KERNELS)): VM_CASE_TIMEOUT ?= 900
$(addprefix vm-test-,$(VM_RT_KERNELS)): VM_CASES = $(VM_RT_CASES)

VM_STAGES := $(foreach k,$(VM_SUITES),vm-test-$(k) vm-test-$(k)-exact vm-test-$(k)-timed) \
	$(addprefix vm-test-,$(VM_RT_KERNELS))
.PHONY: $(VM_STAGES) vm-deps vm-shell vm-kernels

# A case that runs in a stage of its own is left out of a kernel's suite (VM_SKIP_<short>), unless
# VM_CASES names it. $(1): the kernel's short name, $(2): the case set (empty: all).
define vm_test_recipe
	@VM_STAGE=$@ VM_TIMEOUT=$(VM_TIMEOUT) VM_CASE_TIMEOUT="$(VM_CASE_TIMEOUT)" \
		VM_SIMGPU_PARAMS="$(VM_SIMGPU_PARAMS)" VM_CASES="$(VM_CASES)" \
		VM_GUEST_ENV="$(VM_ENV) $(if $(2),VM_CASE_SET=$(2)) \
		$(if $(VM_CASES),,$(if $(VM_SKIP_$(1)),VM_SKIP_CASES=$(VM_SKIP_$(1))))" \
		$(STAGE_RUN) $@ -- tests/vm/vm-test.sh $(1) $(RESULTS)/$@
endef

# vm-deps: everything the guest cases run from the host's build (build/drmtop, simgpu for the
# Debian 12 kernels, and every VM_TEST_DEPS: the workload, bpfdump, vgem-share, heapwatch.so).
# The prerequisites are expanded when the recipe runs (second expansion), so fragments
# included after this one still add to VM_TEST_DEPS. A sid kernel's stage needs its own simgpu
# (simgpu-sid-<short>, which also makes or refreshes the chroot) instead of simgpu-modules.
.SECONDEXPANSION:
vm-deps: vm-guest-bins $(VM_SIMGPU_DEP)
# The guest's programs alone: what tests/arm64/cross.sh builds for the arm64 guest.
.PHONY: vm-guest-bins
vm-guest-bins: all $$(VM_TEST_DEPS)
# $(1): a kernel's short name; $(2): what its stages need built (second expansion).
define vm_test_stages
vm-test-$(1) vm-test-$(1)-exact vm-test-$(1)-timed: $(2)
vm-test-$(1):
	$$(call vm_test_recipe,$(1),)
vm-test-$(1)-exact:
	$$(call vm_test_recipe,$(1),exact)
vm-test-$(1)-timed:
	$$(call vm_test_recipe,$(1),timed)
endef
$(foreach k,$(VM_KERNELS),$(eval $(call vm_test_stages,$(k),vm-deps)))
# make test builds every sid kernel's simgpu in its build phase, beside the host's builds
# (TEST_BUILD), then runs the pools with VM_SID_BUILT=1: a stage that built its own (a phony
# prerequisite, run when the stage starts) held a pool slot for the chroot's making and the
# build, and made its stage start after others queued meanwhile.
VM_SID_DEP = $(if $(VM_SID_BUILT),,$(VM_SIMGPU_DEP:simgpu-modules=simgpu-sid-$(1)))
TEST_BUILD += $(if $(VM_SIMGPU_DEP),$(addprefix simgpu-sid-,$(VM_SID_KERNELS) $(VM_RT_KERNELS)))
$(foreach k,$(VM_SID_KERNELS),$(eval $(call vm_test_stages,$(k),all \
	$(call VM_SID_DEP,$(k)) $$$$(VM_TEST_DEPS))))
$(foreach k,$(VM_RT_KERNELS),$(eval vm-test-$(k): all \
	$(call VM_SID_DEP,$(k)) $$$$(VM_TEST_DEPS)))
$(addprefix vm-test-,$(VM_RT_KERNELS)):
	$(call vm_test_recipe,$(@:vm-test-%=%),)

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
# Case 62 (pid namespaces) runs on 6.1 only: what it proves is userspace's (pids translated
# through the proc it is given, -p, the agent's layout); its kernel part, the attach-time
# task_file iterator walking the caller's active pid namespace only, is so in every version
# (kernel/bpf/task_iter.c, init_seq_pidns). It took 76 s of 6.12's exact half and 110 s of
# 7.2's, the parallel pool's longer slot.
# Cases 49 (tiny maps) and 52 (two GPUs) run on 6.1 and 7.2: 6.12 attributes jobs as 7.2 does
# (the fence's client id), and what they prove beyond that is the tracer's and the reader's.
VM_SKIP_$(SOAK_KERNEL) := 39-bpf-trampolines,49-bpf-small-maps,52-bpf-two-devices,62-drmtop-pidns,90-drmtop-soak
.PHONY: vm-soak
vm-soak: vm-deps
	@VM_STAGE=vm-soak VM_TIMEOUT=$$(($(SOAK_SECONDS) + 1200)) \
		VM_CASE_TIMEOUT=$$(($(SOAK_SECONDS) + 900)) VM_CASES=90-drmtop-soak \
		VM_SIMGPU_PARAMS="$(VM_SIMGPU_PARAMS)" VM_GUEST_ENV="SOAK_SECONDS=$(SOAK_SECONDS)" \
		$(STAGE_RUN) vm-soak -- tests/vm/vm-test.sh $(SOAK_KERNEL) $(RESULTS)/vm-soak

# The long soak (not in make test): an hour of the same churn on the firmware-scheduled
# personality (a scheduler per client file and engine, made and freed with it) under the stream,
# record and the exporter, on the newest kernel. Its samples are the figures in
# docs/PERFORMANCE.md. SOAK_LONG_SECONDS and SOAK_LONG_KERNEL to change it.
SOAK_LONG_SECONDS ?= 3600
SOAK_LONG_KERNEL ?= 7.2
.PHONY: soak-long
soak-long: $(if $(filter $(SOAK_LONG_KERNEL),$(VM_SID_KERNELS)),all \
		$(VM_SIMGPU_DEP:simgpu-modules=simgpu-sid-$(SOAK_LONG_KERNEL)) $$(VM_TEST_DEPS),vm-deps)
	@VM_STAGE=soak-long VM_TIMEOUT=$$(($(SOAK_LONG_SECONDS) + 1500)) \
		VM_CASE_TIMEOUT=$$(($(SOAK_LONG_SECONDS) + 1200)) VM_CASES=90-drmtop-soak \
		VM_SIMGPU_PARAMS="personality=fw" \
		VM_GUEST_ENV="SOAK_SECONDS=$(SOAK_LONG_SECONDS) SOAK_SERVE=1" \
		$(STAGE_RUN) soak-long -- tests/vm/vm-test.sh $(SOAK_LONG_KERNEL) $(RESULTS)/soak-long

# The harness from a copy under /tmp (tests/vm/path-test.sh): a checkout anywhere must work.
TEST_TARGETS += vm-path
TEST_PARALLEL += vm-path
.PHONY: vm-path
vm-path:
	@$(STAGE_RUN) vm-path -- tests/vm/path-test.sh $(RESULTS)/vm-path

vm-shell:
	@tests/vm/run-in-vm.sh --kernel $(KERNEL) --interactive --timeout 0 \
		$(if $(VM_SIMGPU_PARAMS),--simgpu-params "$(VM_SIMGPU_PARAMS)") -- /bin/bash -i

# Fetch every kernel ahead of time (CI caches build/vm/kernels, and build/sid for unstable's);
# make test does it beside its build and host stages (TEST_PREPARE). Not the initramfs: an arm64
# kernel's takes the arm64 root's busybox (run-in-vm.sh), and one made with the host's panicked
# its boot (ENOEXEC) in a rehearsal.
VM_PREPARE_KERNELS += $(VM_KERNELS) $(VM_SID_KERNELS) $(VM_RT_KERNELS)
TEST_PREPARE += vm-kernels
vm-kernels:
	@for k in $(VM_SID_KERNELS) $(VM_RT_KERNELS); do \
		tests/vm/sid-root.sh prepare $$k >/dev/null || exit 1; done
	@for k in $(VM_PREPARE_KERNELS); do \
		tests/vm/fetch-kernel.sh $$(tests/vm/resolve-kernel.sh $$k) || exit 1; done
