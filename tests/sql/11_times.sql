-- §5.9: endNs >= startNs (TASK, CANN_API, COMMUNICATION_OP); TASK inside
-- SESSION_TIME_INFO; HOST_INFO's first row names the host.
SELECT CASE
  WHEN (SELECT count(*) FROM TASK WHERE endNs < startNs) +
       (SELECT count(*) FROM CANN_API WHERE endNs < startNs) +
       (SELECT count(*) FROM COMMUNICATION_OP WHERE endNs < startNs) > 0 THEN 'FAIL endNs < startNs'
  WHEN (SELECT count(*) FROM TASK) > 0 AND ((SELECT min(startNs) FROM TASK) <
        (SELECT startTimeNs FROM SESSION_TIME_INFO) OR (SELECT max(endNs) FROM TASK) >
        (SELECT endTimeNs FROM SESSION_TIME_INFO)) THEN 'FAIL TASK outside SESSION_TIME_INFO'
  WHEN (SELECT hostUid FROM HOST_INFO LIMIT 1) IS NULL OR (SELECT hostUid FROM HOST_INFO LIMIT 1) = ''
    THEN 'FAIL no HOST_INFO'
  ELSE 'ok' END;
