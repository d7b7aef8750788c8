-- msprof-analyze CROSS JOINs RANK_DEVICE_MAP (exactly the local ranks): it
-- exists in every version, one row per NPU_INFO device, same ids.
SELECT CASE
  WHEN (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'RANK_DEVICE_MAP') = 0
    THEN 'FAIL no RANK_DEVICE_MAP'
  WHEN (SELECT count(*) FROM RANK_DEVICE_MAP) = 0 THEN 'FAIL RANK_DEVICE_MAP empty'
  WHEN (SELECT count(*) FROM NPU_INFO WHERE id NOT IN (SELECT deviceId FROM RANK_DEVICE_MAP)) > 0
    OR (SELECT count(*) FROM RANK_DEVICE_MAP WHERE deviceId NOT IN (SELECT id FROM NPU_INFO)) > 0
    OR (SELECT count(*) FROM RANK_DEVICE_MAP) <> (SELECT count(*) FROM NPU_INFO)
    THEN 'FAIL RANK_DEVICE_MAP devices differ from NPU_INFO'
  WHEN (SELECT count(*) FROM TASK WHERE deviceId NOT IN (SELECT deviceId FROM RANK_DEVICE_MAP)) > 0
    THEN 'FAIL TASK on a device missing from RANK_DEVICE_MAP'
  ELSE 'ok' END;
