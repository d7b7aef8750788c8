#!/bin/sh
# scripts/bench-table.sh: RESULT lines parsed (tabs, a console's \r, text
# before RESULT, the last value of a measure printed twice), HIT/MISS at and
# around the target for both operators, a missing expected measure and a
# non-numeric value are MISSes, the history rows carry date and revision,
# and the exit status says whether everything was a HIT.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
T=$(printf '\t')

printf 'noise\nRESULT\tlow ok\t0.2\t<=\t0.2\r\n' > "$t/log"
printf '[ 12.3] vm: RESULT\thigh ok\t59.8\t>=\t50\n' >> "$t/log"
printf 'RESULT\tlow bad\t0.27\t<=\t0.2\n' >> "$t/log"
printf 'RESULT\thigh bad\t0.52\t>=\t0.9\n' >> "$t/log"
printf 'RESULT\ttwice\t5\t<=\t1\nRESULT\ttwice\t0.5\t<=\t1\n' >> "$t/log"
printf 'RESULT\tnot a number\tn/a\t>=\t1\n' >> "$t/log"
printf 'RESULT\tbad op\t1\t<\t2\n' >> "$t/log"
printf 'RESULT\tsci\t1e-3\t<=\t0.01\n' >> "$t/log"
printf 'NORESULT\tignored\t1\t<=\t2\n' >> "$t/log"
# with the spread of the rounds (lo, hi): a target inside it is noise
printf 'RESULT\tnoisy miss\t0.25\t<=\t0.2\t0.15\t0.4\n' >> "$t/log"
printf 'RESULT\tnoisy hit\t0.18\t<=\t0.2\t0.1\t0.3\n' >> "$t/log"
printf 'RESULT\tclear miss\t0.5\t<=\t0.2\t0.4\t0.6\n' >> "$t/log"
# an information row: no target, never a MISS
printf 'RESULT\tfloor info\t0.05\tinfo\t-\t0.01\t0.09\n' >> "$t/log"
printf 'missing\t>=\t1\nlow ok\t<=\t0.2\n' > "$t/expected"

"$root/scripts/bench-table.sh" "$t/log" "$t/hist.tsv" abc123 "$t/expected" > "$t/out"
rc=$?
[ $rc -eq 1 ] || no "exit status $rc with misses, want 1"
cat "$t/out"
verdict() { awk -F "$T" -v m="$1" '$3 == m { v = $6 } END { print v }' "$t/hist.tsv"; }
value() { awk -F "$T" -v m="$1" '$3 == m { print $5 }' "$t/hist.tsv" | tail -n 1; }
for m in "low ok:HIT" "high ok:HIT" "low bad:MISS" "high bad:MISS" "twice:HIT" \
	"not a number:MISS" "bad op:MISS" "sci:HIT" "missing:MISS" \
	"noisy miss:MISS (within noise)" "noisy hit:HIT (within noise)" "clear miss:MISS" \
	"floor info:info"; do
	name=${m%:*}
	want=${m##*:}
	got=$(verdict "$name")
	[ "$got" = "$want" ] || no "$name: $got, want $want"
done
grep -q ignored "$t/out" && no "NORESULT line taken as a result"
[ "$(value twice)" = 0.5 ] || no "twice: value $(value twice), want the last one (0.5)"
[ "$(value missing)" = - ] || no "missing: value $(value missing), want -"
[ "$(grep -c "low ok" "$t/out")" = 1 ] || no "an expected measure that was printed appears twice"
n=$(awk -F "$T" 'NR > 1 && $2 == "abc123" && $1 ~ /^20[0-9][0-9]-/' "$t/hist.tsv" | wc -l)
[ "$n" = 13 ] || no "history: $n rows with date and revision, want 13"
grep -q "noisy miss.*0.25 (0.15..0.4)" "$t/out" || no "the table does not show a spread"
head -n 1 "$t/hist.tsv" | grep -q "^date${T}revision${T}measure" || no "history has no header"
# a second run appends; only HITs: exit 0
printf 'RESULT\tlow ok\t0.1\t<=\t0.2\n' > "$t/log2"
"$root/scripts/bench-table.sh" "$t/log2" "$t/hist.tsv" def456 > /dev/null
rc=$?
[ $rc -eq 0 ] || no "exit status $rc with only hits, want 0"
[ "$(grep -c '^date' "$t/hist.tsv")" = 1 ] || no "header written twice"
grep -q "${T}def456${T}low ok${T}<= 0.2${T}0.1${T}HIT\$" "$t/hist.tsv" || no "second run not appended"
# misses within noise only: exit 0
printf 'RESULT\tnoisy miss\t0.25\t<=\t0.2\t0.15\t0.4\n' > "$t/log4"
"$root/scripts/bench-table.sh" "$t/log4" > /dev/null
rc=$?
[ $rc -eq 0 ] || no "exit status $rc with a miss within noise only, want 0"
# information rows only: exit 0
printf 'RESULT\tfloor info\t0.5\tinfo\t-\n' > "$t/log5"
"$root/scripts/bench-table.sh" "$t/log5" > /dev/null
rc=$?
[ $rc -eq 0 ] || no "exit status $rc with information rows only, want 0"
# no RESULT line at all is an error
echo nothing > "$t/log3"
"$root/scripts/bench-table.sh" "$t/log3" > /dev/null 2>&1 && no "a log without RESULT lines passed"
[ $fail -eq 0 ] && echo "bench_table_test: ok"
exit $fail
