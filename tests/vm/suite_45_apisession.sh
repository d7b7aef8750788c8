# API-driven sessions: CANN's profiling sample (tests/sdk/prof_sample, built
# with CMake against `make install-sdk` by tests/sdk/run.sh) profiles itself
# with aclprofInit/Start/Stop/Finalize (sourced by tests/vm/run.sh).
#   apisession.kmod      with npuprof.ko: self-capture; the session exports
#                        to TASK = its tasks, MSTX_EVENTS = its stamps,
#                        CANN_API = its calls; `npuprof export` of the
#                        parent of two sessions exports both
#   apisession.record    the same program under `npuprof record`: its
#                        aclprof* succeed, the note in its result path, the
#                        same rows as API-driven
#   apisession.unpriv    as nobody: capturing its own process is allowed
#   apisession.host      without npuprof.ko: one warning, a host-only
#                        session whose export has the same rows, times
#                        marked host-derived
#   apisession.parent    export of a parent directory with a damaged
#                        session fails and still exports the others
#   apisession.attach    tests/profapi/cann_app under `npuprof record`, once
#                        over npuprof's libprofapi.so and once over a
#                        libprofapi.so that is not npuprof's (CANN's
#                        collector route, tests/profapi/cann_profapi.c) on
#                        the library path: record says native, then
#                        attached, and both databases have the same CANN_API
#                        rows (the program runs no device task: TASK and
#                        what hangs on it come from the device, unit test
#                        test_cannrec_e2e checks them in host-only sessions)

AS_OUT=${NPUPROF_RESULTS:-/tmp}/apisession
SDK=build/sdk/prefix/lib64
PS=build/sdk/prof_sample/prof_sample
mkdir -p "$AS_OUT"

as_ready() {
	[ -x $PS ] || { echo "$PS missing: run tests/sdk/run.sh (make check does)"; return 1; }
	load_sim devices=1
}

as_npuprof() { loaded npuprof || insmod $NPUPROF_KO; }

# as_sample DIR [ROUNDS]: run the sample into result path DIR; its stdout
# in DIR.out, stderr in DIR.err
as_sample() {
	mkdir -p "$1" && chmod 0777 "$1"
	LD_LIBRARY_PATH=$SDK $PS "$1" ${2:-8} > "$1.out" 2> "$1.err"
	st=$?
	cat "$1.err"
	return $st
}

# as_db DIR: the database of the one PROF_* session in DIR
as_db() { ls "$1"/PROF_*/msprof_*.db 2>/dev/null | head -1; }

t_kmod() {
	as_ready && as_npuprof || return 1
	d=$AS_OUT/kmod
	rm -rf "$d"
	as_sample "$d" 8 || return 1
	[ ! -s "$d.err" ] || { echo "stderr not empty"; return 1; }
	n=$(ls -d "$d"/PROF_* | wc -l)
	[ "$n" -eq 1 ] || { echo "$n PROF_* dirs"; return 1; }
	p=$(ls -d "$d"/PROF_*)
	for f in npuprof.session kernel/npuprof.kernel.raw host/info.json host/start_info host/end_info \
		device_0/info.json.0 device_0/start_info.0 device_0/end_info.0; do
		[ -s "$p/$f" ] || { echo "$p/$f missing"; return 1; }
	done
	grep -q '^engine=kmod$' "$p/npuprof.session" || { cat "$p/npuprof.session"; return 1; }
	build/bin/npuprof export --quiet "$p" || return 1
	python3 tests/vm/apisession_check.py "$(as_db "$d")" "$d.out" stars || return 1
	# kept for apisession.record
	cp "$d.out" "$AS_OUT/kmod.expected" && echo "$p" > "$AS_OUT/kmod.session" || return 1
	# a second session into the same result path; export the parent
	as_sample "$d" 4 > /dev/null || return 1
	[ "$(ls -d "$d"/PROF_* | wc -l)" -eq 2 ] || return 1
	build/bin/npuprof export "$d" > "$d.export" || { cat "$d.export"; return 1; }
	cat "$d.export"
	grep -q '2 sessions in .* 0 failed' "$d.export" &&
		[ "$(ls "$d"/PROF_*/msprof_*.db | wc -l)" -eq 2 ]
}

t_record() {
	as_ready && as_npuprof || return 1
	d=$AS_OUT/rec
	rm -rf "$d" "$d.prof"
	mkdir -p "$d" && chmod 0777 "$d"
	# record's switches are the sample's own (ACL_API, TASK_TIME, MSPROFTX,
	# RUNTIME_API: the runtime-level rows), so that both databases match
	NPUPROF_SWITCHES=0x183 build/bin/npuprof record --quiet -o "$d.prof" -- \
		env LD_LIBRARY_PATH=$SDK $PS "$d" 8 \
		> "$d.out" 2> "$d.err" || { cat "$d.err"; return 1; }
	cat "$d.err"
	# record governs: nothing of the program's own in its result path but the note
	[ -z "$(ls -d "$d"/PROF_* 2>/dev/null)" ] || { echo "a PROF_* in the result path"; return 1; }
	p=$(ls -d "$d.prof"/PROF_*)
	[ "$(wc -l < "$d/npuprof_profile_location.txt")" -eq 1 ] &&
		grep -qF "$p" "$d/npuprof_profile_location.txt" || { cat "$d/npuprof_profile_location.txt"; return 1; }
	# the stdout of record's export precedes the sample's summary lines; keep key=value
	grep '=' "$d.out" > "$d.kv"
	[ -f "$AS_OUT/kmod.expected" ] || { echo "run apisession.kmod first"; return 1; }
	cmp "$d.kv" "$AS_OUT/kmod.expected" || return 1
	python3 tests/vm/apisession_check.py "$(ls "$(cat "$AS_OUT/kmod.session")"/msprof_*.db)" \
		"$AS_OUT/kmod.expected" stars \
		"$(as_db "$d.prof")"
}

t_unpriv() {
	as_ready && as_npuprof || return 1
	chmod 0666 /dev/npusim0 && trace_on 0 || return 1
	d=$AS_OUT/unpriv
	rm -rf "$d"
	mkdir -p "$d" && chmod 0777 "$d"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		env LD_LIBRARY_PATH=$SDK $PS "$d" 8 > "$d.out" 2> "$d.err"
	st=$?
	cat "$d.err"
	[ $st -eq 0 ] || return 1
	# nobody cannot read the driver's switches (0600), but they are on and
	# its tasks were captured: nothing to warn about
	[ ! -s "$d.err" ] || { echo "stderr not empty"; return 1; }
	p=$(ls -d "$d"/PROF_*)
	grep -q '^engine=kmod$' "$p/npuprof.session" || return 1
	[ "$(stat -c %u "$p/kernel/npuprof.kernel.raw")" -eq 65534 ] || return 1
	build/bin/npuprof export --quiet "$p" || return 1
	python3 tests/vm/apisession_check.py "$(as_db "$d")" "$d.out" stars || return 1
	# switched off by root: nothing arrives, and the one warning says why
	printf '0\n' > /proc/trs_chan/dev0-ts0/trace_enable || return 1
	rm -rf "$d" && mkdir -p "$d" && chmod 0777 "$d"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		env LD_LIBRARY_PATH=$SDK $PS "$d" 8 > "$d.out" 2> "$d.err"
	st=$?
	printf '1\n' > /proc/trs_chan/dev0-ts0/trace_enable || return 1
	cat "$d.err"
	[ $st -eq 0 ] || return 1
	[ "$(wc -l < "$d.err")" -eq 1 ] && grep -q 'no device task was captured.*trace_enable' "$d.err" ||
		{ echo "expected the switch warning only"; return 1; }
}

t_host() {
	as_ready || return 1
	if loaded npuprof; then rmmod npuprof || return 1; fi
	d=$AS_OUT/host
	rm -rf "$d"
	as_sample "$d" 8
	st=$?
	as_npuprof
	[ $st -eq 0 ] || return 1
	n=$(grep -c 'warning' "$d.err")
	[ "$n" -eq 1 ] && [ "$(wc -l < "$d.err")" -eq 1 ] || { echo "$n warnings"; return 1; }
	grep -q '/dev/npuprof' "$d.err" || return 1
	p=$(ls -d "$d"/PROF_*)
	grep -q '^engine=host$' "$p/npuprof.session" || return 1
	[ ! -e "$p/kernel/npuprof.kernel.raw" ] || return 1
	build/bin/npuprof export --quiet "$p" || return 1
	python3 tests/vm/apisession_check.py "$(as_db "$d")" "$d.out" host
}

t_parent() {
	d=$AS_OUT/kmod
	[ -d "$d" ] || { echo "run apisession.kmod first"; return 1; }
	mkdir -p "$d/PROF_000009_20261201000000000_BADBADBADBADBADB" &&
		echo garbage > "$d/PROF_000009_20261201000000000_BADBADBADBADBADB/npuprof.session"
	build/bin/npuprof export --quiet "$d" > "$d.export2" 2>&1
	st=$?
	cat "$d.export2"
	rm -rf "$d/PROF_000009_20261201000000000_BADBADBADBADBADB"
	[ $st -ne 0 ] && grep -q '3 sessions in .* 1 failed' "$d.export2"
}

# as_rows DB: the API rows the attach test compares (name, level, span)
as_rows() {
	sqlite3 "$1" "SELECT s.value, a.type, a.endNs - a.startNs >= 0 FROM CANN_API a JOIN STRING_IDS s \
		ON s.id = a.name ORDER BY 1, 2" 2>&1
}

t_attach() {
	as_ready && as_npuprof || return 1
	app=build/tests/profapi/cann_app
	[ -x $app ] && [ -f build/tests/cannlib/libprofapi.so ] || { echo "build the tests first"; return 1; }
	for m in native attach; do
		d=$AS_OUT/attach-$m
		rm -rf "$d"
		if [ $m = attach ]; then
			LD_LIBRARY_PATH=build/tests/cannlib build/bin/npuprof record -o "$d" -- $app \
				> "$d.out" 2> "$d.err"
		else
			build/bin/npuprof record -o "$d" -- $app > "$d.out" 2> "$d.err"
		fi || { cat "$d.err"; return 1; }
		cat "$d.err"
		db=$(as_db "$d")
		[ -n "$db" ] || { echo "$m: no database"; return 1; }
		as_rows "$db" > "$d.rows"
		cat "$d.rows"
	done
	grep -q 'host API: native' "$AS_OUT/attach-native.err" &&
		grep -q 'host API: attached to build/tests/cannlib/libprofapi.so' "$AS_OUT/attach-attach.err" ||
		{ echo "record did not say which host API it used"; return 1; }
	[ "$(wc -l < "$AS_OUT/attach-attach.rows")" -eq 9 ] &&
		grep -qx 'HcclAllReduce|20000|1' "$AS_OUT/attach-attach.rows" ||
		{ echo "attached: not the 9 API rows"; return 1; }
	cmp "$AS_OUT/attach-native.rows" "$AS_OUT/attach-attach.rows"
}

run apisession.kmod t_kmod
run apisession.record t_record
run apisession.unpriv t_unpriv
run apisession.host t_host
run apisession.parent t_parent
run apisession.attach t_attach
cleanup_modules
