#!/bin/sh
# The `make bench` summary: every RESULT line of a benchmark log as one row
# of a table (measure, target, value, HIT/MISS), the same rows appended to a
# history file with date and git revision.
#
#   scripts/bench-table.sh LOG [HISTORY [REVISION [EXPECTED]]]
#
# A RESULT line is RESULT<TAB>measure<TAB>value<TAB>op<TAB>target, op `<=` or
# `>=`, value and target plain numbers (helper protocol); it may follow other
# text on its line (the VM console prefixes nothing, but a \r may end it).
# It may go on with <TAB>lo<TAB>hi: the spread of the value over the
# benchmark's interleaved rounds (min..max). Where the target lies inside
# the spread the rounds disagree about it, and the row says so: "HIT
# (within noise)" or "MISS (within noise)"; a MISS within noise does not
# fail the table (issue 30: only a difference the rounds agree on does).
# An information row (a measure with no target, e.g. the VM bench's floors)
# has op `info` and target `-`: its row says "info" and never fails.
# A measure printed twice keeps its last value. EXPECTED is a file of
# "measure<TAB>op<TAB>target" lines: an expected measure no benchmark printed
# is a MISS with value "-" (so a benchmark that stopped printing is seen).
# A value that is not a number is a MISS. Exit status: 0 if every row is a
# HIT, 1 if any is a MISS, 2 on bad usage.
set -u
[ $# -ge 1 ] || { echo "usage: $0 LOG [HISTORY [REVISION [EXPECTED]]]" >&2; exit 2; }
log=$1
hist=${2:-}
rev=${3:-unknown}
expected=${4:-/dev/null}
[ -r "$log" ] || { echo "$0: $log: cannot read" >&2; exit 2; }
[ -r "$expected" ] || { echo "$0: $expected: cannot read" >&2; exit 2; }
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tab=$(printf '\t')
rows=$(tr -d '\r' < "$log" | awk -F "$tab" -v exp_file="$expected" '
function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
BEGIN {
	n = 0
	while ((getline line < exp_file) > 0) {
		if (line ~ /^#/ || line == "") continue
		split(line, f, "\t")
		if (!(f[1] in seen)) { order[n++] = f[1]; seen[f[1]] = 1 }
		op[f[1]] = f[2]; target[f[1]] = f[3]; value[f[1]] = "-"
	}
}
{
	for (i = 1; i <= NF; i++) {
		if ($i !~ /RESULT$/ || substr($i, length($i) - 5) != "RESULT") continue
		if (length($i) > 6 && substr($i, length($i) - 6, 1) ~ /[A-Za-z0-9_]/) continue
		m = $(i + 1)
		if (m == "") break
		if (!(m in seen)) { order[n++] = m; seen[m] = 1 }
		value[m] = $(i + 2); op[m] = $(i + 3); target[m] = $(i + 4)
		lo[m] = $(i + 5); hi[m] = $(i + 6)
		break
	}
}
END {
	for (k = 0; k < n; k++) {
		m = order[k]; v = value[m]; o = op[m]; t = target[m]
		if (o == "info")
			verdict = "info"
		else if (!isnum(v) || !isnum(t) || (o != "<=" && o != ">="))
			verdict = "MISS"
		else if (o == "<=")
			verdict = (v + 0 <= t + 0) ? "HIT" : "MISS"
		else
			verdict = (v + 0 >= t + 0) ? "HIT" : "MISS"
		spread = ""
		if (verdict != "MISS" || isnum(v)) if (isnum(lo[m]) && isnum(hi[m])) {
			spread = " (" lo[m] ".." hi[m] ")"
			if (isnum(t) && lo[m] + 0 <= t + 0 && t + 0 <= hi[m] + 0)
				verdict = verdict " (within noise)"
		}
		printf "%s\t%s %s\t%s%s\t%s\n", m, o, t, v, spread, verdict
	}
}')
[ -n "$rows" ] || { echo "$0: $log: no RESULT lines" >&2; exit 1; }
echo
echo "== issue 17 measures ($date, $rev)"
printf '%s\n' "$rows" | awk -F "$tab" '
BEGIN { w = 7 }
{ r[NR] = $0; if (length($1) > w) w = length($1) }
END {
	printf "%-" w "s  %-12s %24s  %s\n", "measure", "target", "value (spread)", "result"
	for (i = 1; i <= NR; i++) {
		split(r[i], f, "\t")
		printf "%-" w "s  %-12s %24s  %s\n", f[1], f[2], f[3], f[4]
	}
}'
if [ -n "$hist" ]; then
	mkdir -p "$(dirname "$hist")"
	[ -s "$hist" ] || printf 'date\trevision\tmeasure\ttarget\tvalue\tresult\n' > "$hist"
	printf '%s\n' "$rows" | awk -F "$tab" -v d="$date" -v r="$rev" 'BEGIN{OFS="\t"} {print d, r, $1, $2, $3, $4}' >> "$hist"
fi
printf '%s\n' "$rows" | awk -F "$tab" '$4 == "MISS" { bad = 1 } END { exit bad }'
