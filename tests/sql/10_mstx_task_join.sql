-- §5.6 msprof-analyze mstx_sum / Insight: MSTX_EVENTS ranges
-- (eventType 2) and MarkEx marks (3) with a connectionId other than the
-- host-only values (4000000000, 4294967295) LEFT JOIN TASK on it: each must
-- find its device task, or the recipe subtracts NULLs. Every MarkEx mark
-- has its MsTx task; rangeId is always 4294967295, endGlobalTid = globalTid.
SELECT CASE
  WHEN (SELECT count(*) FROM MSTX_EVENTS m WHERE m.connectionId NOT IN (4000000000, 4294967295)
        AND NOT EXISTS (SELECT 1 FROM TASK t WHERE t.connectionId = m.connectionId)) > 0
    THEN 'FAIL ' || (SELECT count(*) FROM MSTX_EVENTS m WHERE m.connectionId NOT IN
        (4000000000, 4294967295) AND NOT EXISTS (SELECT 1 FROM TASK t WHERE
        t.connectionId = m.connectionId)) || ' MSTX_EVENTS rows whose connectionId points at no task'
  WHEN (SELECT count(*) FROM MSTX_EVENTS WHERE eventType = 3 AND connectionId IN
        (4000000000, 4294967295)) > 0 THEN 'FAIL MarkEx marks without a device link'
  WHEN (SELECT count(*) FROM MSTX_EVENTS WHERE rangeId <> 4294967295 OR endGlobalTid <> globalTid) > 0
    THEN 'FAIL MSTX_EVENTS rangeId/endGlobalTid'
  ELSE 'ok' END;
