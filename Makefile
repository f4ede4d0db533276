# SPDX-License-Identifier: GPL-2.0-only
# katra-record build.  `make` builds every binary into build/; `make test` runs
# the whole suite; `make bench` the benchmarks; `make fuzz` the fuzzer.
# Sources are picked up by directory (user/record/ and its wings, the wings
# of user/replay/), so a new module needs no Makefile edit.

CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
CARGO    ?= cargo
B        := build
SHELL    := /bin/bash

CFLAGS_COMMON := -std=gnu11 -g -Wall -Wextra -Werror -Iinclude -Iuser -I$(B)/gen -MMD -MP
CFLAGS   ?= -O2
ALL_CFLAGS = $(CFLAGS_COMMON) $(CFLAGS)
SAN_FLAGS := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

# user/pe/: the PE file reader both the recorder and katra-replay use
FORMAT_SRCS := $(wildcard user/format/*.c user/pe/*.c)
REPLAY_SRCS := $(wildcard user/replay/*/*.c)
# frames named from ELF and PE files: linked by the recorder and the replay
SYMBOLS_SRCS := $(filter-out %/debuginfod_none.c,$(wildcard user/symbols/*.c))
# the recorder fetches nothing: its debuginfod.h is the stub (no libcurl in root)
RECORD_SYMBOLS_SRCS := $(filter-out %/debuginfod.c,$(SYMBOLS_SRCS)) user/symbols/debuginfod_none.c
RECORD_SRCS := $(wildcard user/record/*.c user/record/*/*.c) $(RECORD_SYMBOLS_SRCS)
# the recorder's core needs neither libbpf nor root: unit-tested directly
RECORD_CORE_SRCS := $(filter-out user/record/kernel/probes%.c $(filter-out %/recorder_epochs.c,$(wildcard user/record/recorder*.c)) user/record/uprobes/uprobes%.c,$(RECORD_SRCS))
SAMPLE_SRCS := tools/sample_records.c
UNIT_SRCS   := $(wildcard tests/unit/*.c)
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
BPF_SRCS    := $(wildcard bpf/*.bpf.c)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
sanobj = $(patsubst %.c,$(B)/asan/%.o,$(1))

FORMAT_OBJS := $(call obj,$(FORMAT_SRCS)) $(B)/obj/gen/schema_hash.o
REPLAY_OBJS := $(call obj,$(REPLAY_SRCS) $(SYMBOLS_SRCS))
RECORD_OBJS := $(call obj,$(RECORD_SRCS))

BINS := $(B)/katra-replay $(B)/katra-sample $(B)/pipeline-bench
ifneq ($(BPF_SRCS),)
BINS += $(B)/katra-record
endif
WORKLOADS := $(patsubst tests/workloads/%.c,$(B)/workloads/%,$(WORKLOAD_SRCS))
# the i386 (int $0x80) program: its own rule below
WORKLOADS += $(B)/workloads/i386prog

.DEFAULT_GOAL := all
demo: all
	tools/demo.sh

.PHONY: vmlinux-h all demo test unit-test asan-test rust-test fuzz-smoke fuzz integration-test test-vm bench bench-uprobes clean
.PHONY: install uninstall install-test
all: $(BINS) $(WORKLOADS)

# ---- generated schema hash (never drifts from format/schema.txt) ----
$(B)/tools/fnv1a: tools/fnv1a.c
	@mkdir -p $(@D)
	$(CC) -O2 -o $@ $<
$(B)/gen/schema_hash.c: format/schema.txt $(B)/tools/fnv1a
	@mkdir -p $(@D)
	$(B)/tools/fnv1a $< > $@.tmp && mv $@.tmp $@
$(B)/obj/gen/schema_hash.o: $(B)/gen/schema_hash.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(B)/asan/gen/schema_hash.o: $(B)/gen/schema_hash.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN_FLAGS) -c -o $@ $<
# the enums' variant names (user/format/names.c), from the same text
$(B)/tools/gen-names: tools/gen-names.c
	@mkdir -p $(@D)
	$(CC) -O2 -o $@ $<
$(B)/gen/format_names.h: format/schema.txt $(B)/tools/gen-names
	@mkdir -p $(@D)
	$(B)/tools/gen-names $< > $@.tmp && mv $@.tmp $@
$(call obj,user/format/names.c) $(call sanobj,user/format/names.c): $(B)/gen/format_names.h

# ---- user-space objects ----
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(B)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN_FLAGS) -c -o $@ $<

$(B)/libkatraformat.a: $(FORMAT_OBJS)
	@rm -f $@
	ar rcs $@ $^
$(B)/libkatrareplay.a: $(REPLAY_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/katra-replay: $(call obj,user/katra-replay.c) $(B)/libkatrareplay.a $(B)/libkatraformat.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -ldebuginfod -ldw -lelf -lm -lz -lzstd
$(B)/katra-sample: $(call obj,tools/katra-sample.c $(SAMPLE_SRCS)) $(B)/libkatraformat.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lz
$(B)/katra-roundtrip: $(call obj,tools/katra-roundtrip.c) $(B)/libkatraformat.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lz

RECORD_CORE_OBJS := $(call obj,$(RECORD_CORE_SRCS))
$(B)/pipeline-bench: $(call obj,tools/pipeline-bench.c) $(RECORD_CORE_OBJS) $(B)/libkatraformat.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -ldw -lelf -lm -lz

# ---- BPF: CO-RE objects linked into one skeleton ----
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(B)/bpf/%.bpf.o,$(BPF_SRCS))
# vmlinux.h is kept in the tree (per architecture, as libbpf-tools does), so a
# build machine needs no BTF of its own; CO-RE relocates to the running kernel.
# `make vmlinux-h` regenerates it from this machine's kernel.
VMLINUX_DIR := bpf/vmlinux/x86
vmlinux-h:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_DIR)/vmlinux.h.tmp
	mv $(VMLINUX_DIR)/vmlinux.h.tmp $(VMLINUX_DIR)/vmlinux.h
$(B)/bpf/%.bpf.o: bpf/%.bpf.c
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Iinclude -Ibpf -I$(VMLINUX_DIR) -MMD -MP -c -o $@ $<
$(B)/bpf/katra.linked.o: $(BPF_OBJS)
	$(BPFTOOL) gen object $@.tmp $^ && mv $@.tmp $@
$(B)/gen/katra.skel.h: $(B)/bpf/katra.linked.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name katra_bpf > $@.tmp && mv $@.tmp $@
$(RECORD_OBJS) $(call obj,user/katra-record.c): $(B)/gen/katra.skel.h
$(B)/katra-record: $(call obj,user/katra-record.c) $(RECORD_OBJS) $(B)/libkatraformat.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lbpf -ldw -lelf -lz -lm

# ---- test workloads (plain programs with known ground truth) ----
# no frame pointers, CFI only: what --stacks must unwind (t_stacks.sh)
$(B)/workloads/stackchains: tests/workloads/stackchains.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -g -O1 -fomit-frame-pointer -fasynchronous-unwind-tables -Wall -Wextra \
		-Werror -o $@ $<
$(B)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lpthread -luring

# An i386 static program: gcc only preprocesses and assembles (-m32 needs no
# 32-bit libc for that), ld links; a toolchain that cannot does without it
# (a warning, and t_i386 skips) rather than failing the whole build.
$(B)/workloads/i386prog: tests/workloads/i386/prog.S
	@mkdir -p $(@D) $(B)/obj/tests/workloads/i386
	@if $(CC) -m32 -c -o $(B)/obj/tests/workloads/i386/prog.o $< && \
	    ld -m elf_i386 -o $@ $(B)/obj/tests/workloads/i386/prog.o; then \
		echo "  built $@ (i386)"; \
	else \
		rm -f $@; echo "warning: cannot build the i386 test program ($(CC) -m32, ld -m elf_i386): t_i386 will skip" >&2; \
	fi

# ---- uprobe layers (Wine, Vulkan): the Vulkan resolver the recorder runs,
# a Windows test program (mingw) and a Vulkan one.  A missing toolchain or
# library leaves them out (a warning; their tests skip, and the recorder
# falls back to the Vulkan loader's exports) rather than failing the build.
MINGW_CC ?= x86_64-w64-mingw32-gcc
UPROBE_BINS := $(B)/uprobe/ntio.exe $(B)/uprobe/ntgen.exe $(B)/uprobe/ntasync.exe \
	$(B)/uprobe/ntwrite.exe $(B)/uprobe/ntwait.exe $(B)/uprobe/ntwin32u.exe $(B)/uprobe/ntdepth.exe \
	$(B)/uprobe/ntgetmsg.exe \
	$(B)/katra-vkresolve $(B)/uprobe/vksubmit $(B)/uprobe/vkpresent
all: $(UPROBE_BINS)
$(B)/uprobe/%.exe: tests/uprobe/%.c tests/uprobe/wingate.h
	@mkdir -p $(@D)
	@if command -v $(MINGW_CC) >/dev/null 2>&1; then \
		$(MINGW_CC) -O2 -Wall -Wextra -Werror -D__USE_MINGW_ANSI_STDIO=1 -o $@ $< -lws2_32 && echo "  built $@"; \
	else \
		rm -f $@; echo "warning: no $(MINGW_CC): the Wine uprobe tests will skip" >&2; \
	fi
HAVE_VULKAN := $(shell pkg-config --exists vulkan 2>/dev/null && echo 1)
ifeq ($(HAVE_VULKAN),1)
$(B)/katra-vkresolve: tools/katra-vkresolve.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $$(pkg-config --libs vulkan) -ldl
$(B)/uprobe/vksubmit: tests/uprobe/vksubmit.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $$(pkg-config --libs vulkan)
else
$(B)/katra-vkresolve $(B)/uprobe/vksubmit:
	@echo "warning: no Vulkan development files (libvulkan-dev): $@ not built" >&2
endif
# the present test's program also needs xcb (a window on Xvfb); no frame
# pointers, CFI only: its slow frames' chains are what --stacks must unwind
# (t_frame_stacks.sh)
HAVE_VULKAN_XCB := $(shell pkg-config --exists vulkan xcb 2>/dev/null && echo 1)
ifeq ($(HAVE_VULKAN_XCB),1)
$(B)/uprobe/vkpresent: tests/uprobe/vkpresent.c tests/uprobe/vkprog.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fomit-frame-pointer -fasynchronous-unwind-tables -o $@ $< \
		$$(pkg-config --libs vulkan xcb)
else
$(B)/uprobe/vkpresent:
	@echo "warning: no Vulkan or xcb development files (libvulkan-dev, libxcb1-dev): $@ not built" >&2
endif

# ---- tests ----
UNIT_LIBS := $(B)/libkatrareplay.a $(B)/libkatraformat.a
UNIT_RECORD_SRCS := $(filter-out %/debuginfod_none.c,$(RECORD_CORE_SRCS))
$(B)/tests/unit-tests: $(call obj,$(UNIT_SRCS) $(SAMPLE_SRCS) $(UNIT_RECORD_SRCS)) $(UNIT_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcriterion -ldebuginfod -ldw -lelf -lm -lz -lzstd
$(B)/asan/unit-tests: $(call sanobj,$(UNIT_SRCS) $(SAMPLE_SRCS) $(FORMAT_SRCS) $(REPLAY_SRCS) \
		      $(UNIT_RECORD_SRCS) user/symbols/debuginfod.c) $(B)/asan/gen/schema_hash.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN_FLAGS) -o $@ $^ -lcriterion -ldebuginfod -ldw -lelf -lm -lz -lzstd

unit-test: $(B)/tests/unit-tests
	$(B)/tests/unit-tests --jobs 2
# Criterion ignores LeakSanitizer's exit status: a sanitizer report in the
# log fails the run.
asan-test: $(B)/asan/unit-tests
	set -o pipefail; ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(B)/asan/unit-tests --jobs 2 2>&1 | tee $(B)/asan/log; \
		! grep -qE 'ERROR: (Leak|Address)Sanitizer|runtime error' $(B)/asan/log
rust-test: $(B)/katra-sample $(B)/katra-replay
	tests/rust-compat.sh
FUZZ_SECONDS ?= 600
$(B)/fuzz/fuzz-reader: tests/fuzz/fuzz_reader.c $(FORMAT_SRCS) $(B)/gen/schema_hash.c \
		$(B)/gen/format_names.h
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_COMMON) -O1 -fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^) -lz
# the parsers of the files root reads for the Wine layer (winenames.c,
# wineframe.c, unixnames.c, pesyms.c, pexits.c) and the PE unwinder (peunwind/)
FUZZ_PARSERS := $(B)/fuzz/fuzz-elf $(B)/fuzz/fuzz-pe $(B)/fuzz/fuzz-wineserver \
	$(B)/fuzz/fuzz-unixcalls $(B)/fuzz/fuzz-pesyms $(B)/fuzz/fuzz-peunwind
$(FUZZ_PARSERS): $(B)/fuzz/fuzz-%: tests/fuzz/fuzz_%.c user/record/uprobes/winenames.c \
		user/record/uprobes/winenames_blob.c user/record/uprobes/wineframe.c \
		user/record/uprobes/unixnames.c $(wildcard user/pe/*.c) \
		user/record/uprobes/pexits.c $(wildcard user/record/peunwind/*.c)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_COMMON) -O1 -fsanitize=fuzzer,address,undefined -o $@ $(filter %.c,$^)
fuzz: $(B)/fuzz/fuzz-reader $(FUZZ_PARSERS) $(B)/katra-sample
	tests/fuzz/run.sh $(FUZZ_SECONDS)
fuzz-smoke: $(B)/fuzz/fuzz-reader $(FUZZ_PARSERS) $(B)/katra-sample
	tests/fuzz/run.sh 20
integration-test: all $(B)/bench/gameloop duckdb $(B)/tests/unit-tests
	tests/integration/run.sh

test: all $(B)/bench/gameloop proton-root-try duckdb
	tests/run-all.sh

# The recorder under Debian's own 5.10 and 6.1 kernels, booted in QEMU (TCG)
# from a busybox initramfs, 2 and 16 vCPUs (tests/vm/README.md).  Needs root
# the first time (it caches the kernels under /var/cache/katra-vm).
$(B)/vm/katra-vmcheck: $(call obj,tests/vm/vmcheck.c user/record/kernel/select.c) $(B)/libkatraformat.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lz
test-vm: all $(B)/vm/katra-vmcheck
	tests/vm/run.sh $(VM_ARGS)

# ---- Windows console programs for the Wine tests (tests/wine/*.c): not part
# of `all` (a machine without mingw still builds); the t_wine_* tests make
# them.  ticker.exe is also built under the names the tests give it. ----
MINGW_CC ?= x86_64-w64-mingw32-gcc
WINE_SRCS := $(wildcard tests/wine/*.c)
WINE_NAMED := $(B)/wine/first.exe $(B)/wine/second.exe $(B)/wine/third.exe
WINE_PROGS := $(patsubst tests/wine/%.c,$(B)/wine/%.exe,$(WINE_SRCS)) $(WINE_NAMED)
.PHONY: wine-progs
wine-progs: $(WINE_PROGS)
$(B)/wine/%.exe: tests/wine/%.c
	@mkdir -p $(@D)
	$(MINGW_CC) -O2 -Wall -Wextra -Werror -o $@ $<
$(WINE_NAMED): $(B)/wine/ticker.exe
	cp $< $@

# ---- the Windows x64 unwinder (user/record/peunwind/) under Wine: a mingw
# program without frame pointers dumps its registers and stack at a known
# chain's leaf, and peustack must name the chain from the .exe file
# (tests/unwind/run.sh).  Not part of `all`. ----
PEUNWIND_SRCS := $(wildcard user/record/peunwind/*.c) user/record/uprobes/winenames.c \
	$(wildcard user/pe/*.c) \
	user/record/uprobes/winenames_blob.c
.PHONY: unwind-test
$(B)/unwind/chains.exe: tests/unwind/chains.c
	@mkdir -p $(@D)
	$(MINGW_CC) -O2 -fomit-frame-pointer -Wall -Wextra -Werror -Wl,--build-id -o $@ $<
$(B)/unwind/peustack: $(call obj,tests/unwind/peustack.c $(PEUNWIND_SRCS))
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^
unwind-test: $(B)/unwind/chains.exe $(B)/unwind/peustack
	tests/unwind/run.sh

# ---- the Proton-class stack (tests/proton/README.md): a Debian 13 root with
# Wine 10, DXVK, lavapipe and Xvfb, built once and cached under
# /var/cache/katra-proton (mkroot.sh), and the D3D11 program run inside it.
# make test builds the root first when it can (no network: the test that
# needs it skips, saying why). ----
PROTON_PROGS := $(B)/proton/d3d11frames.exe $(B)/proton/d3d12frames.exe
.PHONY: proton-root proton-progs proton-root-try
proton-progs: $(PROTON_PROGS)
$(B)/proton/d3d11frames.exe: tests/proton/d3d11frames.c tests/proton/frames.h
	@mkdir -p $(@D)
	$(MINGW_CC) -O2 -Wall -Wextra -Werror -o $@ $< -ld3d11 -ldxgi -ld3dcompiler_47 -luuid
$(B)/proton/d3d12frames.exe: tests/proton/d3d12frames.c tests/proton/frames.h
	@mkdir -p $(@D)
	$(MINGW_CC) -O2 -Wall -Wextra -Werror -o $@ $< -ld3d12 -ldxgi -ld3dcompiler_47
proton-root:
	tests/proton/mkroot.sh >/dev/null
proton-root-try:
	@tests/proton/mkroot.sh >/dev/null || echo "make: the Proton-class root was not built (t_proton_* will skip, saying why)"

# make bench's game workload (bench/Makefile builds it; make test gives it a
# quick unit run: tests/integration/t_gameloop.sh)
$(B)/bench/gameloop: bench/workloads/gameloop.c bench/Makefile
	$(MAKE) -s -C bench ../$(B)/bench/gameloop

bench: all
	bench/run.sh $(BENCH_ARGS)
	python3 bench/idle.py
	bench/gzip-bytes.sh $(filter --quick,$(BENCH_ARGS))
	bench/parquet.sh $(filter --quick,$(BENCH_ARGS))
	python3 bench/stacks.py $(filter --quick,$(BENCH_ARGS))
	bench/uprobes.sh
# the cost per NT call and per Vulkan submit alone (bench/uprobes.sh)
bench-uprobes: all
	bench/uprobes.sh $(UPROBE_BENCH_RUNS)


# speedscope, the viewer the export test opens in headless Chromium
# (tests/integration/t_export_viewer.sh): its npm package, pinned, served
# from its own files under build/speedscope.
SPEEDSCOPE_VERSION ?= 1.25.0
SPEEDSCOPE_INDEX := $(B)/speedscope/node_modules/speedscope/dist/release/index.html
.PHONY: speedscope
speedscope: $(SPEEDSCOPE_INDEX)
$(SPEEDSCOPE_INDEX):
	@mkdir -p $(B)/speedscope
	npm install --no-audit --no-fund --no-save --prefix $(B)/speedscope speedscope@$(SPEEDSCOPE_VERSION)

# DuckDB, the engine the Parquet export is checked with
# (tests/integration/t_parquet*.sh): its Node.js API from npm, pinned (the
# engine for Linux x86-64 comes as @duckdb/node-bindings-linux-x64).
DUCKDB_VERSION ?= 1.4.4-r.1
DUCKDB_PKG := $(B)/duckdb/node_modules/@duckdb/node-api/package.json
.PHONY: duckdb
duckdb: $(DUCKDB_PKG)
$(DUCKDB_PKG):
	@mkdir -p $(B)/duckdb
	npm install --no-audit --no-fund --no-save --prefix $(B)/duckdb @duckdb/node-api@$(DUCKDB_VERSION)

clean:
	rm -rf $(B) format/rust/target

# ---- install (GNU layout; DESTDIR for staging, e.g. a package build) ----
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install
INSTALLED := $(BINDIR)/katra-record $(BINDIR)/katra-replay $(BINDIR)/katra-vkresolve $(MANDIR)/man8/katra-record.8 \
	     $(MANDIR)/man1/katra-replay.1 $(BASHCOMPDIR)/katra-record $(BASHCOMPDIR)/katra-replay
# katra-vkresolve beside katra-record, where it looks for it (the Vulkan
# layer's driver entry points)
install: $(B)/katra-record $(B)/katra-replay $(B)/katra-vkresolve
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 0755 $(B)/katra-record $(B)/katra-replay $(B)/katra-vkresolve \
		$(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 0644 man/katra-record.8 $(DESTDIR)$(MANDIR)/man8/katra-record.8
	$(INSTALL) -m 0644 man/katra-replay.1 $(DESTDIR)$(MANDIR)/man1/katra-replay.1
	$(INSTALL) -m 0644 completion/katra-record.bash $(DESTDIR)$(BASHCOMPDIR)/katra-record
	$(INSTALL) -m 0644 completion/katra-replay.bash $(DESTDIR)$(BASHCOMPDIR)/katra-replay
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
# installs into a temporary DESTDIR, checks the files, man pages and
# completions, uninstalls (no root needed)
install-test: $(B)/katra-record $(B)/katra-replay $(B)/katra-vkresolve
	tests/install.sh

-include $(shell find $(B) -name '*.d' 2>/dev/null)
