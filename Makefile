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

.PHONY: all user kmod check unit vmtest demo bench clean deps install
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
	./scripts/vm.sh tests/vm/run.sh

unit: user
	./scripts/run-unit.sh

vmtest: all
	./scripts/vm.sh tests/vm/run.sh

demo: deps all
	VM_OUT=$(BUILD)/demo ./scripts/vm.sh scripts/demo.sh
	@echo "demo output: $(BUILD)/demo/"

bench: deps all
	./scripts/run-bench.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/lib $(BUILD)/bin $(BUILD)/tests $(BUILD)/vm
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

# BPF capture engine: its rules are one block, kept in bpf/bpf.mk
include bpf/bpf.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
