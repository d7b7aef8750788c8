#!/bin/sh
# tree_test: no committed file is one the tree ignores (.gitignore: build
# output, __pycache__, editor and patch leftovers) or looks like a backup
# (*.orig, *.rej, *~, *.bak, *.swp). Prints one line per offender and a
# summary; non-zero if there is any. Needs a git checkout (CI clones one).
set -u
cd "$(dirname "$0")/.." || exit 2
if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	echo "tree_test: not a git checkout: nothing to check against"
	exit 1
fi
bad=$( { git ls-files -ci --exclude-standard; git ls-files | grep -E '(\.orig|\.rej|~|\.bak|\.swp|\.pyc)$'; } | sort -u)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/tree_test: committed but ignored or a backup: /'
	echo "tree_test: git rm --cached the files above"
	exit 1
fi
echo "tree_test: ok ($(git ls-files | wc -l) files, none ignored or a backup)"
