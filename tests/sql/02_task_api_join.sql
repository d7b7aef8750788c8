-- §5.1 / msprof-analyze: TASK joins CANN_API on connectionId, to the node
-- `launch` (10000) or an acl (20000) row. Only PROFILING_ENABLE/DISABLE and
-- MsTx device markers (connectionId >= 4000000001, they join MSTX_EVENTS)
-- may stay unlinked; every linked id resolves to exactly one CANN_API row.
WITH t AS (SELECT t.connectionId c, (SELECT value FROM STRING_IDS WHERE id = t.taskType) ty,
                  (SELECT count(*) FROM CANN_API a WHERE a.connectionId = t.connectionId) n,
                  (SELECT min(a.type) FROM CANN_API a WHERE a.connectionId = t.connectionId) lvl
           FROM TASK t)
SELECT CASE WHEN count(*) = 0 THEN 'ok'
  ELSE 'FAIL ' || count(*) || ' TASK rows without their host call, e.g. ' ||
       group_concat(DISTINCT ty) END
FROM t WHERE ty NOT IN ('PROFILING_ENABLE', 'PROFILING_DISABLE', 'MsTx')
         AND (n <> 1 OR lvl NOT IN (10000, 20000));
