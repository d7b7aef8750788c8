#!/bin/sh
# tests/sql_consumer_test.sh - the consumer queries (tests/sql/*.sql, run by
# tests/sql/check.sh; 13-16 on the PyTorch tables) pass on the real 910B
# (torch_npu) fixtures, and each fails on a
# copy damaged the way it guards against. (The exports of the test scenarios
# and of replayed fixtures are checked in the VM: suite_50_export.sh.)
# Run by scripts/run-unit.sh as one test; prints "sql_consumer_test: ok|FAIL".
TEST=sql_consumer_test
. "$(dirname "$0")/testlib.sh"
C=tests/sql/check.sh
for f in tests/fixtures/real/*.db; do
	$C "$f" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$f: a consumer query fails on real data"; }
done
[ "$(grep -c ' ok$' "$tmp/out")" -ge 17 ] || { cat "$tmp/out"; fail "fewer than 17 queries ran"; }
# and on what our db writer writes (the synthetic generator), both schemas
G=${BUILD:-build}/tests/bin/dbgen
[ -x "$G" ] || fail "no $G (make first)"
for v in 1.1.1 1.2.0; do
	"$G" --tasks 3000 --schema $v -o "$tmp/gen_$v.db" >/dev/null || fail "dbgen $v"
	$C "$tmp/gen_$v.db" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "dbgen $v: a consumer query fails"; }
done
# each query can fail: damage a copy, expect that query's FAIL
damage() { # NAME SQL
	cp tests/fixtures/real/910b-level2-rank0.db "$tmp/d.db" && chmod u+w "$tmp/d.db"
	sqlite3 "$tmp/d.db" "$2" || fail "damaging for $1"
	$C "$tmp/d.db" >"$tmp/dout" 2>&1 && { cat "$tmp/dout"; fail "$1: passes on damaged data"; }
	grep -q "$1 *FAIL" "$tmp/dout" || { cat "$tmp/dout"; fail "$1 does not say FAIL"; }
}
damage 01_launch_string "UPDATE STRING_IDS SET value='x' WHERE value='launch'"
damage 02_task_api_join "UPDATE TASK SET connectionId=99999999 WHERE globalTaskId=10"
damage 03_launch_in_acl "UPDATE CANN_API SET startNs=startNs-100000000 WHERE type=10000 AND rowid=(SELECT min(rowid) FROM CANN_API WHERE type=10000)"
damage 04_global_pid "UPDATE TASK SET globalPid=globalPid+1 WHERE globalTaskId=3"
damage 05_global_task_id "UPDATE TASK SET globalTaskId=100000 WHERE globalTaskId=5"
damage 06_detail_joins "DELETE FROM TASK WHERE globalTaskId=(SELECT min(globalTaskId) FROM COMPUTE_TASK_INFO)"
damage 07_comm_op_links "UPDATE COMMUNICATION_OP SET connectionId=connectionId-1 WHERE opId=1"
damage 08_comm_op_groups "UPDATE TASK SET deviceId=7 WHERE globalTaskId=(SELECT min(globalTaskId) FROM COMMUNICATION_TASK_INFO)"
damage 09_rank_device_map "DROP TABLE RANK_DEVICE_MAP"
damage 10_mstx_task_join "CREATE TABLE MSTX_EVENTS(startNs,endNs,eventType,rangeId,category,message,globalTid,endGlobalTid,domainId,connectionId); INSERT INTO MSTX_EVENTS VALUES(1,2,2,4294967295,0,0,5,5,0,4000000007)"
damage 11_times "UPDATE TASK SET endNs=startNs-1 WHERE globalTaskId=2"
damage 12_enums "DELETE FROM ENUM_API_TYPE WHERE id=10000"
# the PyTorch tables (our exports' are checked by tests/unit/test_fwk.c)
damage 13_fwk_cann_links "UPDATE CONNECTION_IDS SET connectionId=(SELECT connectionId FROM CANN_API WHERE type=5000 LIMIT 1) WHERE rowid=(SELECT min(rowid) FROM CONNECTION_IDS WHERE connectionId IN (SELECT connectionId FROM CANN_API WHERE type=10000))"
damage 14_fwk_device_join "DELETE FROM CONNECTION_IDS WHERE connectionId IN (SELECT connectionId FROM CANN_API WHERE type=10000)"
damage 15_step_time "UPDATE STEP_TIME SET endNs=endNs-1"
damage 16_fwk_ids "UPDATE CONNECTION_IDS SET id=id+1000 WHERE id=0"
damage 17_aicore_freq "DELETE FROM AICORE_FREQ"
damage 17_aicore_freq "UPDATE AICORE_FREQ SET freq=0 WHERE rowid=1"
damage 17_aicore_freq "DELETE FROM AICORE_FREQ WHERE timestampNs=(SELECT startTimeNs FROM SESSION_TIME_INFO)"
echo "$TEST: ok"
