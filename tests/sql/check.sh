#!/bin/sh
# tests/sql/check.sh [--counts] DB... - the consumer queries of
# docs/ascend-reference.md §4-§5 (tests/sql/NN_*.sql) on msprof and PyTorch
# databases (13-16: the framework tables; trivially ok without them; 17:
# AICORE_FREQ as freq_analysis reads it; 18-19: torch_npu's analysis.db as
# msprof-analyze's communication and step trace analyses read it), through
# the sqlite3 shell. Each query prints one line: "ok" or "FAIL <what>".
# Tables a database leaves out (data tables are created only when non-empty)
# stand in as empty TEMP tables, as MindStudio Insight does.
# --counts also prints each table's row count. Exit 1 if any query failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
counts=0
[ "${1:-}" = --counts ] && { counts=1; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--counts] DB..." >&2; exit 2; }
stand_ins="TASK(startNs,endNs,deviceId,connectionId,globalTaskId,globalPid,taskType,contextId,streamId,taskId,modelId)
CANN_API(startNs,endNs,type,globalTid,connectionId,name)
COMPUTE_TASK_INFO(name,globalTaskId,blockDim,mixBlockDim,taskType,opType)
COMMUNICATION_OP(opName,startNs,endNs,connectionId,groupName,opId,relay,retry,dataType,algType,count,opType)
COMMUNICATION_TASK_INFO(name,globalTaskId,taskType,planeId,groupName,notifyId,rdmaType,srcRank,dstRank,transportType,size,dataType,linkType,opId)
MSTX_EVENTS(startNs,endNs,eventType,rangeId,category,message,globalTid,endGlobalTid,domainId,connectionId)
NPU_INFO(id,name)
HOST_INFO(hostUid,hostName)
SESSION_TIME_INFO(startTimeNs,endTimeNs)
PYTORCH_API(startNs,endNs,globalTid,connectionId,name,sequenceNumber,fwdThreadId,inputDtypes,inputShapes,callchainId,type)
CONNECTION_IDS(id,connectionId)
PYTORCH_CALLCHAINS(id,stack,stackDepth)
STEP_TIME(id,startNs,endNs)
MEMORY_RECORD(component,timestamp,totalAllocated,totalReserved,totalActive,streamPtr,deviceId)
AICORE_FREQ(deviceId,timestampNs,freq)
OP_MEMORY(name,size,allocationTime,releaseTime,activeReleaseTime,duration,activeDuration,allocationTotalAllocated,allocationTotalReserved,allocationTotalActive,releaseTotalAllocated,releaseTotalReserved,releaseTotalActive,streamPtr,deviceId)
CommAnalyzerTime(hccl_op_name,group_name,start_timestamp,elapse_time,transit_time,wait_time,synchronization_time,idle_time,step,type)
CommAnalyzerBandwidth(hccl_op_name,group_name,transport_type,transit_size,transit_time,bandwidth,large_packet_ratio,package_size,count,total_duration,step,type)
CommAnalyzerMatrix(hccl_op_name,group_name,src_rank,dst_rank,transport_type,transit_size,transit_time,bandwidth,step,type,op_name)
StepTraceTime(deviceId,step,computing,communication_not_overlapped,overlapped,communication,free,stage,bubble,communication_not_overlapped_and_exclude_receive,preparing)"
fail=0
for db in "$@"; do
	if [ ! -r "$db" ]; then
		echo "$db: cannot read" >&2
		fail=1
		continue
	fi
	have=$(sqlite3 -readonly "$db" "SELECT name FROM sqlite_master WHERE type='table'") || {
		echo "$db: not a database" >&2; fail=1; continue; }
	pre=""
	for t in $stand_ins; do
		name=${t%%(*}
		echo "$have" | grep -qx "$name" || pre="$pre CREATE TEMP TABLE $t;"
	done
	# torch_npu's analysis.db holds only its own tables: only the queries
	# whose first line names analysis.db apply to it
	adb=0
	echo "$have" | grep -qx StepTraceTime && ! echo "$have" | grep -qx STRING_IDS && adb=1
	echo "== $db"
	if [ $counts = 1 ]; then
		for name in $have; do
			printf '  %-34s %s\n' "$name" "$(sqlite3 -readonly "$db" "SELECT count(*) FROM \"$name\"")"
		done
	fi
	for q in "$here"/[0-9][0-9]_*.sql; do
		[ $adb = 0 ] || head -n 1 "$q" | grep -q 'analysis\.db' || continue
		out=$( { echo "$pre"; cat "$q"; } | sqlite3 -readonly -bail "$db" 2>&1)
		n=$(basename "$q" .sql)
		case $out in ok | FAIL*) ;; *) out="FAIL $(echo $out)" ;; esac
		printf '  %-22s %s\n' "$n" "$out"
		[ "$out" = ok ] || fail=1
	done
done
exit $fail
