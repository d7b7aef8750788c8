#!/bin/sh
# tests/vm_accel_test.sh — scripts/vm.sh chooses its accelerator by trying it.
#
# The same trivial guest command gives the same result under VM_ACCEL=tcg and
# auto; the summary line names the accelerator; a forced or probed KVM that
# cannot start (no device; a qemu that aborts the way KVM does on broken
# hosts; one that hangs) is an error naming the cause, or a fallback to TCG
# that says why, and the verdict is cached. The broken-KVM qemus are wrappers
# that fail only when asked for KVM and run the real qemu for TCG, so every
# guest here is a real boot. Last line: "vm_accel: N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/     | /' "$tmp/out"; }
real_qemu=$(command -v qemu-system-x86_64) || { echo "vm_accel: qemu-system-x86_64 missing"; exit 1; }

# the guest command: its output, a file in the results and its exit status
guest() {
	scripts/vm.sh sh -c 'echo "guest-kernel $(uname -r)"; echo hello > "$NPUPROF_RESULTS/f"; exit 7' > "$tmp/out" 2>&1
}

# 1, 2: tcg and auto agree
VM_ACCEL=tcg VM_OUT="$tmp/tcg" guest
rc=$?
cp "$tmp/out" "$tmp/out.tcg"
if [ $rc = 7 ] && grep -q '^guest-kernel 6\.' "$tmp/out" && [ "$(cat "$tmp/tcg/f")" = hello ] &&
	grep -q '^vm.sh: accel tcg (VM_ACCEL=tcg)$' "$tmp/out" &&
	grep -q '^vm.sh: guest ran [0-9]* s under tcg, exit status 7$' "$tmp/out"; then
	ok "VM_ACCEL=tcg runs the guest command (status 7, results copied)"
else
	bad "VM_ACCEL=tcg (exit $rc)"
fi
VM_ACCEL=auto VM_OUT="$tmp/auto" guest
rc=$?
used=$(sed -n 's/^vm.sh: guest ran [0-9]* s under \([a-z]*\), exit status 7$/\1/p' "$tmp/out")
if [ $rc = 7 ] && [ -n "$used" ] && [ "$(cat "$tmp/auto/f")" = hello ] &&
	grep -q "^vm.sh: accel $used" "$tmp/out" &&
	[ "$(grep '^guest-kernel' "$tmp/out")" = "$(grep '^guest-kernel' "$tmp/out.tcg")" ]; then
	ok "VM_ACCEL=auto gives the same result (under $used: $(grep '^vm.sh: accel' "$tmp/out"))"
else
	bad "VM_ACCEL=auto (exit $rc)"
fi

# 3, 4: refused settings
VM_ACCEL=kvm VM_KVM_DEV="$tmp/nokvm" scripts/vm.sh true > "$tmp/out" 2>&1
rc=$?
if [ $rc = 125 ] && grep -q "VM_ACCEL=kvm but KVM cannot run the guest: no $tmp/nokvm" "$tmp/out"; then
	ok "VM_ACCEL=kvm without a KVM device fails with status 125 and names it"
else
	bad "VM_ACCEL=kvm without a device (exit $rc)"
fi
VM_ACCEL=fast scripts/vm.sh true > "$tmp/out" 2>&1
rc=$?
if [ $rc = 125 ] && grep -q 'VM_ACCEL=fast: use auto, kvm or tcg' "$tmp/out"; then
	ok "an unknown VM_ACCEL is refused"
else
	bad "VM_ACCEL=fast (exit $rc)"
fi

# a "KVM device" the wrappers below accept, and a wrapper maker
: > "$tmp/kvm"
fake() { # fake NAME KVM-ACTION: a qemu that does KVM-ACTION when asked for KVM
	cat > "$tmp/$1" <<EOF
#!/bin/sh
case "\$*" in
--version) echo "QEMU emulator version 0.0 ($1 wrapper $tmp)"; exit 0 ;;
*"-accel kvm"*) $2 ;;
esac
exec "$real_qemu" "\$@"
EOF
	chmod +x "$tmp/$1"
}
fake qemu-abort 'echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2; echo "qemu-system-x86_64: ../target/i386/kvm/kvm.c:3235: kvm_buf_set_msrs: Assertion failed." >&2; exit 134'
fake qemu-hang 'exec sleep 300'

# 5: KVM that aborts: forced is an error with the cause; auto falls back
VM_ACCEL=kvm VM_QEMU="$tmp/qemu-abort" VM_KVM_DEV="$tmp/kvm" scripts/vm.sh true > "$tmp/out" 2>&1
rc=$?
if [ $rc = 125 ] && grep -q 'VM_ACCEL=kvm but KVM cannot run the guest: probe boot failed (status 134: error: failed to set MSR 0x10a to 0x69)' "$tmp/out"; then
	ok "a forced KVM that aborts fails with status 125 and the qemu error"
else
	bad "forced KVM, qemu aborts (exit $rc)"
fi
VM_QEMU="$tmp/qemu-abort" VM_KVM_DEV="$tmp/kvm" VM_OUT="$tmp/abort" guest
rc=$?
if [ $rc = 7 ] && [ "$(cat "$tmp/abort/f")" = hello ] &&
	grep -q '^vm.sh: accel tcg (kvm: probe boot failed (status 134: error: failed to set MSR 0x10a to 0x69); cached in build/vm/accel-[0-9]*)$' "$tmp/out" &&
	grep -q 'under tcg, exit status 7$' "$tmp/out"; then
	ok "auto falls back to TCG where KVM aborts, in one line with the reason"
else
	bad "auto, qemu aborts under KVM (exit $rc)"
fi

# 6: KVM that hangs: the probe is killed at its timeout, TCG runs, the
# verdict is remembered (a second run pays no probe)
t0=$(date +%s)
VM_PROBE_TIMEOUT=3 VM_QEMU="$tmp/qemu-hang" VM_KVM_DEV="$tmp/kvm" VM_OUT="$tmp/hang" guest
rc=$?
t1=$(date +%s)
if [ $rc = 7 ] && [ "$(cat "$tmp/hang/f")" = hello ] &&
	grep -q '^vm.sh: accel tcg (kvm: probe boot did not finish in 3 s; probed)$' "$tmp/out"; then
	ok "a hanging KVM probe is killed after 3 s and TCG runs ($((t1 - t0)) s in all)"
else
	bad "auto, qemu hangs under KVM (exit $rc)"
fi
t0=$(date +%s)
VM_ACCEL=kvm VM_PROBE_TIMEOUT=3 VM_QEMU="$tmp/qemu-hang" VM_KVM_DEV="$tmp/kvm" scripts/vm.sh true > "$tmp/out" 2>&1
rc=$?
t1=$(date +%s)
if [ $rc = 125 ] && [ $((t1 - t0)) -lt 3 ] &&
	grep -q 'KVM cannot run the guest: probe boot did not finish in 3 s; cached in' "$tmp/out"; then
	ok "the verdict is cached: a forced KVM fails at once ($((t1 - t0)) s)"
else
	bad "cached verdict (exit $rc, $((t1 - t0)) s)"
fi

# the wrappers' verdicts go with them
for f in build/vm/accel-*; do
	[ -f "$f" ] && grep -q "wrapper $tmp" "$f" && rm -f "$f"
done
echo "vm_accel: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
