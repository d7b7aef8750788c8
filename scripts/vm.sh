#!/bin/sh
# scripts/vm.sh CMD [ARGS...]
#
# Boot Debian's stock kernel (unpacked by scripts/deps.sh) under qemu with the
# host root shared read-only over 9p, run CMD as root inside the guest with the
# work tree at the same path, and exit with CMD's exit status.
#
# The guest gets a writable results directory, exported to CMD as
# $NPUPROF_RESULTS (the same path on the host and in the guest). The run fails
# if the guest kernel log shows a WARNING, BUG, Oops, lockdep splat or hung
# task, or if the VM does not finish within $VM_TIMEOUT seconds (default 3600: the whole of tests/vm/run.sh takes about 15 min under TCG on a quiet 2-core host, nearly 30 on a loaded one).
#
# The accelerator is chosen by trying it: VM_ACCEL=auto (the default) boots
# the guest once under KVM with a hard timeout (VM_PROBE_TIMEOUT, default 20 s)
# and uses KVM only if that probe reached init and powered off; the verdict is
# kept under build/vm/ per host, qemu version and guest kernel, so it is paid
# once. Without a writable /dev/kvm the guest runs under TCG with no probe.
# VM_ACCEL=tcg skips the probe; VM_ACCEL=kvm fails (status 125, naming the
# cause) where KVM cannot boot the guest.
#
# Environment: VM_ACCEL, VM_KERNEL (a directory with vmlinuz, version and
# modules/ unless built in; default Debian's kernel in build/kernel), VM_TIMEOUT, VM_MEM (MiB, default 2048), VM_SMP (default 2),
# VM_TCG_THREADS (single or multi: see tcg_args), VM_OUT=DIR copies what CMD wrote to $NPUPROF_RESULTS into DIR afterwards,
# VM_KEEP=1 keeps the results directory, VM_QUIET=1 hides the console
# (it is still checked and kept in the results directory on failure),
# VM_QEMU the qemu binary (default qemu-system-x86_64), VM_KVM_DEV the KVM
# device node (default /dev/kvm).
set -u

die() { echo "vm.sh: $*" >&2; exit 125; }
[ $# -ge 1 ] || die "usage: scripts/vm.sh CMD [ARGS...]"

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${VM_KERNEL:-}" ]; then
	# another guest kernel (the debug kernel of scripts/debug-kernel.sh):
	# a directory with vmlinuz, version and, unless built in, modules/
	kdir=$(cd "$VM_KERNEL" 2>/dev/null && pwd) || die "VM_KERNEL=$VM_KERNEL: no such directory"
	kver=$(cat "$kdir/version" 2>/dev/null) || die "VM_KERNEL=$VM_KERNEL: no version file"
else
	kver=$(cat "$root/build/kernel/version" 2>/dev/null) || die "no guest kernel: run scripts/deps.sh"
	kdir="$root/build/kernel/$kver"
fi
[ -f "$kdir/vmlinuz" ] || die "missing $kdir/vmlinuz: run scripts/deps.sh"
qemu=${VM_QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null || die "$qemu not installed: run scripts/deps.sh"
case "${VM_ACCEL:=auto}" in
auto|kvm|tcg) ;;
*) die "VM_ACCEL=$VM_ACCEL: use auto, kvm or tcg" ;;
esac
busybox=$(command -v busybox) || die "busybox not installed: run scripts/deps.sh"

# --- initramfs: busybox + the 9p stack, built once per kernel version -------
initrd="$root/build/vm/initramfs-$kver.cpio.gz"
if [ ! -f "$initrd" ] || [ "$0" -nt "$initrd" ]; then
	stage=$(mktemp -d)
	mkdir -p "$stage/bin" "$stage/lib/modules" "$stage/proc" "$stage/sys" \
		"$stage/dev" "$stage/newroot"
	cp "$busybox" "$stage/bin/busybox"
	for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
		virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
		[ -d "$kdir/modules" ] || continue # built into the kernel
		f=$(find "$kdir/modules/kernel" -name "$m.ko" | head -n 1)
		[ -n "$f" ] || die "module $m.ko not found under $kdir/modules"
		cp "$f" "$stage/lib/modules/"
		echo "$m" >> "$stage/lib/modules/order"
	done
	cat > "$stage/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
# the accelerator probe: reaching init is all it asks
if grep -q 'npuprof\.probe=1' /proc/cmdline; then
	echo "npuprof-probe: init reached"
	poweroff -f
fi
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/order 2>/dev/null); do insmod /lib/modules/$m.ko || echo "init: insmod $m failed"; done
results=$(sed -n 's/.*npuprof\.results=\([^ ]*\).*/\1/p' /proc/cmdline)
work=$(sed -n 's/.*npuprof\.work=\([^ ]*\).*/\1/p' /proc/cmdline)
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose rootfs /newroot ||
	{ echo "init: cannot mount host root"; poweroff -f; }
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
# a work tree under /tmp would be hidden by the guest's tmpfs: keep a bind
# of it aside, then put it back on top of the tmpfs
case "$work" in
/tmp/*|/run/*)
	mkdir -p /hostwork
	mount --bind "/newroot$work" /hostwork || echo "init: cannot bind $work" ;;
esac
mount -t tmpfs tmpfs /newroot/tmp
mount -t tmpfs tmpfs /newroot/run
if [ -d /hostwork ]; then
	mkdir -p "/newroot$work"
	mount --bind /hostwork "/newroot$work" || echo "init: cannot restore $work"
fi
mount -t 9p -o trans=virtio,version=9p2000.L,rw results "/newroot$results" ||
	{ echo "init: cannot mount results"; poweroff -f; }
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
mount -t tracefs tracefs /newroot/sys/kernel/tracing
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t bpf bpf /newroot/sys/fs/bpf
exec switch_root /newroot /bin/sh "$results/stage2"
INIT
	chmod +x "$stage/init"
	mkdir -p "$root/build/vm"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp.$$" &&
		mv "$initrd.tmp.$$" "$initrd"
	rm -rf "$stage"
fi

# --- per-run results directory (unique, so runs may overlap) ----------------
run="$root/build/vm/run.$$"
rm -rf "$run"
mkdir -p "$run/out"
cwd=$(pwd)
{
	echo "#!/bin/sh"
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root NPUPROF_RESULTS='$run/out' NPUPROF_IN_VM=1"
	echo "hostname npuprof-vm"
	echo "ulimit -c 0"
	echo "cd '$cwd' || exit 99"
	printf '('
	for a in "$@"; do printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"; done
	printf ')\n'
	echo "rc=\$?"
	echo "dmesg > '$run/dmesg' 2>&1"
	# a kernel with kmemleak: scan now, and its reports join the log
	echo "if [ -w /sys/kernel/debug/kmemleak ]; then echo scan > /sys/kernel/debug/kmemleak; sleep 1; echo scan > /sys/kernel/debug/kmemleak; cat /sys/kernel/debug/kmemleak >> '$run/dmesg'; fi"
	echo "echo \$rc > '$run/rc'"
	echo "sync"
	echo "busybox poweroff -f 2>/dev/null || echo o > /proc/sysrq-trigger"
	echo "sleep 60"
} > "$run/stage2"

# --- boot ---------------------------------------------------------------
# --- accelerator: KVM only where a probe boot under it succeeds ------------
kvm_dev=${VM_KVM_DEV:-/dev/kvm}
kvm_args="-accel kvm -cpu host"
# TCG runs the vCPUs on one host thread (VM_TCG_THREADS=single, the
# default) or one each (multi). Twice a guest under multi stopped taking
# timer interrupts on one vCPU while the other patched kernel text (a
# tracepoint or ftrace event switched on), and hung in a soft lockup; on
# one thread the suites take the same time (20_npuprof + 60_production:
# 178 s against 187 s). The bench asks for multi: a guest task's CPU time
# is only its own when its vCPU has a host thread of its own.
case "${VM_TCG_THREADS:=single}" in
single | multi) ;;
*) die "VM_TCG_THREADS=$VM_TCG_THREADS: use single or multi" ;;
esac
tcg_args="-accel tcg,thread=$VM_TCG_THREADS"

# probe_kvm: boot the guest to init under KVM; prints the reason on failure
probe_kvm() {
	plog="$root/build/vm/probe.$$.log"
	timeout -s KILL "${VM_PROBE_TIMEOUT:-20}" "$qemu" $kvm_args -m 256 -smp 1 \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 npuprof.probe=1" \
		-display none -monitor none -serial stdio -no-reboot </dev/null > "$plog" 2>&1
	prc=$?
	if grep -q '^npuprof-probe: init reached' "$plog" && [ $prc -eq 0 ]; then
		rm -f "$plog"
		return 0
	fi
	if [ $prc -eq 137 ]; then
		echo "probe boot did not finish in ${VM_PROBE_TIMEOUT:-20} s"
	else
		why=$(grep -aE 'qemu|error|rror:|Assertion|failed' "$plog" | head -n 1 |
			sed 's/^[^:]*qemu-system-x86_64: //' | cut -c1-160)
		echo "probe boot failed (status $prc${why:+: $why})"
	fi
	rm -f "$plog"
	return 1
}

# choose_accel: sets accel_name, accel and accel_why
choose_accel() {
	accel_name=tcg accel=$tcg_args accel_why=""
	[ "$VM_ACCEL" = tcg ] && return 0
	if [ ! -e "$kvm_dev" ]; then
		accel_why="no $kvm_dev"
	elif [ ! -w "$kvm_dev" ] || [ ! -r "$kvm_dev" ]; then
		accel_why="$kvm_dev is not readable and writable by $(id -un)"
	else
		key="host $(uname -n) $(uname -r); qemu $(command -v "$qemu") $("$qemu" --version 2>/dev/null | head -n 1); guest $kver; cpu host"
		cache="$root/build/vm/accel-$(printf '%s' "$key" | cksum | cut -d' ' -f1)"
		if [ -f "$cache" ] && [ "$(sed -n 1p "$cache")" = "$key" ]; then
			verdict=$(sed -n 2p "$cache") accel_why=$(sed -n 3p "$cache")
			accel_from="cached in ${cache#"$root"/}"
		else
			if accel_why=$(probe_kvm); then verdict=kvm; else verdict=tcg; fi
			printf '%s\n%s\n%s\n' "$key" "$verdict" "$accel_why" > "$cache.tmp.$$" &&
				mv "$cache.tmp.$$" "$cache"
			accel_from="probed"
		fi
		if [ "$verdict" = kvm ]; then
			accel_name=kvm accel=$kvm_args
			return 0
		fi
		accel_why="$accel_why; $accel_from"
	fi
	if [ "$VM_ACCEL" = kvm ]; then
		echo "vm.sh: VM_ACCEL=kvm but KVM cannot run the guest: $accel_why" >&2
		[ -n "${cache:-}" ] && [ -f "$cache" ] && echo "vm.sh: (delete $cache to probe again)" >&2
		return 1
	fi
	return 0
}
if ! choose_accel; then
	rm -rf "$run"
	exit 125
fi
if [ -n "$accel_why" ]; then
	echo "vm.sh: accel tcg (kvm: $accel_why)"
elif [ "$accel_name" = kvm ] || [ "$VM_ACCEL" != tcg ]; then
	echo "vm.sh: accel $accel_name"
else
	echo "vm.sh: accel tcg (VM_ACCEL=tcg)"
fi

log="$run/console.log"
start=$(date +%s)
# a guest that hangs in a soft lockup (which fails the run anyway: see the
# kernel health check below) is stopped at once, not at VM_TIMEOUT
: > "$log"
(
	while sleep 5; do
		[ -f "$run/rc" ] && break
		if grep -aq 'BUG: soft lockup' "$log" 2>/dev/null; then
			echo "vm.sh: the guest hangs in a soft lockup: stopping it" >&2
			pkill -f "npuprof.results=$run " 2>/dev/null
			break
		fi
	done
) &
hang_watch=$!
timeout "${VM_TIMEOUT:-3600}" "$qemu" $accel \
	-m "${VM_MEM:-2048}" -smp "${VM_SMP:-2}" \
	-kernel "$kdir/vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 quiet loglevel=4 panic=-1 oops=panic tsc=reliable npuprof.results=$run npuprof.work=$root" \
	-fsdev local,id=r,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=r,mount_tag=rootfs \
	-fsdev local,id=w,path="$run",security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=w,mount_tag=results \
	-display none -monitor none -serial stdio -no-reboot </dev/null 2>&1 |
	if [ "${VM_QUIET:-0}" = 1 ]; then cat > "$log"; else tee "$log"; fi
end=$(date +%s)
kill $hang_watch 2>/dev/null
wait $hang_watch 2>/dev/null

status=0
if [ -f "$run/rc" ]; then
	status=$(cat "$run/rc")
else
	echo "vm.sh: guest did not finish (timeout ${VM_TIMEOUT:-3600}s or crash)" >&2
	status=124
fi

# --- kernel health: fail on any warning/oops/lockdep/hung task -------------
pattern='WARNING:|BUG:|Oops|general protection fault|kernel BUG|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|INFO: task .* blocked for more than|Kernel panic|UBSAN|KASAN|suspected memory leak|unreferenced object|refcount_t:|list_add corruption|list_del corruption|scheduling while atomic|sleeping function called from invalid context'
bad=$(cat "$log" "$run/dmesg" 2>/dev/null | grep -aE "$pattern" | sort -u)
if [ -n "$bad" ]; then
	echo "vm.sh: the guest kernel log shows problems:" >&2
	printf '%s\n' "$bad" >&2
	[ "$status" -ne 0 ] || status=1
fi
echo "vm.sh: guest ran $((end - start)) s under $accel_name, exit status $status"

if [ -n "${VM_OUT:-}" ]; then
	rm -rf "$VM_OUT"
	mkdir -p "$(dirname "$VM_OUT")"
	cp -a "$run/out" "$VM_OUT"
fi
if [ "$status" -ne 0 ] || [ "${VM_KEEP:-0}" = 1 ]; then
	echo "vm.sh: results kept in $run"
else
	rm -rf "$run"
fi
exit "$status"
