# tests/testlib.sh - the prologue of the shell tests that scripts/run-unit.sh
# runs (install_test, recorder_lib_test, replay_test). Source it with the
# test's name set: TEST=name; . "$(dirname "$0")/testlib.sh"
# Then the shell is in the repository root, $tmp is a scratch directory
# removed at exit, and fail/note print "<name>: FAIL: ..." / "<name>: ...".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
tmp=$(mktemp -d "/tmp/npuprof-$TEST-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$TEST: FAIL: $*"; exit 1; }
note() { echo "$TEST: $*"; }
