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
            -Iinclude -MMD -MP
LDLIBS   := -lsqlite3 -lpthread -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -lpthread)

KVER     ?= $(shell cat $(BUILD)/kernel/version 2>/dev/null || uname -r)
KDIR     ?= $(firstword $(wildcard /lib/modules/$(KVER)/build /usr/src/linux-headers-$(KVER)))

# Components: user/<name>/ is one component (its README says what it holds).
# Each compiles with the include paths of itself and of the components it may
# use, so a private header is reachable only from where it belongs; the
# public API is include/ (installed). Dependencies run one way:
#   common <- recorder, profapi              (libprofapi.so, in the app)
#   common <- capture, device, db, report <- export   (libnpuprof)
#   recorder, device <- runtime              (libascendcl.so)
#   everything <- tools, tests
INC_common   := -Iuser/common
INC_recorder := -Iuser/recorder -Iuser/profapi $(INC_common)
INC_capture  := -Iuser/capture $(INC_common)
INC_device   := -Iuser/device $(INC_common)
INC_db       := -Iuser/db $(INC_common)
INC_report   := -Iuser/report $(INC_common)
INC_export   := -Iuser/export -Iuser/device $(INC_common)
INC_runtime  := -Iuser/runtime -Iuser/recorder -Iuser/device $(INC_common)
INC_npuprof  := -Iuser/tools/npuprof -Iuser/export -Iuser/device $(INC_common)
INC_npuwork  := -Iuser/tools/npuwork -Iuser/device $(INC_common)
INC_tests    := -Itests/gen $(foreach c,recorder profapi capture device db report export runtime aclnn,-Iuser/$(c)) $(INC_common)
$(BUILD)/obj/user/common/%.o:      INC = $(INC_common)
$(BUILD)/obj/user/capture/%.o:     INC = $(INC_capture) $(BPF_INC)
$(BUILD)/obj/user/device/%.o:      INC = $(INC_device)
$(BUILD)/obj/user/db/%.o:          INC = $(INC_db)
$(BUILD)/obj/user/report/%.o:      INC = $(INC_report)
$(BUILD)/obj/user/export/%.o:      INC = $(INC_export)
$(BUILD)/obj/user/runtime/%.o:     INC = $(INC_runtime)
$(BUILD)/obj/user/tools/npuprof/%.o: INC = $(INC_npuprof)
$(BUILD)/obj/user/tools/npuwork/%.o: INC = $(INC_npuwork)
$(BUILD)/obj/tests/%.o:            INC = $(INC_tests) $(BPF_INC)

# libnpuprof, the tool library: common, capture, device, db, report, export.
# No recorder in it: a tool linking it never starts recording itself.
LIB_COMPONENTS := common capture device db report export
LIB_SRCS := $(foreach c,$(LIB_COMPONENTS),$(wildcard user/$(c)/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_SO   := $(BUILD)/lib/libnpuprof.so
LIB_A    := $(BUILD)/lib/libnpuprof.a

# The recorder (user/recorder plus the two common files it needs): built a
# second time, with hidden visibility, into libprofapi.so (exports: its
# version script) and into an internal archive that white-box tests link.
# An aclprofStart session is a complete session directory with the
# capture of the process's own tasks: the session format (user/export/
# session.c with the device backends it asks), the raw kernel stream and the
# kmod engine with the trace switches (user/capture) are compiled in too,
# one definition each, all libc only.
REC_SRCS := $(wildcard user/recorder/*.c) $(wildcard user/profapi/*.c) user/common/hostcrc.c user/common/fsutil.c \
            user/common/errmsg.c user/export/session.c $(wildcard user/device/*.c) \
            user/capture/rawkern.c user/capture/engine_kmod.c user/capture/trace_switch.c
REC_OBJS := $(REC_SRCS:%.c=$(BUILD)/obj-rec/%.o)
REC_A    := $(BUILD)/obj-rec/librecorder.a
REC_MAP  := user/recorder/libmsprofiler.map
PROFAPI_MAP := user/profapi/libprofapi.map

# test-only generators (synthetic msprof rows): tests/gen, never in a library
GEN_OBJS := $(BUILD)/obj/tests/gen/dbgen.o

# tools: user/tools/<name>/*.c -> build/bin/<name>
TOOL_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard user/tools/*/*.c))))
TOOLS     := $(patsubst user/tools/%,$(BUILD)/bin/%,$(TOOL_DIRS))

# unit tests: tests/unit/test_*.c -> build/tests/unit/test_* (one Check binary
# each; tests/unit/check_main.c is their one main())
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
UNIT_MAIN  := $(BUILD)/obj/tests/unit/check_main.o
# test tools: build/tests/bin/dbgen (synthetic databases)
TEST_TOOLS := $(BUILD)/tests/bin/dbgen

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

user: $(LIB_SO) $(LIB_A) $(TOOLS) $(UNIT_BINS) $(TEST_TOOLS) $(VM_BINS) $(BENCH_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC) -c -o $@ $<

$(BUILD)/obj-rec/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_recorder) $(REC_INC) -fvisibility=hidden -c -o $@ $<
$(BUILD)/obj-rec/user/recorder/apisession.o: REC_INC = -Iuser/capture -Iuser/device
$(BUILD)/obj-rec/user/capture/%.o: REC_INC = -Iuser/capture
$(BUILD)/obj-rec/user/export/%.o:  REC_INC = -Iuser/device
$(BUILD)/obj-rec/user/device/%.o:  REC_INC = -Iuser/device

$(REC_A): $(REC_OBJS)
	rm -f $@
	ar rcs $@ $^

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(if $(LIB_OBJS),ar rcs $@ $^,ar rcs $@)

LIB_MAP  := user/libnpuprof.map
$(LIB_SO): $(LIB_OBJS) $(LIB_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=$(LIB_MAP) -o $@ $(LIB_OBJS) $(LDLIBS)

.SECONDEXPANSION:
$(BUILD)/bin/%: $$(addprefix $(BUILD)/obj/,$$(subst .c,.o,$$(wildcard user/tools/$$*/*.c))) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LIB_A) $(LDLIBS)

# White-box tests link the recorder archive, the generators and libnpuprof.a.
TEST_LINK = $(REC_A) $(GEN_OBJS) $(LIB_A)

$(BUILD)/tests/unit/test_%: $(BUILD)/obj/tests/unit/test_%.o $(UNIT_MAIN) $(REC_A) $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) $(TEST_LINK) $(CHECK_LIBS) $(LDLIBS)

# test_jobsplit drives the npuprof tool's job split (user/tools/npuprof/jobsplit.c)
JOBSPLIT_O := $(BUILD)/obj/user/tools/npuprof/jobsplit.o
$(BUILD)/obj/tests/unit/test_jobsplit.o: INC = $(INC_tests) -Iuser/tools/npuprof $(BPF_INC)
$(BUILD)/tests/unit/test_jobsplit: $(BUILD)/obj/tests/unit/test_jobsplit.o $(JOBSPLIT_O) $(UNIT_MAIN) $(REC_A) $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(JOBSPLIT_O) $(UNIT_MAIN) $(TEST_LINK) $(CHECK_LIBS) $(LDLIBS)

# test_tracker drives the tool's stream tracker (user/tools/npuprof/tracker.c)
TRACKER_O := $(BUILD)/obj/user/tools/npuprof/tracker.o
$(BUILD)/obj/tests/unit/test_tracker.o: INC = $(INC_tests) -Iuser/tools/npuprof
$(BUILD)/tests/unit/test_tracker: $(BUILD)/obj/tests/unit/test_tracker.o $(TRACKER_O) $(UNIT_MAIN) $(REC_A) $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACKER_O) $(UNIT_MAIN) $(TEST_LINK) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/bin/dbgen: $(BUILD)/obj/tests/gen/dbgen_main.o $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/vm/%: $(BUILD)/obj/tests/vm/%.o $(REC_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TEST_LINK) $(LDLIBS)

$(BUILD)/tests/bench/%: $(BUILD)/obj/tests/bench/%.o $(REC_A) $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TEST_LINK) $(LDLIBS)

kmod:
	@test -n "$(KDIR)" || { echo "no kernel headers for $(KVER): run scripts/deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

check: deps all
	./scripts/run-unit.sh
	./tests/vm_accel_test.sh
	./scripts/vm.sh tests/vm/run.sh

unit: user
	./scripts/run-unit.sh

# ---- sanitizers: the unit tests and the host tools' shell tests again, built
# with ASan+UBSan in $(BUILD)/asan. A sanitizer report (leaks included) or a
# compiler warning fails the run; UBSan does not recover.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ENV   := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
.PHONY: asan-check asan-build
asan-build:
	CFLAGS="-O2 -g -Werror" $(MAKE) BUILD=$(BUILD)/asan CC="$(CC) $(SAN_FLAGS)" \
		$(patsubst $(BUILD)/%,$(BUILD)/asan/%,$(UNIT_BINS) $(TOOLS) $(TEST_TOOLS))
asan-check: asan-build
	$(SAN_ENV) BUILD=$(BUILD)/asan ./scripts/run-unit.sh
check: asan-check

vmtest: all sdk-check
	./scripts/vm.sh tests/vm/run.sh

# every VM suite on the debug kernel (KASAN, lockdep, PROVE_RCU, atomic-sleep
# checks, kmemleak) that scripts/debug-kernel.sh builds once; the modules are
# built for it, then rebuilt for the stock kernel whatever the outcome
DEBUG_KDIR := $(CURDIR)/$(BUILD)/debug-kernel/obj
check-debug: deps all sdk-check
	./scripts/debug-kernel.sh
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) clean >/dev/null
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) modules
	VM_KERNEL=$(BUILD)/debug-kernel VM_TIMEOUT=$${VM_TIMEOUT:-9000} ./scripts/vm.sh tests/vm/run.sh; st=$$?; \
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) clean >/dev/null; $(MAKE) kmod >/dev/null; exit $$st

demo: deps all
	./scripts/demo.sh

bench: deps all
	./scripts/run-bench.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/obj-rec $(BUILD)/lib $(BUILD)/bin $(BUILD)/tests $(BUILD)/vm
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

# ---- packaging (owner: packaging): make install, make install-dkms ----------
#   make install [PREFIX=/usr/local] [DESTDIR=]  tools (build/bin), the tool
#       library (libnpuprof.so, .a) and the in-app recorder (libmsprofiler.so),
#       public headers (include/{acl,npuprof,uapi}) and
#       $(LIBDIR)/pkgconfig/npuprof.pc made from npuprof.pc.in. Never the
#       simulated runtime (libascendcl.so, libprofapi.so): on an Ascend host
#       it would shadow CANN's; only `make install-sdk` lays that out.
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
INSTALL_HDRS  = $(shell find include/acl include/mstx include/npuprof include/uapi -name '*.h')
DKMS_SRCS     = Kbuild VERSION $(wildcard include/uapi/*.h kmod/*/Kbuild) \
                $(filter-out %.mod.c,$(wildcard kmod/*/*.c kmod/*/*.h))

.PHONY: install-dkms
install: user
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BUILD)/bin/* $(DESTDIR)$(BINDIR)/
	install -m 755 $(LIB_SO) $(RT_PROFAPI) $(RT_MSPROF) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
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

# ---- fuzzing (tests/fuzz, README there): libFuzzer harnesses, the library
# built again with clang, ASan and UBSan in $(BUILD)/fuzz.
#   make fuzz [FUZZ_SECONDS=N]   every harness for N seconds (default 60)
#   make fuzz-check              every harness for FUZZ_CHECK_SECONDS (4) on
#                                the committed corpus, part of make check
FUZZ_CC       ?= clang
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRCS     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS     := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%)
FUZZ_SECONDS  ?= 60
FUZZ_CHECK_SECONDS ?= 4
$(BUILD)/obj/tests/fuzz/%.o: INC = $(INC_tests) -Iuser/tools/npuprof $(BPF_INC)
# the option harness links the capture options of the npuprof tool
FUZZ_TOOL_OBJS := $(BUILD)/obj/user/tools/npuprof/capture.o $(BUILD)/obj/user/tools/npuprof/throttle.o
$(BUILD)/tests/fuzz/fuzz_options: $(FUZZ_TOOL_OBJS)
$(BUILD)/tests/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(REC_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(REC_A) $(LIB_A) $(LDLIBS)
.PHONY: fuzz fuzz-check fuzz-build fuzz-bins
fuzz-bins: $(FUZZ_BINS)
fuzz-build:
	CFLAGS="-O1 -g" $(MAKE) BUILD=$(BUILD)/fuzz CC="$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		fuzz-bins
fuzz: fuzz-build
	./scripts/run-fuzz.sh $(BUILD)/fuzz $(FUZZ_SECONDS)
fuzz-check: fuzz-build
	./scripts/run-fuzz.sh $(BUILD)/fuzz $(FUZZ_CHECK_SECONDS)
check: fuzz-check

# BPF capture engine: its rules are one block, kept in bpf/bpf.mk
include bpf/bpf.mk

-include $(shell find $(BUILD)/obj $(BUILD)/obj-rec -name '*.d' 2>/dev/null)

# ---- ACL runtime and the CANN-style SDK (owner: runtime; user/runtime) -----
# libprofapi.so     the in-app library: CANN's reporter ABI (user/profapi) and
#                   the recorder (user/recorder: aclprof*, host recorder,
#                   Str2Id, runtime hooks); needs libc only
# libmsprofiler.so  CANN's aclprof*/mstx* library: an ELF filter (DT_FILTER)
#                   over libprofapi.so, so a program linked to (or
#                   ctypes-loading) it runs libprofapi.so's code and state at
#                   no cost per call; its own definitions are link-time
#                   placeholders of the names in its version script
# libascendcl.so    the runtime (user/runtime/*.c plus the npusim client,
#                   user/device/npusim_dev.c), linked to libmsprofiler.so
# libms_tools_ext.so  CANN's mstx library name: a filter over libprofapi.so
# Programs that use the runtime (npuwork, tests/vm/rt_*, tests/unit/
# test_runtime*) link these shared libraries, never libnpuprof.a, so that the
# process has one recorder; the tool library carries none. `make install-sdk PREFIX=DIR` lays them out as
# CANN does: DIR/include/{acl,hccl}, DIR/lib64, DIR/set_env.sh (see install-sdk).
# RT_REPORT picks the backend of the runtime's reporting layer
# (user/runtime/rt_prof.c): rec (rt_prof_rec.c, libmsprofiler.so's host
# records; the default until the CANN backend passes suite 70) or cann
# (rt_prof_cann.c, CANN's reporter ABI: libascendcl.so then also needs
# libprofapi.so; suites 40, 45, 46 and 50 pass with it). The other backend
# is compiled too, so that it stays buildable, but not linked.
RT_REPORT  ?= rec
RT_BACKENDS := rec cann
RT_SRCS    := $(filter-out $(RT_BACKENDS:%=user/runtime/rt_prof_%.c),$(wildcard user/runtime/*.c)) \
              user/runtime/rt_prof_$(RT_REPORT).c
RT_OBJS    := $(RT_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/user/device/npusim_dev.o \
              $(BUILD)/obj/user/common/u64map.o
RT_OTHER_BACKENDS := $(patsubst %,$(BUILD)/obj-alt/user/runtime/rt_prof_%.o,$(filter-out $(RT_REPORT),$(RT_BACKENDS)))
RT_ACL_LIBS := $(if $(filter cann,$(RT_REPORT)),-lprofapi,-lmsprofiler)
RT_MSPROF  := $(BUILD)/lib/libmsprofiler.so
RT_ACL     := $(BUILD)/lib/libascendcl.so
RT_PROFAPI := $(BUILD)/lib/libprofapi.so
RT_MSTX    := $(BUILD)/lib/libms_tools_ext.so
MSTX_FUNCS := mstxMarkA mstxRangeStartA mstxRangeEnd mstxDomainCreateA mstxDomainDestroy \
              mstxDomainMarkA mstxDomainRangeStartA mstxDomainRangeEnd
RT_LIBS    := $(RT_MSPROF) $(RT_ACL) $(RT_PROFAPI) $(RT_MSTX)
RT_LINK     = -L$(BUILD)/lib -lascendcl -lmsprofiler -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../../lib'
NPUWORK_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard user/tools/npuwork/*.c) user/common/numparse.c user/common/errmsg.c user/common/atomicfile.c)

user: $(RT_LIBS) $(RT_OTHER_BACKENDS)

# the backend not linked: compiled apart (not in obj/, whose objects make
# up the library and tests/layering_test.sh's view of it)
$(BUILD)/obj-alt/user/runtime/%.o: user/runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_runtime) -c -o $@ $<

$(RT_PROFAPI): $(REC_OBJS) $(PROFAPI_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libprofapi.so -Wl,--no-undefined -Wl,--version-script=$(PROFAPI_MAP) \
		-o $@ $(REC_OBJS) -Wl,--as-needed -lpthread

# the filter's placeholders: every aclprof*/mstx* function libprofapi.so
# exports, and the hooks its version script names
$(RT_MSPROF): $(RT_PROFAPI) $(REC_MAP)
	{ echo '/* placeholders: libprofapi.so (the filtee) provides these */'; \
	  { nm -D --defined-only $(RT_PROFAPI) | awk '$$2 == "T" {print $$3}' | sed 's/@.*//' | \
	    grep -E '^(aclprof|mstx)'; \
	    sed -n 's/^[[:space:]]*\(npuprof_[a-z0-9_]*\);$$/\1/p' $(REC_MAP); } | \
	  sort -u | sed 's/.*/void &(void) {}/'; } | \
		$(CC) -shared -fPIC -Wl,-soname,libmsprofiler.so -Wl,--version-script=$(REC_MAP) \
		-Wl,--filter=libprofapi.so -x c -o $@ - -Wl,-rpath,'$$ORIGIN'

$(RT_ACL): $(RT_OBJS) $(RT_MSPROF) $(if $(filter cann,$(RT_REPORT)),$(RT_PROFAPI))
	$(CC) -shared -Wl,-soname,libascendcl.so -o $@ $(RT_OBJS) -L$(BUILD)/lib $(RT_ACL_LIBS) \
		-Wl,-rpath,'$$ORIGIN' -lpthread

$(RT_MSTX): $(RT_PROFAPI)
	printf '%s\n' '/* placeholders: libprofapi.so (the filtee) provides these */' \
		$(foreach f,$(MSTX_FUNCS),'void $(f)(void) {}') | \
		$(CC) -shared -fPIC -Wl,-soname,libms_tools_ext.so -Wl,--filter=libprofapi.so \
		-x c -o $@ - -Wl,-rpath,'$$ORIGIN'

$(BUILD)/bin/npuwork: $(NPUWORK_OBJS) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(NPUWORK_OBJS) $(RT_LINK) -lsqlite3 -lpthread -lm

# rt_* read back what the runtime recorded: the decoder from libnpuprof.a
$(BUILD)/tests/vm/rt_%: $(BUILD)/obj/tests/vm/rt_%.o $(RT_LIBS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(RT_LINK) $(LDLIBS)

# the CANN backend of the reporting layer over this test's side of the ABI
RT_CANN_O := $(BUILD)/$(if $(filter cann,$(RT_REPORT)),obj,obj-alt)/user/runtime/rt_prof_cann.o
$(BUILD)/tests/unit/test_rt_report: $(BUILD)/obj/tests/unit/test_rt_report.o $(UNIT_MAIN) \
		$(BUILD)/obj/user/runtime/rt_prof.o $(RT_CANN_O)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CHECK_LIBS) -ldl -lpthread

$(BUILD)/tests/unit/test_runtime%: $(BUILD)/obj/tests/unit/test_runtime%.o $(UNIT_MAIN) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) $(RT_LINK) $(CHECK_LIBS) -lpthread

# cann_app reports as CANN's components do, built against include/profiling
# only and linked to libprofapi.so; test_cannrec_e2e runs it and exports
CANN_APP := $(BUILD)/tests/profapi/cann_app
$(CANN_APP): tests/profapi/cann_app.c $(wildcard include/profiling/*.h) $(RT_PROFAPI)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude/profiling -o $@ $< -L$(BUILD)/lib -lprofapi \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread
$(BUILD)/tests/unit/test_cannrec_e2e: $(CANN_APP)

# test_profapi_abi holds the built libprofapi.so (dlopen'ed next to it), no recorder of its own
$(BUILD)/tests/unit/test_profapi_abi: $(BUILD)/obj/tests/unit/test_profapi_abi.o $(UNIT_MAIN) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) $(CHECK_LIBS) -ldl

# bench_mstx times the stamp calls as an application meets them: through
# libmsprofiler.so (its PLT entries and TLS), not the static archive
$(BUILD)/tests/bench/bench_mstx: $(BUILD)/obj/tests/bench/bench_mstx.o $(RT_LIBS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(RT_LINK) $(LDLIBS)

# The SDK is a CANN install as CANN's scripts see it (example/set_sample_env.sh
# and common/resolve_cann_env.sh of hicann/runtime): set_env.sh at the root,
# include/acl/acl.h with lib64/libacl_rt.so (CANN's current name of the
# runtime library; here the same library as libascendcl.so), the
# <arch>-linux/{include,lib64} layout, and
# <arch>-linux/tikcpp/ascendc_kernel_cmake/ascendc.cmake, which refuses kernel
# builds (dist/sdk/).
SDK_ARCH := $(shell uname -m)-linux
.PHONY: install-sdk
# The packages' version.info (aclsysGetVersionStr reads it as CANN's does):
# the version acl.h's ACL_*_VERSION macros give.
SDK_CANN_VERSION = $(shell sed -n 's/^\#define ACL_\(MAJOR\|MINOR\|PATCH\)_VERSION //p' include/acl/acl.h | paste -sd.)
install-sdk: $(RT_LIBS) $(NN_LIBS)
	@test -n "$(PREFIX)" || { echo "usage: make install-sdk PREFIX=DIR" >&2; exit 2; }
	install -d $(PREFIX)/include/acl/error_codes $(PREFIX)/include/hccl $(PREFIX)/include/mstx \
		$(PREFIX)/include/profiling $(PREFIX)/lib64 $(PREFIX)/bin $(PREFIX)/include/aclnn $(PREFIX)/include/aclnnop
	install -m 644 include/acl/*.h $(PREFIX)/include/acl/
	install -m 644 include/acl/error_codes/*.h $(PREFIX)/include/acl/error_codes/
	install -m 644 include/hccl/*.h $(PREFIX)/include/hccl/
	install -m 644 include/mstx/*.h $(PREFIX)/include/mstx/
	install -m 644 include/profiling/*.h $(PREFIX)/include/profiling/
	install -m 755 $(RT_LIBS) $(PREFIX)/lib64/
	install -m 644 include/aclnn/*.h $(PREFIX)/include/aclnn/
	install -m 644 include/aclnnop/*.h $(PREFIX)/include/aclnnop/
	install -m 644 include/securec/*.h $(PREFIX)/include/
	install -m 755 $(NN_LIBS) $(PREFIX)/lib64/
	printf 'export ASCEND_HOME_PATH=%s\nexport LD_LIBRARY_PATH=%s/lib64$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}\n' \
		"$(abspath $(PREFIX))" "$(abspath $(PREFIX))" > $(PREFIX)/bin/setenv.bash
	sed 's|@PREFIX@|$(abspath $(PREFIX))|' dist/sdk/set_env.sh > $(PREFIX)/set_env.sh
	ln -sf libascendcl.so $(PREFIX)/lib64/libacl_rt.so
	install -d $(PREFIX)/$(SDK_ARCH)/tikcpp/ascendc_kernel_cmake
	ln -sfn ../include $(PREFIX)/$(SDK_ARCH)/include
	ln -sfn ../lib64 $(PREFIX)/$(SDK_ARCH)/lib64
	install -m 644 dist/sdk/ascendc.cmake $(PREFIX)/$(SDK_ARCH)/tikcpp/ascendc_kernel_cmake/
	for p in cann runtime; do install -d $(PREFIX)/share/info/$$p && \
		printf 'Version=%s\n' "$(SDK_CANN_VERSION)" > $(PREFIX)/share/info/$$p/version.info || exit 1; done
	@echo "SDK installed in $(PREFIX)"

# The aclnn operator API (user/aclnn) in CANN's layout: libnnopbase.so
# (objects, executor, launch), libopapi.so (the operators), libc_sec.so
# (securec); libc only, over libascendcl.so. install-sdk only.
NN_BASE_OBJS := $(BUILD)/obj/user/aclnn/nn_meta.o $(BUILD)/obj/user/aclnn/nn_exec.o
NN_OP_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard user/aclnn/op_*.c))
NN_BASE  := $(BUILD)/lib/libnnopbase.so
NN_OPAPI := $(BUILD)/lib/libopapi.so
NN_CSEC  := $(BUILD)/lib/libc_sec.so
NN_LIBS  := $(NN_BASE) $(NN_OPAPI) $(NN_CSEC)
INC_aclnn := -Iuser/aclnn
$(BUILD)/obj/user/aclnn/%.o: INC = $(INC_aclnn)
user: $(NN_LIBS)

$(NN_BASE): $(NN_BASE_OBJS) $(RT_ACL)
	$(CC) -shared -Wl,-soname,libnnopbase.so -Wl,--no-undefined -o $@ $(NN_BASE_OBJS) \
		-L$(BUILD)/lib -lascendcl -lpthread -Wl,-rpath,'$$ORIGIN'
$(NN_OPAPI): $(NN_OP_OBJS) $(NN_BASE)
	$(CC) -shared -Wl,-soname,libopapi.so -Wl,--no-undefined -o $@ $(NN_OP_OBJS) \
		-L$(BUILD)/lib -lnnopbase -lascendcl -Wl,-rpath,'$$ORIGIN'
$(NN_CSEC): $(BUILD)/obj/user/aclnn/securec.o
	$(CC) -shared -Wl,-soname,libc_sec.so -Wl,--no-undefined -o $@ $<

# test_aclnn reads the executors' plans (nn_internal.h) through the libraries
$(BUILD)/tests/unit/test_aclnn: $(BUILD)/obj/tests/unit/test_aclnn.o $(UNIT_MAIN) $(NN_LIBS) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) -L$(BUILD)/lib -lopapi -lnnopbase -lc_sec $(RT_LINK) $(CHECK_LIBS) -lpthread

# install-sdk, then a CANN-style CMake sample built against it (tests/sdk)
.PHONY: sdk-check
sdk-check: $(RT_LIBS) $(NN_LIBS)
	./tests/sdk/run.sh
check: sdk-check
# ---- end of the runtime block -----------------------------------------------

# The Python package npuprof (npuprof.torch): its rules are one block, kept in python/python.mk
include python/python.mk
include user/hal/build.mk
