-- PyTorch DB (§4.1, §4.2): CONNECTION_IDS.id and PYTORCH_CALLCHAINS.id are
-- dense from 0, each the key of exactly one PYTORCH_API row, every
-- PYTORCH_API.connectionId / callchainId resolves; a callchain's stackDepth
-- runs 0 .. n-1; framework strings (PYTORCH_API.name, stacks) are ids from
-- 1 << 28 and memory components (MEMORY_RECORD.component) from 2 << 28,
-- away from the CANN part of STRING_IDS; OP_MEMORY names (torch ops from
-- 2 << 28, GE ops from the CANN part) resolve.
SELECT CASE
  WHEN (SELECT count(*) FROM CONNECTION_IDS) > 0 AND ((SELECT min(id) FROM CONNECTION_IDS) <> 0
        OR (SELECT max(id) FROM CONNECTION_IDS) + 1 <> (SELECT count(DISTINCT id) FROM CONNECTION_IDS))
    THEN 'FAIL CONNECTION_IDS.id not dense from 0'
  WHEN (SELECT count(*) FROM PYTORCH_API WHERE connectionId IS NOT NULL
          AND connectionId NOT IN (SELECT id FROM CONNECTION_IDS)) > 0
    OR (SELECT count(DISTINCT id) FROM CONNECTION_IDS) <>
       (SELECT count(*) FROM PYTORCH_API WHERE connectionId IN (SELECT id FROM CONNECTION_IDS))
    THEN 'FAIL PYTORCH_API.connectionId and CONNECTION_IDS.id are not one to one'
  WHEN (SELECT count(*) FROM PYTORCH_CALLCHAINS) > 0 AND ((SELECT min(id) FROM PYTORCH_CALLCHAINS) <> 0
        OR (SELECT max(id) FROM PYTORCH_CALLCHAINS) + 1 <> (SELECT count(DISTINCT id) FROM PYTORCH_CALLCHAINS))
    THEN 'FAIL PYTORCH_CALLCHAINS.id not dense from 0'
  WHEN (SELECT count(*) FROM PYTORCH_API WHERE callchainId IS NOT NULL
          AND callchainId NOT IN (SELECT id FROM PYTORCH_CALLCHAINS)) > 0
    OR (SELECT count(DISTINCT id) FROM PYTORCH_CALLCHAINS) <>
       (SELECT count(*) FROM PYTORCH_API WHERE callchainId IN (SELECT id FROM PYTORCH_CALLCHAINS))
    THEN 'FAIL PYTORCH_API.callchainId and PYTORCH_CALLCHAINS.id are not one to one'
  WHEN (SELECT count(*) FROM (SELECT id FROM PYTORCH_CALLCHAINS GROUP BY id
          HAVING min(stackDepth) <> 0 OR max(stackDepth) + 1 <> count(DISTINCT stackDepth)
              OR count(*) <> count(DISTINCT stackDepth))) > 0
    THEN 'FAIL a callchain''s stackDepth is not 0 .. n-1'
  WHEN (SELECT count(*) FROM PYTORCH_API WHERE name < 268435456 OR name >= 536870912
          OR name NOT IN (SELECT id FROM STRING_IDS)) > 0
    OR (SELECT count(*) FROM PYTORCH_CALLCHAINS WHERE stack < 268435456 OR stack >= 536870912
          OR stack NOT IN (SELECT id FROM STRING_IDS)) > 0
    THEN 'FAIL framework strings outside 1 << 28 .. 2 << 28 or unresolved'
  WHEN (SELECT count(*) FROM MEMORY_RECORD WHERE component < 536870912
          OR component NOT IN (SELECT id FROM STRING_IDS)) > 0
    THEN 'FAIL memory components below 2 << 28 or unresolved'
  WHEN (SELECT count(*) FROM OP_MEMORY WHERE name NOT IN (SELECT id FROM STRING_IDS)) > 0
    THEN 'FAIL OP_MEMORY names unresolved'
  ELSE 'ok' END;
