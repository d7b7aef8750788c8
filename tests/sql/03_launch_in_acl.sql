-- §5.1 / torch_npu: every node `launch` lies inside an acl-level range on the
-- same globalTid.
SELECT CASE WHEN count(*) = 0 THEN 'ok'
  ELSE 'FAIL ' || count(*) || ' node rows outside any acl range of their thread' END
FROM CANN_API n WHERE n.type = 10000 AND NOT EXISTS (
  SELECT 1 FROM CANN_API a WHERE a.type = 20000 AND a.globalTid = n.globalTid
     AND a.startNs <= n.startNs AND a.endNs >= n.endNs);
