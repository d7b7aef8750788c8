-- msprof-analyze's freq_analysis recipe (cluster_analyse/recipes/
-- freq_analysis) reads a PyTorch database's AICORE_FREQ (`select deviceId,
-- freq from AICORE_FREQ`) and RANK_DEVICE_MAP (`select rankId`): a rank
-- without AICORE_FREQ rows fails it ("No aic freq data found"); the set of
-- a rank's frequencies is its verdict ({1800} normal, {800, 1800} idle
-- down-clocking, anything else abnormal). msprof writes the frequency at
-- the session's start, each change, and the last at the end (§3.14). So:
-- a PyTorch database with device tasks has AICORE_FREQ rows; every row is
-- of an NPU_INFO device, its freq a positive integer (MHz), its time inside
-- SESSION_TIME_INFO; each device with rows has one at the session's start.
SELECT CASE
  WHEN (SELECT count(*) FROM PYTORCH_API) > 0 AND (SELECT count(*) FROM TASK) > 0
       AND (SELECT count(*) FROM AICORE_FREQ) = 0
    THEN 'FAIL a PyTorch database with device tasks has no AICORE_FREQ rows (freq_analysis fails)'
  WHEN (SELECT count(*) FROM AICORE_FREQ WHERE deviceId NOT IN (SELECT id FROM NPU_INFO)) > 0
    THEN 'FAIL AICORE_FREQ rows of a device not in NPU_INFO'
  WHEN (SELECT count(*) FROM AICORE_FREQ WHERE typeof(freq) <> 'integer' OR freq <= 0) > 0
    THEN 'FAIL AICORE_FREQ.freq not a positive integer (MHz)'
  WHEN (SELECT count(*) FROM AICORE_FREQ, SESSION_TIME_INFO s
        WHERE timestampNs < s.startTimeNs OR timestampNs > s.endTimeNs) > 0
    THEN 'FAIL AICORE_FREQ rows outside the session'
  WHEN (SELECT count(*) FROM (SELECT DISTINCT deviceId d FROM AICORE_FREQ)
        WHERE d NOT IN (SELECT f.deviceId FROM AICORE_FREQ f, SESSION_TIME_INFO s
                        WHERE f.timestampNs = s.startTimeNs)) > 0
    THEN 'FAIL a device''s AICORE_FREQ has no row at the session''s start'
  ELSE 'ok' END;
