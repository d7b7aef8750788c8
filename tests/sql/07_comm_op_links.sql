-- §5.1, §5.5: COMMUNICATION_OP.connectionId is a node `launch`; the small
-- tasks (COMMUNICATION_TASK_INFO) point at their op (opId), share its name
-- and groupName, and their TASK rows carry the op's connectionId.
SELECT CASE
  WHEN (SELECT count(*) FROM COMMUNICATION_OP o WHERE NOT EXISTS
        (SELECT 1 FROM CANN_API a WHERE a.connectionId = o.connectionId AND a.type = 10000
            AND a.name = (SELECT id FROM STRING_IDS WHERE value = 'launch'))) > 0
    THEN 'FAIL COMMUNICATION_OP rows whose connectionId is no node launch'
  WHEN (SELECT count(*) FROM COMMUNICATION_TASK_INFO c LEFT JOIN COMMUNICATION_OP o
        ON o.opId = c.opId WHERE o.opId IS NULL OR c.name <> o.opName
           OR c.groupName <> o.groupName) > 0
    THEN 'FAIL COMMUNICATION_TASK_INFO rows not matching their op (opId, name, groupName)'
  WHEN (SELECT count(*) FROM COMMUNICATION_TASK_INFO c JOIN COMMUNICATION_OP o ON o.opId = c.opId
        JOIN TASK t ON t.globalTaskId = c.globalTaskId WHERE t.connectionId <> o.connectionId) > 0
    THEN 'FAIL small tasks not carrying their op''s connectionId'
  ELSE 'ok' END;
