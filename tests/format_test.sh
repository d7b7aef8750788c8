#!/bin/sh
# format_test: every tracked C file is formatted as .clang-format says
# (clang-format --dry-run -Werror). Prints one line; non-zero on a diff.
set -u
cd "$(dirname "$0")/.." || exit 2
command -v clang-format > /dev/null || { echo "format_test: clang-format missing: run scripts/deps.sh"; exit 1; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^tests/fixtures/')
[ -n "$files" ] || files=$(find user kmod bpf include tests -name '*.[ch]' ! -path 'tests/fixtures/*' ! -name '*.mod.c')
if out=$(echo "$files" | xargs clang-format --dry-run -Werror 2>&1) && [ -z "$out" ]; then
	echo "format_test: ok ($(echo "$files" | wc -l) files as .clang-format says)"
else
	echo "$out" | grep 'error:' | cut -d: -f1 | sort -u | sed 's/^/format_test: not formatted: /'
	echo "format_test: run clang-format -i on the files above"
	exit 1
fi
