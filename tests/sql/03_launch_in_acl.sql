-- §5.1 / torch_npu: every node `launch` lies inside an acl-level range on the
-- same globalTid. A launch is inside some acl range exactly when the latest
-- end among the thread's acl ranges that start no later than it reaches its
-- end: one ordered pass (a window), not a scan of every acl row per launch.
WITH ev AS (
  SELECT type, globalTid, startNs, endNs,
         max(CASE WHEN type = 20000 THEN endNs END) OVER (
           PARTITION BY globalTid ORDER BY startNs, type DESC
           ROWS UNBOUNDED PRECEDING) AS aclEnd
  FROM CANN_API WHERE type IN (10000, 20000))
SELECT CASE WHEN count(*) = 0 THEN 'ok'
  ELSE 'FAIL ' || count(*) || ' node rows outside any acl range of their thread' END
FROM ev WHERE type = 10000 AND (aclEnd IS NULL OR aclEnd < endNs);
