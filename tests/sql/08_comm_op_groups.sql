-- msprof-analyze's communication summary and torch_npu: TASK grouped by a
-- COMMUNICATION_OP's connectionId has one deviceId and one modelId, and
-- every op has tasks.
SELECT CASE WHEN count(*) = 0 THEN 'ok'
  ELSE 'FAIL ' || count(*) || ' ops whose tasks are missing or span devices/models' END
FROM COMMUNICATION_OP o
WHERE (SELECT count(*) FROM TASK t WHERE t.connectionId = o.connectionId) = 0
   OR (SELECT count(DISTINCT deviceId) FROM TASK t WHERE t.connectionId = o.connectionId) <> 1
   OR (SELECT count(DISTINCT modelId) FROM TASK t WHERE t.connectionId = o.connectionId) <> 1;
