# npuprof: one entry point for building, testing and running the demo.
#
#   make            user code into build/, kernel modules into kmod/*/*.ko
#   make check      host unit tests (Check), then the in-VM kernel tests
#   make demo       a sample workload on the simulated NPU, inside the test VM
#   make bench      benchmarks (ratios against references measured in the same run)
#
# Kernel modules are built against Debian's headers for the VM kernel that
# scripts/deps.sh unpacked (build/kernel/version); override with KVER=...

BUILD    := build
CC       ?= gcc
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -fPIC -D_GNU_SOURCE \
            -Iinclude -Iuser/lib -MMD -MP
LDLIBS   := -lsqlite3 -lpthread -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -lpthread)

KVER     ?= $(shell cat $(BUILD)/kernel/version 2>/dev/null || uname -r)
KDIR     ?= $(firstword $(wildcard /lib/modules/$(KVER)/build /usr/src/linux-headers-$(KVER)))

# libnpuprof: every .c in user/lib
LIB_SRCS := $(wildcard user/lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_SO   := $(BUILD)/lib/libnpuprof.so
LIB_A    := $(BUILD)/lib/libnpuprof.a

# tools: user/tools/<name>/*.c -> build/bin/<name>
TOOL_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard user/tools/*/*.c))))
TOOLS     := $(patsubst user/tools/%,$(BUILD)/bin/%,$(TOOL_DIRS))

# unit tests: tests/unit/test_*.c -> build/tests/unit/test_* (one Check binary each)
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)

# in-VM test programs: tests/vm/*.c -> build/tests/vm/*
VM_SRCS    := $(wildcard tests/vm/*.c)
VM_BINS    := $(VM_SRCS:tests/vm/%.c=$(BUILD)/tests/vm/%)

# benchmarks: tests/bench/*.c -> build/tests/bench/*
BENCH_SRCS := $(wildcard tests/bench/*.c)
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.c=$(BUILD)/tests/bench/%)

.PHONY: all user kmod check check-debug unit vmtest demo bench clean deps install
all: user kmod

deps:
	./scripts/deps.sh

user: $(LIB_SO) $(LIB_A) $(TOOLS) $(UNIT_BINS) $(VM_BINS) $(BENCH_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(if $(LIB_OBJS),ar rcs $@ $^,ar rcs $@)

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDLIBS)

.SECONDEXPANSION:
$(BUILD)/bin/%: $$(addprefix $(BUILD)/obj/,$$(subst .c,.o,$$(wildcard user/tools/$$*/*.c))) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LIB_A) $(LDLIBS)

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/vm/%: $(BUILD)/obj/tests/vm/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(LDLIBS)

$(BUILD)/tests/bench/%: $(BUILD)/obj/tests/bench/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(LDLIBS)

kmod:
	@test -n "$(KDIR)" || { echo "no kernel headers for $(KVER): run scripts/deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

check: deps all
	./scripts/run-unit.sh
	./tests/vm_accel_test.sh
	./scripts/vm.sh tests/vm/run.sh

unit: user
	./scripts/run-unit.sh

vmtest: all
	./scripts/vm.sh tests/vm/run.sh

# every VM suite on the debug kernel (KASAN, lockdep, PROVE_RCU, atomic-sleep
# checks, kmemleak) that scripts/debug-kernel.sh builds once; the modules are
# built for it, then rebuilt for the stock kernel whatever the outcome
DEBUG_KDIR := $(CURDIR)/$(BUILD)/debug-kernel/obj
check-debug: deps all
	./scripts/debug-kernel.sh
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) clean >/dev/null
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) modules
	VM_KERNEL=$(BUILD)/debug-kernel VM_TIMEOUT=5400 ./scripts/vm.sh tests/vm/run.sh; st=$$?; \
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) clean >/dev/null; $(MAKE) kmod >/dev/null; exit $$st

demo: deps all
	./scripts/demo.sh

bench: deps all
	./scripts/run-bench.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/lib $(BUILD)/bin $(BUILD)/tests $(BUILD)/vm
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

# ---- packaging (owner: packaging): make install, make install-dkms ----------
#   make install [PREFIX=/usr/local] [DESTDIR=]  tools (build/bin), libraries
#       (build/lib/*.so, *.a), public headers (include/{acl,npuprof,uapi}) and
#       $(LIBDIR)/pkgconfig/npuprof.pc made from npuprof.pc.in
#   make install-dkms [DESTDIR=]  the module sources and dkms.conf in
#       /usr/src/npuprof-$(VERSION)/; then `dkms install npuprof/$(VERSION)`
# The version lives in one place: the VERSION file.
VERSION      := $(shell cat VERSION 2>/dev/null)
# PREFIX itself stays unset unless given (install-sdk requires it explicitly).
INST_PREFIX   = $(or $(PREFIX),/usr/local)
BINDIR       ?= $(INST_PREFIX)/bin
LIBDIR       ?= $(INST_PREFIX)/lib
INCLUDEDIR   ?= $(INST_PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DKMSDIR      := /usr/src/npuprof-$(VERSION)
INSTALL_HDRS  = $(shell find include/acl include/npuprof include/uapi -name '*.h')
DKMS_SRCS     = Kbuild VERSION $(wildcard include/uapi/*.h kmod/*/Kbuild) \
                $(filter-out %.mod.c,$(wildcard kmod/*/*.c kmod/*/*.h))

.PHONY: install-dkms
install: user
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BUILD)/bin/* $(DESTDIR)$(BINDIR)/
	install -m 755 $(BUILD)/lib/*.so $(DESTDIR)$(LIBDIR)/
	install -m 644 $(BUILD)/lib/*.a $(DESTDIR)$(LIBDIR)/
	for h in $(INSTALL_HDRS); do \
		install -D -m 644 $$h $(DESTDIR)$(INCLUDEDIR)/$${h#include/} || exit 1; done
	sed -e 's|@PREFIX@|$(INST_PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(strip $(LDLIBS))|' \
	    npuprof.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/npuprof.pc

install-dkms:
	@test -n "$(VERSION)" || { echo "no VERSION file" >&2; exit 1; }
	for f in $(DKMS_SRCS); do install -D -m 644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; done
	sed 's|@VERSION@|$(VERSION)|' dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf

# make install-systemd [PREFIX=] [DESTDIR=] [SYSTEMDUNITDIR=]  the flight
#   recorder's unit (dist/npuprof-flight.service, ExecStart in $(BINDIR));
#   then `systemctl enable --now npuprof-flight`
SYSTEMDUNITDIR ?= /lib/systemd/system
.PHONY: install-systemd
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|' dist/npuprof-flight.service > $(DESTDIR)$(SYSTEMDUNITDIR)/npuprof-flight.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/npuprof-flight.service

# BPF capture engine: its rules are one block, kept in bpf/bpf.mk
include bpf/bpf.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- ACL runtime and the CANN-style SDK (owner: runtime; user/runtime) -----
# libmsprofiler.so  the profiling library (libnpuprof's objects, aclprof*)
# libascendcl.so    the runtime (user/runtime/*.c), linked to libmsprofiler.so
# libprofapi.so     a thin name: an empty library that needs libmsprofiler.so
# Programs that use the runtime (npuwork, tests/vm/rt_*, tests/unit/
# test_runtime*) link these shared libraries, never libnpuprof.a, so that the
# process has one recorder. `make install-sdk PREFIX=DIR` lays them out as
# CANN does: DIR/include/{acl,hccl}, DIR/lib64, DIR/bin/setenv.bash.
RT_SRCS    := $(wildcard user/runtime/*.c)
RT_OBJS    := $(RT_SRCS:%.c=$(BUILD)/obj/%.o)
RT_MSPROF  := $(BUILD)/lib/libmsprofiler.so
RT_ACL     := $(BUILD)/lib/libascendcl.so
RT_PROFAPI := $(BUILD)/lib/libprofapi.so
RT_LIBS    := $(RT_MSPROF) $(RT_ACL) $(RT_PROFAPI)
RT_LINK     = -L$(BUILD)/lib -lascendcl -lmsprofiler -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../../lib'
NPUWORK_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard user/tools/npuwork/*.c))

user: $(RT_LIBS)

$(RT_MSPROF): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libmsprofiler.so -o $@ $^ $(LDLIBS)

$(RT_ACL): $(RT_OBJS) $(RT_MSPROF)
	$(CC) -shared -Wl,-soname,libascendcl.so -o $@ $(RT_OBJS) -L$(BUILD)/lib -lmsprofiler \
		-Wl,-rpath,'$$ORIGIN' -lpthread

$(RT_PROFAPI): $(RT_MSPROF)
	printf '/* libprofapi: a name only */\n' | $(CC) -shared -Wl,-soname,libprofapi.so -x c -o $@ - \
		-Wl,--no-as-needed -L$(BUILD)/lib -lmsprofiler -Wl,-rpath,'$$ORIGIN'

$(BUILD)/bin/npuwork: $(NPUWORK_OBJS) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(NPUWORK_OBJS) $(RT_LINK) -lsqlite3 -lpthread -lm

$(BUILD)/tests/vm/rt_%: $(BUILD)/obj/tests/vm/rt_%.o $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(RT_LINK) -lpthread

$(BUILD)/tests/unit/test_runtime%: $(BUILD)/obj/tests/unit/test_runtime%.o $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(RT_LINK) $(CHECK_LIBS) -lpthread

.PHONY: install-sdk
install-sdk: $(RT_LIBS)
	@test -n "$(PREFIX)" || { echo "usage: make install-sdk PREFIX=DIR" >&2; exit 2; }
	install -d $(PREFIX)/include/acl/error_codes $(PREFIX)/include/hccl $(PREFIX)/lib64 $(PREFIX)/bin
	install -m 644 include/acl/*.h $(PREFIX)/include/acl/
	install -m 644 include/acl/error_codes/*.h $(PREFIX)/include/acl/error_codes/
	install -m 644 include/hccl/*.h $(PREFIX)/include/hccl/
	install -m 755 $(RT_LIBS) $(PREFIX)/lib64/
	printf 'export ASCEND_HOME_PATH=%s\nexport LD_LIBRARY_PATH=%s/lib64$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}\n' \
		"$(abspath $(PREFIX))" "$(abspath $(PREFIX))" > $(PREFIX)/bin/setenv.bash
	@echo "SDK installed in $(PREFIX)"

# install-sdk, then a CANN-style CMake sample built against it (tests/sdk)
.PHONY: sdk-check
sdk-check: $(RT_LIBS)
	./tests/sdk/run.sh
check: sdk-check
# ---- end of the runtime block -----------------------------------------------
