#!/bin/sh
# The main job (`make demo`): profile npuwork's two-device training scenario
# on the simulated NPU with `npuprof record`, export the msprof database and
# print its report. Runs natively where this kernel can load our modules,
# else inside the test VM; either way the session directory and database
# end up in build/demo/ on this machine.
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--inside" ]; then
	kver=$(uname -r)
	if [ -z "${NPUPROF_IN_VM:-}" ] && [ -d "/lib/modules/$kver/build" ] &&
		[ -f /proc/modules ] && [ "$(id -u)" = 0 ]; then
		make -s kmod KVER="$kver"
		NPUPROF_RESULTS=build/demo
		rm -rf build/demo && mkdir -p build/demo
		export NPUPROF_RESULTS
		exec "$0" --inside
	fi
	VM_OUT=build/demo ./scripts/vm.sh "$0" --inside
	db=$(ls build/demo/PROF_*/msprof_*.db)
	echo
	echo "demo: session directory $(dirname "$db")"
	echo "demo: database          $db"
	exit 0
fi

out=${NPUPROF_RESULTS:-build/demo}
grep -q '^npusim ' /proc/modules || insmod kmod/npusim/npusim.ko
grep -q '^npuprof ' /proc/modules || insmod kmod/npuprof/npuprof.ko

# the default switches plus the runtime-level API rows (ACL_PROF_RUNTIME_API)
NPUPROF_SWITCHES=0x183 build/bin/npuprof record -o "$out" -- \
	build/bin/npuwork --scenario train --devices 2 --steps 4
db=$(ls "$out"/PROF_*/msprof_*.db)
echo
build/bin/npuprof report "$db"

rmmod npuprof
rmmod npusim
