-- PyTorch DB: the framework-to-device join (torch op -> CONNECTION_IDS ->
-- CANN_API -> TASK -> COMPUTE_TASK_INFO, msprof-analyze's free_analysis and
-- slow_rank recipes, torch_npu's kernel attribution) is complete: every
-- compute task whose CANN call lies inside a torch op or queue range of its
-- thread is reached from a framework row, and with such tasks the join has
-- rows at all.
-- fr: the op and queue ranges of each thread, with the latest end of any
-- range starting at or before each one (a running max), so "some range of
-- the thread contains [s, e]" is one index probe: the last range starting
-- at or before s has a running max >= e.
CREATE TEMP TABLE fr AS
  SELECT globalTid g, CAST(startNs AS INTEGER) s, CAST(endNs AS INTEGER) e,
         max(CAST(endNs AS INTEGER)) OVER (PARTITION BY globalTid
           ORDER BY CAST(startNs AS INTEGER), CAST(endNs AS INTEGER)
           ROWS UNBOUNDED PRECEDING) m
  FROM PYTORCH_API WHERE type IN (50001, 50002);
CREATE INDEX temp.fr_gse ON fr(g, s, e);
WITH reach AS (SELECT DISTINCT ci.globalTaskId g FROM PYTORCH_API p
               JOIN CONNECTION_IDS c ON c.id = p.connectionId
               JOIN CANN_API a ON a.connectionId = c.connectionId
               JOIN TASK t ON t.connectionId = a.connectionId
               JOIN COMPUTE_TASK_INFO ci ON ci.globalTaskId = t.globalTaskId),
     inside AS (SELECT DISTINCT ci.globalTaskId g FROM COMPUTE_TASK_INFO ci
                JOIN TASK t ON t.globalTaskId = ci.globalTaskId
                JOIN CANN_API a ON a.connectionId = t.connectionId
                WHERE (SELECT fr.m FROM fr WHERE fr.g = a.globalTid AND fr.s <= a.startNs ORDER BY fr.s DESC, fr.e DESC LIMIT 1) >= a.endNs)
SELECT CASE
  WHEN (SELECT count(*) FROM inside WHERE g NOT IN (SELECT g FROM reach)) > 0
    THEN 'FAIL ' || (SELECT count(*) FROM inside WHERE g NOT IN (SELECT g FROM reach)) ||
         ' of ' || (SELECT count(*) FROM inside) ||
         ' compute tasks launched inside a torch op are not reached from it'
  WHEN (SELECT count(*) FROM inside) > 0 AND (SELECT count(*) FROM reach) = 0
    THEN 'FAIL the join has no rows'
  ELSE 'ok' END;
