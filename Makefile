# SPDX-License-Identifier: GPL-2.0-only
#
# drmtop build: bpf/*.bpf.c -> build/*.bpf.o -> build/*.skel.h -> build/drmtop.
# Everything generated lands in $(OUTPUT); nothing is downloaded at build time.
# Sub-areas (test rig, workload, VM harness) add their rules through *.mk fragments.

OUTPUT ?= build
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man

CC ?= cc
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' \
	-e 's/riscv64/riscv/' -e 's/s390x/s390/' -e 's/loongarch64/loongarch/')

LIBBPF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf 2>/dev/null)
LIBBPF_LIBS := $(or $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null),-lbpf) -lelf -lz
CMOCKA_LIBS := $(or $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null),-lcmocka)
NCURSES_LIBS := $(or $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null),-lncursesw)

WARNFLAGS := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARNFLAGS) $(CFLAGS) -Iinclude -I$(OUTPUT) \
	$(LIBBPF_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS)

# BPF: the one vmlinux.h (vmlinux + drm + gpu_sched module types) under vmlinux/. The
# checkout's path is mapped to . so that the BTF line info's file names do not depend on it.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-fdebug-prefix-map=$(CURDIR)=. -Ivmlinux -Iinclude $(LIBBPF_CFLAGS)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

# src/ is layered: sources/ (fdinfo scan, BPF tracer) fill model/, views/ read only the model,
# util/ holds small shared helpers, cli/ the command line. src/cli/drmtop.c holds main();
# everything else is the library the tests link too.
APP_SRCS := src/cli/drmtop.c
LIB_SRCS := $(filter-out $(APP_SRCS),$(wildcard src/*/*.c))
LIB_OBJS := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(LIB_SRCS))
APP_OBJS := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(APP_SRCS))
LIBDRMTOP := $(OUTPUT)/libdrmtop.a

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))

# Fragments append to these. TEST_PARALLEL and TEST_TIMED name stages of TEST_TARGETS that boot
# a VM: TEST_PARALLEL's checks hold beside any other VM, TEST_TIMED's beside another of them only.
TEST_TARGETS :=
TEST_PARALLEL :=
TEST_TIMED :=
CLEAN_PATHS :=

.PHONY: all clean install uninstall test unit-test
.DEFAULT_GOAL := all
# A recipe that fails leaves no half-written target behind; generated BPF objects and skeletons
# are kept (make would otherwise delete them as intermediates and rebuild every user).
.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(BPF_SKELS)

all: $(OUTPUT)/drmtop

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests:
	@mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h include/*.h vmlinux/*.h) | $(OUTPUT)/bpf
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(BPFTOOL) gen object $@ $@.tmp
	@rm -f $@.tmp

$(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp
	@mv $@.tmp $@

# Header dependencies come from the compiler (-MMD); a file that includes a skeleton depends
# on that skeleton alone, found by name in its source (it must exist before the first compile).
DEPFLAGS = -MMD -MP -MF $(@:.o=.d)
skels_of = $(addprefix $(OUTPUT)/,$(sort $(shell grep -ho 'drmtop_[a-z_]*\.skel\.h' $(1))))
$(foreach src,$(LIB_SRCS) $(APP_SRCS),$(eval \
	$(patsubst src/%.c,$(OUTPUT)/src/%.o,$(src)): $(call skels_of,$(src))))

$(OUTPUT)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

-include $(patsubst %.o,%.d,$(LIB_OBJS) $(APP_OBJS))

$(LIBDRMTOP): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(OUTPUT)/drmtop: $(APP_OBJS) $(LIBDRMTOP)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBBPF_LIBS) $(NCURSES_LIBS) -lm -o $@

# A unit test depends on every header of tests/unit (the rule below), so on their skeletons too.
$(foreach t,$(UNIT_SRCS),$(eval \
	$(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(t)): \
		$(call skels_of,$(t) $(wildcard tests/unit/*.h))))

$(OUTPUT)/tests/%: tests/unit/%.c $(UNIT_HELPERS) $(LIBDRMTOP) $(wildcard tests/unit/*.h) | $(OUTPUT)/tests
	$(CC) $(ALL_CFLAGS) -Itests/unit -DFIXTURE_DIR='"$(abspath $(FIXTURE_DIR))"' \
		$< $(UNIT_HELPERS) $(LIBDRMTOP) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(LIBBPF_LIBS) $(NCURSES_LIBS) -lm -o $@

# The fdinfo samples live beside the repository (../shared), as on every machine of this project.
FIXTURE_DIR ?= ../shared/fdinfo_samples

RESULTS := $(OUTPUT)/test-results
export RESULTS

# Every stage's recipe runs under scripts/run-stage.py STAGE -- CMD...: a stage fails, in
# $(RESULTS)/STAGE, if anything it started outlives it, and that is killed.
STAGE_RUN := scripts/run-stage.py

unit-test: $(UNIT_BINS)
	@$(STAGE_RUN) unit -- scripts/run-unit-tests.sh $(UNIT_BINS)

# What the host stages run, built on every core before they run (fragments add theirs): built
# inside a stage, it would take one core of two.
TEST_BUILD += unit-build
.PHONY: unit-build
unit-build: $(OUTPUT)/drmtop $(UNIT_BINS)

# Kernel style, the parts a machine can check (scripts/check-style.sh says which).
TEST_TARGETS += style
.PHONY: style
style:
	@$(STAGE_RUN) style -- sh -c 'scripts/check-layers.sh && scripts/check-style.sh'

# The test machinery itself (scripts/harness-test.sh): the stage wrapper, vm-deps, sid-root.sh.
TEST_TARGETS += harness
.PHONY: harness
harness:
	@$(STAGE_RUN) harness -- scripts/harness-test.sh

-include $(wildcard tests/*/*.mk tests/kmod/*/*.mk)
-include $(wildcard bench/*.mk)

.PHONY: test-build
test-build: $(TEST_BUILD)

# The whole suite: what the host stages run built on TEST_JOBS cores, the host unit tests, then
# every stage the fragments add (the VM suites). Each stage writes "<passed> <failed>" to
# $(RESULTS)/<stage>; all stages run even if one fails, and a stage that wrote nothing counts
# as failed. The host stages run TEST_JOBS (2) at a time, TEST_HOST_FIRST's first (the longest),
# then the VM stages of TEST_PARALLEL the same way, longest first, each stage's output held back
# and printed whole when it ends (--output-sync), then TEST_TIMED's, beside each other only
# (tests/vm/vm.mk). Host stages ran one at a time until 2026-11-29: 468 s of a fresh clone's
# make test with a core idle through most of cli, serve and the unit tests; two at a time 340 s
# (a fresh clone of e6e00c3, with the fetches below beside them).
# What the VM stages fetch before their first boot (TEST_PREPARE: kernels, the arm64 root) is
# fetched beside the build and the host stages, in the background (mostly the network's time: it
# took 7-18 s an item at each stage's start, in the pools whose end is make test's; made a goal
# of the build phase, it ended that phase 138 s later); the VM stages wait for it. Its output is
# in $(RESULTS)/prepare.log; a stage fetches again what it could not.
TEST_JOBS ?= 2
TEST_HOST = $(filter-out $(TEST_PARALLEL) $(TEST_TIMED),$(TEST_TARGETS))
test: all
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS) && date +%s >$(RESULTS)/test.start
	@$(if $(TEST_PREPARE),$(MAKE) --no-print-directory -k $(TEST_PREPARE),true) \
		>$(RESULTS)/prepare.log 2>&1 & prep=$$!; \
	$(MAKE) --no-print-directory -k -j$(TEST_JOBS) test-build || true; \
	$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=recurse \
		$(filter $(TEST_HOST),$(TEST_HOST_FIRST)) unit-test \
		$(filter-out $(TEST_HOST_FIRST),$(TEST_HOST)) || true; \
	wait $$prep || { echo "make test: fetching for the VM stages failed:"; \
		tail -n 5 $(RESULTS)/prepare.log; }
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=recurse VM_SID_BUILT=1 \
		$(filter $(TEST_TARGETS),$(TEST_PARALLEL)) || true
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=recurse VM_SID_BUILT=1 \
		$(filter $(TEST_TARGETS),$(TEST_TIMED)) || true
	@scripts/summarise-tests.sh $(RESULTS) unit $(TEST_TARGETS)

install: $(OUTPUT)/drmtop
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(OUTPUT)/drmtop $(DESTDIR)$(BINDIR)/drmtop
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 docs/drmtop.8 $(DESTDIR)$(MANDIR)/man8/drmtop.8

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/drmtop $(DESTDIR)$(MANDIR)/man8/drmtop.8

# The exporter's systemd unit, with the installed binary's path (systemd also reads units from
# /usr/local/lib/systemd/system, so the default PREFIX works as it is).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
.PHONY: install-unit uninstall-unit
install: install-unit
uninstall: uninstall-unit
install-unit: dist/drmtop.service
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' $< > $(DESTDIR)$(SYSTEMDUNITDIR)/drmtop.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/drmtop.service
uninstall-unit:
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/drmtop.service

clean:
	rm -rf $(OUTPUT) $(CLEAN_PATHS)
