# SPDX-License-Identifier: GPL-2.0-only
# `make demo`: a simulated GPU in a VM with a mixed workload, and drmtop live on the console, so
# drmtop can be seen at work on a machine without a GPU. DEMO_KERNEL=6.1|6.12 (default 6.12);
# DEMO_BATCH=1 prints plain frames instead of the live view; DEMO_RECORD=SECONDS shows what
# `drmtop record` makes of that workload. In the live view q quits.
DEMO_KERNEL ?= 6.12

.PHONY: demo
demo: all simgpu-modules $(OUTPUT)/tests/simgpu-workload
	@command -v qemu-system-x86_64 >/dev/null || \
		{ echo "demo: qemu-system-x86_64 missing; run scripts/install-deps.sh" >&2; exit 1; }
	@tests/vm/run-in-vm.sh --kernel $(DEMO_KERNEL) --timeout 0 \
		$(if $(filter 1,$(DEMO_BATCH))$(DEMO_RECORD),,--interactive) -- \
		env DEMO_BATCH=$(DEMO_BATCH) DEMO_ITERATIONS=$(DEMO_ITERATIONS) DEMO_RECORD=$(DEMO_RECORD) \
		DEMO_DRMTOP_ARGS="$(DEMO_DRMTOP_ARGS)" tests/demo/demo-guest.sh
