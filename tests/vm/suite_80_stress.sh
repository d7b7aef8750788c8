# Stress (sourced by tests/vm/run.sh): random ioctls, odd mappings and
# concurrent opens and closes of /dev/npuprof and /dev/npusim<N> (the
# stress driver, as root and as nobody), module unload attempts while the
# devices are busy, and npusim unloaded and reloaded under running captures
# of both engines. The verdict that matters is the kernel's: scripts/vm.sh
# fails the run on any WARNING, BUG, Oops, lockdep, KASAN or leak report;
# afterwards the modules must load and unload in every order.
#
# About 2 minutes under TCG; each phase is bounded by time, not by count.

ST=$TB/stress
SX=/tmp/stress
s_up() {
	load_sim && { loaded npuprof || insmod $NPUPROF_KO; } && trace_on 0 1 &&
		chmod 0666 /dev/npusim* && rm -rf $SX && mkdir -p $SX && chmod 0777 $SX
}

# s_unloads N: try to unload both modules N times; each must be refused
# (something holds the devices open)
s_unloads() {
	i=0
	while [ $i -lt "$1" ]; do
		rmmod npuprof 2>/dev/null && { echo "npuprof unloaded while in use"; return 1; }
		rmmod npusim 2>/dev/null && { echo "npusim unloaded while in use"; return 1; }
		i=$((i + 1))
	done
	echo "$1 x 2 unload attempts refused"
}

# random ioctls from 4 threads while unloads are attempted; a holder keeps
# both devices open, so that every attempt must be refused
t_ioctl() {
	s_up || return 1
	sh -c 'exec 3</dev/npusim0 4</dev/npusim1 5</dev/npuprof; exec sleep 600' &
	holder=$!
	i=0
	while [ $i -lt 100 ] && [ ! -e /proc/$holder/fd/5 ]; do sleep 0.1; i=$((i + 1)); done
	$ST -s 25 -j 4 ioctl > $SX/root.out 2>&1 &
	sp=$!
	s_unloads 50 || { kill $sp $holder; wait; return 1; }
	wait $sp
	rc=$?
	$ST -u -s 12 -j 4 ioctl > $SX/nobody.out 2>&1
	rc2=$?
	kill $holder; wait $holder 2>/dev/null
	cat $SX/root.out $SX/nobody.out
	[ $rc = 0 ] && [ $rc2 = 0 ]
}

# odd mappings, as root (rings with records in them) and as nobody
t_mmap() {
	s_up || return 1
	$ST -s 10 mmap && $ST -u -s 5 mmap
}

# opens and closes from 6 threads, some closing with a capture running or
# tasks queued, as root and as nobody at once
t_openclose() {
	s_up || return 1
	$ST -u -s 10 -j 3 openclose > $SX/oc.out 2>&1 &
	up=$!
	$ST -s 10 -j 3 openclose
	rc=$?
	wait $up
	rc2=$?
	cat $SX/oc.out
	[ $rc = 0 ] && [ $rc2 = 0 ]
}

# reloads ENGINE N: a capture of ENGINE (drain) runs while workloads come
# and go and npusim is unloaded and reloaded N times between them; npuprof
# cannot be unloaded under the kmod capture. Prints what the capture saw.
reloads() {
	s_up || return 1
	$TB/drain $1 > $SX/drain.out 2>&1 &
	dp=$!
	sleep 3 # the BPF engine takes a while to load under TCG
	rm -f $SX/stop
	sh -c "while [ ! -f $SX/stop ]; do build/bin/npuwork --scenario flood --tasks 3000 --devices 2 --quiet 2>/dev/null; sleep 0.1; done" &
	wl=$!
	n=0 refused=0 i=0
	while [ $i -lt "$2" ]; do
		if [ "$1" = kmod ] && rmmod npuprof 2>/dev/null; then
			echo "npuprof unloaded under a capture"
			touch $SX/stop; kill -INT $dp; wait; return 1
		fi
		if rmmod npusim 2>/dev/null; then
			n=$((n + 1))
			insmod $NPUSIM_KO || { touch $SX/stop; kill -INT $dp; wait; return 1; }
			trace_on 0 1; chmod 0666 /dev/npusim*
		else
			refused=$((refused + 1))
		fi
		sleep 0.2
		i=$((i + 1))
	done
	touch $SX/stop
	wait $wl
	kill -INT $dp
	wait $dp
	rc=$?
	cat $SX/drain.out
	echo "$1: npusim reloaded $n times under the capture, $refused unloads refused (in use)"
	[ $rc = 0 ] && [ $n -gt 0 ] || [ "$1" = bpf ] && [ $rc = 0 ]
}

t_reload_kmod() { reloads kmod 12; }
# a BPF program attached to npusim's tracepoints may pin the module (the
# kernel takes a reference for raw tracepoints of modules): refusals are
# fine, reloads when it lets go too
t_reload_bpf() { reloads bpf 8; }

# afterwards: every load and unload order, and a capture still works
t_orders() {
	cleanup_modules
	for o in "sim prof sim prof" "sim prof prof sim" "prof sim sim prof" "prof sim prof sim"; do
		set -- $o
		for m in $1 $2; do insmod kmod/npu$m/npu$m.ko || return 1; done
		for m in $3 $4; do rmmod npu$m || return 1; done
	done
	load_sim && insmod $NPUPROF_KO || return 1
	n=$(build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 1 --quiet | sed -n 's/^ *\([0-9]*\)  submit .*/\1/p')
	echo "a capture after the stress: $n submits"
	[ "$n" = 68 ] && rmmod npuprof && rmmod npusim
}

run stress.ioctl t_ioctl
run stress.mmap t_mmap
run stress.openclose t_openclose
run stress.reload_kmod t_reload_kmod
run stress.reload_bpf t_reload_bpf
run stress.orders t_orders
cleanup_modules
