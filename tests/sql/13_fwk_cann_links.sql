-- PyTorch DB (§4.1, §5.1): CONNECTION_IDS links a torch op or task-queue
-- range to the CANN calls it caused, the route torch_npu and msprof-analyze
-- take from framework to CANN (PYTORCH_API.connectionId -> CONNECTION_IDS.id,
-- CONNECTION_IDS.connectionId -> CANN_API). A linked CANN call is a node
-- `launch` (10000) or an acl (20000) call that starts after its framework
-- row does (with torch_npu's task queue the launch runs later on the queue's
-- thread, so not inside the op), no CANN call is linked from two framework
-- rows, and every node `launch` inside an op (50001) or queue (50002) range
-- of its own thread is linked.
-- (PYTORCH_API.startNs/endNs are TEXT in torch_npu's files: cast.)
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
WITH l AS (SELECT CAST(p.startNs AS INTEGER) ps, a.startNs s, a.type ty, a.connectionId c,
                  p.connectionId id
           FROM PYTORCH_API p JOIN CONNECTION_IDS c ON c.id = p.connectionId
           JOIN CANN_API a ON a.connectionId = c.connectionId),
     lost AS (SELECT a.connectionId c FROM CANN_API a
              WHERE a.type = 10000
                AND a.connectionId NOT IN (SELECT connectionId FROM CONNECTION_IDS)
                AND (SELECT fr.m FROM fr WHERE fr.g = a.globalTid AND fr.s <= a.startNs ORDER BY fr.s DESC, fr.e DESC LIMIT 1) >= a.endNs)
SELECT CASE
  WHEN (SELECT count(*) FROM l WHERE s < ps OR ty NOT IN (10000, 20000)) > 0
    THEN 'FAIL ' || (SELECT count(*) FROM l WHERE s < ps OR ty NOT IN (10000, 20000)) ||
         ' linked CANN calls before their framework row or not launch/acl, e.g. connectionId ' ||
         (SELECT min(c) FROM l WHERE s < ps OR ty NOT IN (10000, 20000))
  WHEN (SELECT count(*) FROM (SELECT c FROM l GROUP BY c HAVING count(DISTINCT id) > 1)) > 0
    THEN 'FAIL CANN calls linked from two framework rows'
  WHEN (SELECT count(*) FROM lost) > 0
    THEN 'FAIL ' || (SELECT count(*) FROM lost) ||
         ' launches inside a torch op of their thread not in CONNECTION_IDS, e.g. ' ||
         (SELECT min(c) FROM lost)
  ELSE 'ok' END;
