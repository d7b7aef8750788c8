-- torch_npu _fwk_api_db_parser: the STRING_IDS id of `launch` is tested for
-- truthiness, so it must exist (when there are host APIs) and not be 0;
-- it then selects CANN_API rows of that name with type = 10000.
SELECT CASE
  WHEN (SELECT count(*) FROM CANN_API) = 0 THEN 'ok'
  WHEN (SELECT id FROM STRING_IDS WHERE value = 'launch') IS NULL THEN 'FAIL no STRING_IDS launch'
  WHEN (SELECT id FROM STRING_IDS WHERE value = 'launch') = 0 THEN 'FAIL launch is string id 0'
  WHEN (SELECT count(*) FROM CANN_API WHERE type = 10000 AND name =
        (SELECT id FROM STRING_IDS WHERE value = 'launch')) = 0 THEN 'FAIL no node-level launch rows'
  WHEN (SELECT count(*) FROM CANN_API WHERE type = 10000 AND name <>
        (SELECT id FROM STRING_IDS WHERE value = 'launch')) > 0 THEN 'FAIL node-level rows not named launch'
  ELSE 'ok' END;
