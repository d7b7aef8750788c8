-- torch_npu's analysis.db StepTraceTime (ref. 2.4) as msprof-analyze's
-- cluster step_trace_time analysis reads it (step, computing,
-- communication_not_overlapped, overlapped, communication, free, stage,
-- bubble, communication_not_overlapped_and_exclude_receive, preparing;
-- us): communication = overlapped + not overlapped, the not overlapped
-- part less bubble (never below 0) excludes receive, nothing negative
-- but preparing; one row per (device, step).
WITH s AS (SELECT deviceId, step, computing, communication_not_overlapped c_no, overlapped,
                  communication, free, stage, bubble,
                  communication_not_overlapped_and_exclude_receive c_no_rx, preparing
           FROM StepTraceTime)
SELECT CASE
  WHEN (SELECT count(*) FROM s WHERE abs(communication - overlapped - c_no) > 1e-6) > 0
    THEN 'FAIL StepTraceTime: communication is not overlapped + not overlapped'
  WHEN (SELECT count(*) FROM s WHERE abs(c_no_rx - max(c_no - bubble, 0)) > 1e-6) > 0
    THEN 'FAIL StepTraceTime: not overlapped excluding receive is not max(not overlapped - bubble, 0)'
  WHEN (SELECT count(*) FROM s WHERE computing < 0 OR c_no < 0 OR overlapped < -1e-9 OR free < 0
        OR bubble < 0 OR stage < -1e-9) > 0
    THEN 'FAIL StepTraceTime: negative times'
  WHEN (SELECT count(*) FROM s) <> (SELECT count(*) FROM (SELECT DISTINCT deviceId, step FROM s))
    THEN 'FAIL StepTraceTime: a (device, step) twice'
  ELSE 'ok' END;
