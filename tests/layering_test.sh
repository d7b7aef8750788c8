#!/bin/sh
# layering_test: the files of the simulated driver (kmod/npusim), of the
# runtime (user/runtime) and of the npuprof tool (user/tools/npuprof) call
# each other in a DAG, never in a circle: for each folder, every object's
# undefined symbols are matched to the object of the same folder that
# defines them, and tsort(1) must order the result without a loop.
# Needs the kernel modules built (make kmod); the user objects are compiled
# here. Prints one line; exits non-zero on a circle.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# check_dir NAME OBJECT...
check_dir() {
	name=$1
	shift
	: > "$tmp/defs"
	: > "$tmp/edges"
	for o in "$@"; do
		f=$(basename "$o" .o)
		nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print $3, f }' >> "$tmp/defs"
		echo "$f $f" >> "$tmp/edges"
	done
	sort -k1,1 "$tmp/defs" > "$tmp/defs.sorted"
	for o in "$@"; do
		f=$(basename "$o" .o)
		nm -u "$o" | awk '{ print $NF }' | sort -u |
			join -o 2.2 - "$tmp/defs.sorted" |
			awk -v f="$f" '$1 != f { print f, $1 }' >> "$tmp/edges"
	done
	if ! sort -u "$tmp/edges" | tsort > /dev/null 2> "$tmp/loop"; then
		echo "layering_test: $name: files in a circle:" \
			$(grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: //' | sort -u) >&2
		status=1
	fi
}

# compile_dir DIR: the objects of DIR's .c files in $tmp/DIR
compile_dir() {
	mkdir -p "$tmp/$1"
	for c in "$1"/*.c; do
		${CC:-cc} -std=gnu11 -D_GNU_SOURCE -fPIC -Iinclude -Iuser/lib -Ibuild/bpf -Ibpf \
			-c -o "$tmp/$1/$(basename "$c" .c).o" "$c" || return 1
	done
}

for d in user/runtime user/tools/npuprof; do
	if ! compile_dir "$d"; then
		echo "layering_test: cannot compile $d" >&2
		exit 1
	fi
	check_dir "$d" "$tmp/$d"/*.o
done

objs=$(ls kmod/npusim/*.o 2>/dev/null | grep -v -e '\.mod\.o$' -e '/npusim\.o$')
if [ -z "$objs" ]; then
	echo "layering_test: kmod/npusim has no objects: make kmod first" >&2
	exit 1
fi
# shellcheck disable=SC2086
check_dir kmod/npusim $objs

[ "$status" -eq 0 ] && echo "layering_test: ok (kmod/npusim, user/runtime, user/tools/npuprof call down only)"
exit "$status"
