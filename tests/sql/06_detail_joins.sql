-- §5.2 / msprof-analyze: COMPUTE_TASK_INFO and COMMUNICATION_TASK_INFO join
-- TASK on globalTaskId (torch_npu reads COMPUTE_TASK_INFO ⋈ TASK names).
SELECT CASE
  WHEN (SELECT count(*) FROM COMPUTE_TASK_INFO c WHERE NOT EXISTS
        (SELECT 1 FROM TASK t WHERE t.globalTaskId = c.globalTaskId)) > 0
    THEN 'FAIL COMPUTE_TASK_INFO rows without TASK'
  WHEN (SELECT count(*) FROM COMMUNICATION_TASK_INFO c WHERE NOT EXISTS
        (SELECT 1 FROM TASK t WHERE t.globalTaskId = c.globalTaskId)) > 0
    THEN 'FAIL COMMUNICATION_TASK_INFO rows without TASK'
  ELSE 'ok' END;
