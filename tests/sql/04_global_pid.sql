-- §5.4 / Insight: TASK.globalPid is the plain PID = CANN_API.globalTid >> 32.
SELECT CASE
  WHEN (SELECT count(*) FROM CANN_API) = 0 THEN 'ok'
  WHEN (SELECT count(*) FROM (SELECT DISTINCT globalPid p FROM TASK)
        WHERE p NOT IN (SELECT DISTINCT globalTid >> 32 FROM CANN_API)) > 0
    THEN 'FAIL TASK.globalPid not among CANN_API.globalTid >> 32'
  ELSE 'ok' END;
