-- §5.2: globalTaskId unique and dense from 0.
SELECT CASE WHEN count(*) = 0 OR (count(DISTINCT globalTaskId) = count(*)
                 AND min(globalTaskId) = 0 AND max(globalTaskId) = count(*) - 1) THEN 'ok'
  ELSE 'FAIL globalTaskId not unique/dense: ' || count(*) || ' rows, ' ||
       count(DISTINCT globalTaskId) || ' ids ' || min(globalTaskId) || '..' || max(globalTaskId) END
FROM TASK;
