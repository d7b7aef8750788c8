-- msprof-analyze filters by enum names (node; acl/runtime/node/model
-- prefixes); the CANN rows only, torch_npu inserts 50001-50004 itself.
-- 5500 is `hccl` in 1.0.0 files and `communication` from 1.1.
SELECT CASE
  WHEN (SELECT group_concat(id || ':' || name, ',') FROM (SELECT * FROM ENUM_API_TYPE
        WHERE id < 50000 ORDER BY id)) NOT IN
        ('5000:runtime,5500:hccl,10000:node,15000:model,20000:acl',
         '5000:runtime,5500:communication,10000:node,15000:model,20000:acl')
    THEN 'FAIL ENUM_API_TYPE: ' || (SELECT group_concat(id || ':' || name, ',') FROM ENUM_API_TYPE)
  WHEN (SELECT count(*) FROM sqlite_master WHERE name = 'META_DATA') = 0 THEN 'FAIL no META_DATA'
  WHEN (SELECT count(*) FROM ENUM_HCCL_DATA_TYPE WHERE name IN ('INT8','INT16','INT32','FP16',
        'FP32','INT64','UINT64','UINT8','UINT16','UINT32','FP64','BFP16','INT128')) <> 13
    THEN 'FAIL ENUM_HCCL_DATA_TYPE names'
  ELSE 'ok' END;
