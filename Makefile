# npuprof: one entry point for building, testing and running the demo.
#
#   make            the product (libraries, tools, Python package) into
#                   build/, the kernel modules into kmod/*/*.ko
#   make tests      the test and benchmark programs (needs Check, libtorch)
#   make check      unit tests, sanitizers, fuzzing, the SDK sample, then the
#                   in-VM kernel tests
#   make demo       a sample workload on the simulated NPU, inside the test VM
#   make bench      benchmarks (ratios against references measured in the same run)
#   make install    the product only (dist/install.mk; also install-sdk,
#                   install-dkms, install-systemd)
#
# Kernel modules are built against Debian's headers for the VM kernel that
# scripts/deps.sh unpacked (build/kernel/version); override with KVER=...
# Each component keeps its rules in a build file of its own, included below.

BUILD    := build
CC       ?= gcc
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -fPIC -D_GNU_SOURCE \
            -Iinclude -MMD -MP
LDLIBS   := -lsqlite3 -lpthread -lm
KVER     ?= $(shell cat $(BUILD)/kernel/version 2>/dev/null || uname -r)
KDIR     ?= $(firstword $(wildcard /lib/modules/$(KVER)/build /usr/src/linux-headers-$(KVER)))

# ---- components -------------------------------------------------------------
# user/<name>/ is one component. The "Uses:" line of its README names the
# components it may call, the one statement of its dependencies: their
# folders are its include path, and tests/layering_test.sh fails if its
# objects call anything else or a library holds code of a component its
# folder does not use. A component's objects are built once, into
# $(BUILD)/obj/user/<name>/ and the archive $(BUILD)/obj/user/<name>.a.
# The components reached only through their shared libraries (SO_PARTS) are
# never linked in statically.
SO_PARTS = recorder hal runtime
uses     = $(shell sed -n 's/^Uses: *//p' user/$(1)/README.md | tr ',' ' ' | sed 's/nothing//')
linked   = $(sort $(foreach u,$(filter-out $(SO_PARTS),$(call uses,$(1))),$(u) $(call linked,$(u))))
archives = $(foreach c,$(1),$(BUILD)/obj/user/$(c).a)
# $(call static,NAME): link flags of the archives of what NAME uses
static   = -Wl,--start-group $(call archives,$(call linked,$(1))) -Wl,--end-group
define component
COMPONENTS += $(1)
$(1)_OBJS := $$(patsubst %.c,$$(BUILD)/obj/%.o,$$(wildcard user/$(1)/*.c))
INC_$(1)  := $$(foreach c,$(1) $$(call uses,$(1)),-Iuser/$$(c))
$$(BUILD)/obj/user/$(1)/%.o: INC = $$(INC_$(1))
$$(BUILD)/obj/user/$(1).a: $$($(1)_OBJS)
	rm -f $$@
	ar rcs $$@ $$^
endef

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC) -c -o $@ $<

.PHONY: all product user tests kmod kmod-layout check unit vmtest check-debug demo bench clean deps
all: product kmod
user: product
# product and tests collect their targets from the build files
product:
tests:

include user/common/build.mk
include user/device/build.mk
include user/session/build.mk
include bpf/bpf.mk
include user/capture/build.mk
include user/db/build.mk
include user/report/build.mk
include user/export/build.mk
include user/recorder/build.mk
include user/hal/build.mk
include user/runtime/build.mk
include user/securec/build.mk
include user/aclnn/build.mk
include user/tools/build.mk
include python/python.mk
include tests/build.mk
include dist/install.mk

kmod:
	@test -n "$(KDIR)" || { echo "no kernel headers for $(KVER): run scripts/deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	./scripts/deps.sh

# ---- running: every check of `make check` is one line here ------------------
check: deps all tests
	$(MAKE) asan-check
	$(MAKE) fuzz-check
	$(MAKE) sdk-check
	./scripts/run-unit.sh
	./tests/vm_accel_test.sh
	./scripts/vm.sh tests/vm/run.sh

unit: product tests
	./scripts/run-unit.sh

vmtest: all tests sdk-check
	./scripts/vm.sh tests/vm/run.sh

# every VM suite on the debug kernel (KASAN, lockdep, PROVE_RCU, atomic-sleep
# checks, kmemleak) that scripts/debug-kernel.sh builds once; the modules are
# built for it, then rebuilt for the stock kernel whatever the outcome
DEBUG_KDIR := $(CURDIR)/$(BUILD)/debug-kernel/obj
check-debug: deps all tests sdk-check
	./scripts/debug-kernel.sh
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) clean >/dev/null
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) modules
	VM_KERNEL=$(BUILD)/debug-kernel VM_TIMEOUT=$${VM_TIMEOUT:-9000} ./scripts/vm.sh tests/vm/run.sh; st=$$?; \
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR) clean >/dev/null; $(MAKE) kmod >/dev/null; exit $$st

demo: deps all tests
	./scripts/demo.sh

bench: deps all tests kmod-layout
	./scripts/run-bench.sh

# The bench's second build of npuprof.ko (tests/vm/bench.sh, kmodlayout):
# the same sources linked behind tests/bench/kmod/layout_pad.c, 1.5 KiB of
# code that is never called, so every function lands at other offsets in
# its pages. Under TCG that alone changes the probes' measured cost; the
# bench shows by how much.
LAYOUT_DIR := $(CURDIR)/$(BUILD)/bench/kmod-layout
kmod-layout:
	@test -n "$(KDIR)" || { echo "no kernel headers for $(KVER): run scripts/deps.sh" >&2; exit 1; }
	rm -rf $(LAYOUT_DIR) && mkdir -p $(LAYOUT_DIR)
	cp kmod/npuprof/*.c kmod/npuprof/*.h tests/bench/kmod/layout_pad.c $(LAYOUT_DIR)/
	sed 's/^npuprof-y := /npuprof-y := layout_pad.o /; s|$$(src)/../../include|$(CURDIR)/include|' kmod/npuprof/Kbuild > $(LAYOUT_DIR)/Kbuild
	$(MAKE) -C $(KDIR) M=$(LAYOUT_DIR) modules

# everything built here but the fetched kernel and the debug kernel
clean:
	rm -rf $(BUILD)/obj $(BUILD)/lib $(BUILD)/bin $(BUILD)/tests $(BUILD)/vm \
		$(BUILD)/python $(BUILD)/bpf $(BUILD)/asan $(BUILD)/fuzz
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
