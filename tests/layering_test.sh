#!/bin/sh
# layering_test: the files of the simulated driver (kmod/npusim) and of
# each user folder of USER_DIRS (below) call each other in a DAG, never
# in a circle: for each folder, every object's undefined symbols are
# matched to the object of the same folder that defines them, and
# tsort(1) must order the result without a loop.
# Needs everything built (make): it reads the build's objects. Prints one
# line; exits non-zero on a circle.
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

# ---- the user folders checked (one list; the objects as the build made
# them, make user first). The in-app recorder's folders are compiled only
# into libmsprofiler.so, under build/obj-rec.
USER_DIRS="user/runtime user/aclnn user/tools/npuprof user/recorder user/profapi
	user/export user/capture user/device user/db user/report user/common"
# ----
for d in $USER_DIRS; do
	set -- build/obj/$d/*.o
	[ -f "$1" ] || set -- build/obj-rec/$d/*.o
	if [ ! -f "$1" ]; then
		echo "layering_test: no objects in build/obj/$d: make first" >&2
		exit 1
	fi
	check_dir "$d" "$@"
done

objs=$(ls kmod/npusim/*.o 2>/dev/null | grep -v -e '\.mod\.o$' -e '/npusim\.o$')
if [ -z "$objs" ]; then
	echo "layering_test: kmod/npusim has no objects: make kmod first" >&2
	exit 1
fi
# shellcheck disable=SC2086
check_dir kmod/npusim $objs

[ "$status" -eq 0 ] && echo "layering_test: ok (kmod/npusim" $USER_DIRS "call down only)"
exit "$status"
