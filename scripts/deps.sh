#!/bin/sh
# Install every Debian package npuprof needs to build and test, and unpack the
# guest kernel image that scripts/vm.sh boots. Idempotent: when everything is
# present it only checks and returns.
set -eu

PKGS="build-essential clang clang-format libclang-rt-14-dev llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
libsqlite3-dev sqlite3 check pkg-config qemu-system-x86 busybox-static cpio \
linux-headers-amd64 kmod valgrind python3 cmake \
python3-torch libtorch-dev python3-dev"

. "$(dirname "$0")/pkgs.sh"
pkgs_install deps $PKGS
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# The guest kernel: the image matching the installed headers, unpacked (not
# installed) so no initramfs trigger runs.
root=$(cd "$(dirname "$0")/.." && pwd)
kver=$(ls -1 /usr/src | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' | sort -V | tail -n 1)
[ -n "$kver" ] || { echo "deps: no linux-headers-*-amd64 in /usr/src" >&2; exit 1; }
kdir="$root/build/kernel/$kver"
if [ ! -f "$kdir/vmlinuz" ]; then
	echo "deps: unpacking linux-image-$kver"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download "linux-image-$kver" >/dev/null 2>&1) || {
		$SUDO apt-get update -qq
		(cd "$tmp" && apt-get download "linux-image-$kver")
	}
	mkdir -p "$tmp/x"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/x"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	cp "$tmp/x/boot/vmlinuz-$kver" "$kdir/vmlinuz"
	cp -a "$tmp/x/lib/modules/$kver" "$kdir/modules"
	rm -rf "$tmp"
fi
echo "$kver" > "$root/build/kernel/version"
echo "deps: ok (guest kernel $kver)"
