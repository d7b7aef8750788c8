# ---- BPF capture engine (bpf/, user/capture/engine_bpf.c) ----------------------
# Included from the top-level Makefile. vmlinux.h comes from the build host's
# kernel BTF; the programs are compiled for BPF, turned into a libbpf
# skeleton (which embeds the object), and that skeleton is compiled into
# libnpuprof, so every tool carries its BPF programs with it.
#
# The object is loaded on other kernels too (the 6.1 test VM): it relies on
# CO-RE relocations and helpers that 6.1 has, nothing newer.

BPFTOOL   ?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)
BPF_CLANG ?= clang
BTF_VMLINUX ?= /sys/kernel/btf/vmlinux
BPF_OUT   := $(BUILD)/bpf
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(BPF_OUT)/%.bpf.o)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(BPF_OUT)/%.skel.h)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall \
              -Wno-unused-function -I$(BPF_OUT) -Ibpf -Iinclude

# the skeleton and the shared event header: for the BPF engine and its tests
BPF_INC := -I$(BPF_OUT) -Ibpf
LDLIBS  += $(or $(shell pkg-config --libs libbpf 2>/dev/null),-lbpf) -lelf -lz

$(BPF_OUT)/vmlinux.h:
	@mkdir -p $(dir $@)
	@test -r $(BTF_VMLINUX) || { \
		echo "error: $(BTF_VMLINUX) is missing or unreadable: the BPF engine needs the build" >&2; \
		echo "       host's kernel BTF (CONFIG_DEBUG_INFO_BTF=y) to generate vmlinux.h" >&2; \
		exit 1; }
	@test -x "$(BPFTOOL)" || { echo "error: bpftool not found: run scripts/deps.sh" >&2; exit 1; }
	$(BPFTOOL) btf dump file $(BTF_VMLINUX) format c > $@.tmp
	mv $@.tmp $@

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard include/uapi/*.h) $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst .,_,$*)_bpf > $@.tmp
	mv $@.tmp $@

# everything that includes a skeleton waits for it
$(BUILD)/obj/user/capture/engine_bpf.o: $(BPF_SKELS)
$(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.o,$(wildcard tests/unit/test_bpf*.c)): $(BPF_SKELS)
$(patsubst tests/vm/%.c,$(BUILD)/obj/tests/vm/%.o,$(wildcard tests/vm/bpf_*.c)): $(BPF_SKELS)

bpf: $(BPF_SKELS)
clean: clean-bpf
clean-bpf:
	rm -rf $(BPF_OUT)
.PHONY: bpf clean-bpf
.SECONDARY: $(BPF_OBJS)
# ---- end of the BPF block ----------------------------------------------------
