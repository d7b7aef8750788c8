-- PyTorch DB (§5.7): STEP_TIME has one row per step, id the n of the
-- `ProfilerStep#<n>` op, with that op's start and end; every ProfilerStep op
-- has its row; a step holds the torch ops (50001) of its thread that start
-- in it (msprof-analyze cuts its analyses by these ranges; python trace
-- frames, 50003, may outlast it).
WITH st AS (SELECT p.globalTid g, CAST(p.startNs AS INTEGER) s, CAST(p.endNs AS INTEGER) e,
                   CAST(substr(n.value, 14) AS INTEGER) id
            FROM PYTORCH_API p JOIN STRING_IDS n ON n.id = p.name
            WHERE p.type = 50001 AND n.value GLOB 'ProfilerStep#[0-9]*'),
     spill AS (SELECT p.rowid r FROM PYTORCH_API p JOIN st ON p.globalTid = st.g
               WHERE p.type = 50001 AND CAST(p.startNs AS INTEGER) >= st.s AND CAST(p.startNs AS INTEGER) <= st.e
                 AND CAST(p.endNs AS INTEGER) > st.e)
SELECT CASE
  WHEN (SELECT count(*) FROM STEP_TIME WHERE endNs < startNs) > 0
    THEN 'FAIL STEP_TIME rows ending before they start'
  WHEN (SELECT count(*) FROM STEP_TIME) <> (SELECT count(DISTINCT id) FROM STEP_TIME)
    THEN 'FAIL STEP_TIME ids repeat'
  WHEN (SELECT count(*) FROM st) > 0 AND (SELECT count(*) FROM STEP_TIME t
        WHERE NOT EXISTS (SELECT 1 FROM st WHERE st.id = t.id AND st.s = t.startNs
                          AND st.e = t.endNs)) > 0
    THEN 'FAIL STEP_TIME rows without their ProfilerStep op'
  WHEN (SELECT count(*) FROM st WHERE id NOT IN (SELECT id FROM STEP_TIME)) > 0
    THEN 'FAIL ProfilerStep ops without a STEP_TIME row'
  WHEN (SELECT count(*) FROM spill) > 0
    THEN 'FAIL ' || (SELECT count(*) FROM spill) || ' ops start in a step and end after it'
  ELSE 'ok' END;
