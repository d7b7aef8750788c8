#!/bin/sh
# layering_test: the code calls down only, as the components' READMEs say.
#   1. components: the "Uses:" lines of user/<name>/README.md (the one
#      statement of what a component may call; the build takes its include
#      paths from them) order the components without a circle;
#   2. objects: every symbol a component's objects take from another
#      component is defined in one that its README's Uses line names;
#   3. files: inside each component, and inside kmod/npusim, the files call
#      each other in a DAG, never in a circle (each object's undefined
#      symbols matched to the object of the same folder that defines them);
#   4. libraries: every shared library of build/lib is built from one
#      component and what it uses: the compile units of its debug
#      information come from one component's folder and the folders that
#      component uses, directly or through them.
# Needs everything built (make, make tests): it reads the build's objects
# and libraries. Prints one line; exits non-zero on any breach.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
	echo "layering_test: $*" >&2
	status=1
}

# the components: every user folder with a README's Uses line
components=$(for f in user/*/README.md user/tools/*/README.md; do
	grep -q '^Uses:' "$f" && dirname "${f#user/}"
done)
uses() { sed -n 's/^Uses: *//p' "user/$1/README.md" | tr ',' ' ' | sed 's/nothing//'; }
# closure NAME: what NAME uses, directly or through what it uses
closure() {
	for u in $(uses "$1"); do
		echo "$u"
		closure "$u"
	done | sort -u
}

# ---- 1. components in a DAG
for c in $components; do
	echo "$c $c"
	for u in $(uses "$c"); do
		[ -f "user/$u/README.md" ] || fail "user/$c/README.md uses '$u': no such component"
		echo "$c $u"
	done
done > "$tmp/cedges"
tsort "$tmp/cedges" > /dev/null 2> "$tmp/loop" ||
	fail "components in a circle (their README Uses lines):" $(sed 's/^tsort: //' "$tmp/loop" | grep -v 'input contains')

# ---- 2. objects take symbols only from the components they use
objects_of() {
	ls "build/obj/user/$1"/*.o 2> /dev/null
}
: > "$tmp/alldefs"
for c in $components; do
	objs=$(objects_of "$c")
	[ -n "$objs" ] || { echo "layering_test: no objects in build/obj/user/$c: make first" >&2; exit 1; }
	# shellcheck disable=SC2086
	nm --defined-only -g $objs | awk -v c="$c" 'NF == 3 { print $3, c }' >> "$tmp/alldefs"
done
sort -k1,1 -u "$tmp/alldefs" > "$tmp/defs.sorted"
for c in $components; do
	allowed=" $c $(uses "$c" | tr '\n' ' ') "
	# shellcheck disable=SC2046
	nm -u $(objects_of "$c") | awk 'NF { print $NF }' | sort -u |
		join -o 1.1,2.2 - "$tmp/defs.sorted" > "$tmp/taken"
	while read -r sym owner; do
		case $allowed in
		*" $owner "*) ;;
		*) fail "user/$c calls $sym of user/$owner, which its README's Uses line does not name" ;;
		esac
	done < "$tmp/taken"
done

# ---- 3. files in a DAG inside each folder
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
	sort -k1,1 "$tmp/defs" > "$tmp/fdefs.sorted"
	for o in "$@"; do
		f=$(basename "$o" .o)
		nm -u "$o" | awk '{ print $NF }' | sort -u |
			join -o 2.2 - "$tmp/fdefs.sorted" |
			awk -v f="$f" '$1 != f { print f, $1 }' >> "$tmp/edges"
	done
	if ! sort -u "$tmp/edges" | tsort > /dev/null 2> "$tmp/loop"; then
		fail "$name: files in a circle:" \
			$(grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: //' | sort -u)
	fi
}
for c in $components; do
	# shellcheck disable=SC2046
	check_dir "user/$c" $(objects_of "$c")
done
objs=$(ls kmod/npusim/*.o 2> /dev/null | grep -v -e '\.mod\.o$' -e '/npusim\.o$')
[ -n "$objs" ] || { echo "layering_test: kmod/npusim has no objects: make kmod first" >&2; exit 1; }
# shellcheck disable=SC2086
check_dir kmod/npusim $objs

# ---- 4. each library: one component and what it uses
nlib=0
for lib in build/lib/*.so; do
	readelf --debug-dump=info --dwarf-depth=1 "$lib" 2> /dev/null |
		awk '/DW_AT_name/ { print $NF }' | sed -n 's#^user/\(tools/[^/]*\|[^/]*\)/[^/]*\.c$#\1#p' |
		sort -u > "$tmp/parts"
	[ -s "$tmp/parts" ] || continue # a filter's placeholders: no code of ours
	nlib=$((nlib + 1))
	owner=
	for c in $(cat "$tmp/parts"); do
		{ echo "$c"; closure "$c"; } | sort -u > "$tmp/reach"
		if [ -z "$(comm -23 "$tmp/parts" "$tmp/reach")" ]; then
			owner=$c
			break
		fi
	done
	[ -n "$owner" ] || fail "${lib#build/lib/} holds code of" $(cat "$tmp/parts") \
		"and none of them uses all the others (README Uses lines)"
done
[ "$nlib" -gt 0 ] || { echo "layering_test: no libraries in build/lib: make first" >&2; exit 1; }

[ "$status" -eq 0 ] && echo "layering_test: ok ($(echo $components | wc -w) components and kmod/npusim call down only; $nlib libraries each one component and what it uses)"
exit "$status"
