#!/bin/sh
# scripts/debug-kernel.sh: build the debug guest kernel that `make
# check-debug` boots, from Debian's linux-source, once; cached under
# build/debug-kernel/ (the image, its build tree for the modules, and a
# version file). Idempotent: with the image present it only says so.
#
# The config is a small virtio guest (x86_64_defconfig plus kvm_guest.config)
# with what the tests need built in (virtio-pci, 9p, tmpfs, BPF with BTF,
# tracepoints, modules) and the detectors that only a debug kernel has:
# KASAN, lockdep (PROVE_LOCKING), PROVE_RCU, DEBUG_ATOMIC_SLEEP, kmemleak,
# object and list debugging. The build runs at the lowest CPU priority.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/debug-kernel"
obj="$out/obj"
if [ -f "$out/vmlinuz" ] && [ -f "$out/version" ]; then
	echo "debug-kernel: ok ($(cat "$out/version"), $out/vmlinuz)"
	exit 0
fi

PKGS="linux-source-6.1 build-essential bc bison flex libssl-dev libelf-dev dwarves python3 xz-utils rsync"
. "$root/scripts/pkgs.sh"
pkgs_install debug-kernel $PKGS

tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$tarball" ] || { echo "debug-kernel: no /usr/src/linux-source-6.1*.tar.xz" >&2; exit 1; }
src="$out/src"
if [ ! -f "$src/Makefile" ]; then
	echo "debug-kernel: unpacking $tarball"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

mkdir -p "$obj"
nice_make() { nice -n 19 make -C "$src" O="$obj" "$@"; }
if [ ! -f "$obj/.config.npuprof" ]; then
	nice_make x86_64_defconfig > /dev/null
	nice_make kvm_guest.config > /dev/null
	cfg="$src/scripts/config --file $obj/.config"
	# what the guest and the tests need, built in
	$cfg -e VIRTIO -e VIRTIO_PCI -e VIRTIO_CONSOLE -e NET_9P -e NET_9P_VIRTIO \
		-e 9P_FS -e 9P_FS_POSIX_ACL -e TMPFS -e DEVTMPFS -e DEVTMPFS_MOUNT \
		-e MODULES -e MODULE_UNLOAD -e MODULE_FORCE_UNLOAD -e IKCONFIG -e IKCONFIG_PROC \
		-e BPF -e BPF_SYSCALL -e BPF_JIT -e BPF_EVENTS -e FTRACE -e FUNCTION_TRACER \
		-e TRACEPOINTS -e KPROBES -e KPROBE_EVENTS -e PERF_EVENTS -e DEBUG_FS \
		-e DEBUG_INFO -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -d DEBUG_INFO_REDUCED \
		-e DEBUG_INFO_BTF -e DEBUG_INFO_BTF_MODULES -e PAHOLE_HAS_SPLIT_BTF \
		-e SCHEDSTATS -e SCHED_INFO -e HIGH_RES_TIMERS -e NO_HZ_IDLE
	# the detectors
	$cfg -e KASAN -e KASAN_GENERIC -e KASAN_INLINE -e KASAN_VMALLOC \
		-e PROVE_LOCKING -e PROVE_RCU -e DEBUG_LOCKDEP -e DEBUG_ATOMIC_SLEEP \
		-e DEBUG_KMEMLEAK -e DEBUG_KMEMLEAK_AUTO_SCAN --set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 16000 \
		-e DEBUG_LIST -e DEBUG_OBJECTS -e DEBUG_OBJECTS_TIMERS -e DEBUG_OBJECTS_WORK \
		-e DEBUG_VM -e DEBUG_SPINLOCK -e DEBUG_MUTEXES -e DETECT_HUNG_TASK \
		-e UBSAN -e UBSAN_BOUNDS -d UBSAN_TRAP -e REFCOUNT_FULL -e DEBUG_PREEMPT
	# what a test guest does not need (build time)
	$cfg -d DRM -d SOUND -d USB_SUPPORT -d WLAN -d WIRELESS -d CFG80211 -d MAC80211 \
		-d HID -d INPUT_JOYSTICK -d INPUT_TABLET -d INPUT_TOUCHSCREEN -d AGP \
		-d FB -d ETHERNET -d NETFILTER -d IPV6 -d SECURITY_SELINUX -d AUDIT \
		-d KVM -d XEN -d HYPERV -d EFI -d ACPI_BGRT
	nice_make olddefconfig > /dev/null
	for opt in KASAN PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK DEBUG_INFO_BTF 9P_FS NET_9P_VIRTIO VIRTIO_PCI BPF_SYSCALL MODULES; do
		grep -q "^CONFIG_$opt=y" "$obj/.config" ||
			{ echo "debug-kernel: CONFIG_$opt did not stick (a dependency is missing)" >&2; exit 1; }
	done
	cp "$obj/.config" "$obj/.config.npuprof"
fi
echo "debug-kernel: building in $obj (nice 19; about half an hour on 2 cores)"
nice_make -j"$(nproc)" all > "$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; echo "debug-kernel: build failed (log: $out/build.log)" >&2; exit 1; }
kver=$(cat "$obj/include/config/kernel.release")
cp "$obj/arch/x86/boot/bzImage" "$out/vmlinuz.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
echo "$kver" > "$out/version"
echo "debug-kernel: ok ($kver, $out/vmlinuz)"
