-- torch_npu's analysis.db (ref. 2.4) as msprof-analyze's communication
-- recipes read it: communication_group_map (hccl_op_name, group_name of
-- CommAnalyzerTime), communication_time_sum (every column of
-- CommAnalyzerTime and CommAnalyzerBandwidth), communication_matrix_sum
-- (every column of CommAnalyzerMatrix, ranks as text, its *-total rows).
-- Times ms, sizes MB, bandwidth GB/s = MB / ms; an op's elapse splits into
-- transit + wait + idle, synchronization is part of wait; every bandwidth
-- row's op has its time row; matrix rows per link: top1, middle, bottom1,
-- total (bottom2/3 with more ops).
WITH t AS (SELECT hccl_op_name, group_name, start_timestamp, elapse_time, transit_time,
                  wait_time, synchronization_time, idle_time, step, type FROM CommAnalyzerTime),
     b AS (SELECT hccl_op_name, group_name, transport_type, transit_size, transit_time, bandwidth,
                  large_packet_ratio, package_size, count, total_duration, step, type
           FROM CommAnalyzerBandwidth),
     m AS (SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size,
                  transit_time, bandwidth, step, type, op_name FROM CommAnalyzerMatrix)
SELECT CASE
  WHEN (SELECT count(*) FROM t WHERE abs(elapse_time - transit_time - wait_time - idle_time) > 1e-6
        OR synchronization_time > wait_time + 1e-9 OR transit_time < 0 OR wait_time < 0
        OR elapse_time < 0) > 0
    THEN 'FAIL CommAnalyzerTime: elapse is not transit + wait + idle'
  WHEN (SELECT count(*) FROM t WHERE step NOT LIKE 'step%' OR type NOT IN ('p2p', 'collective', '')
        OR group_name IS NULL OR start_timestamp <= 0) > 0
    THEN 'FAIL CommAnalyzerTime: step, type, group or start'
  WHEN (SELECT count(*) FROM b WHERE transport_type NOT IN ('RDMA', 'HCCS', 'PCIE', 'SDMA', 'SIO')
        OR (transit_time > 0 AND abs(bandwidth - transit_size / transit_time) > 1e-3)
        OR large_packet_ratio < 0 OR large_packet_ratio > 1 OR count < 0) > 0
    THEN 'FAIL CommAnalyzerBandwidth: transport or bandwidth is not MB / ms'
  WHEN (SELECT count(*) FROM b WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.hccl_op_name = b.hccl_op_name
        AND t.group_name = b.group_name AND t.step = b.step AND t.type = b.type)) > 0
    THEN 'FAIL CommAnalyzerBandwidth rows without their CommAnalyzerTime row'
  WHEN (SELECT count(*) FROM m WHERE hccl_op_name NOT GLOB '*-top1' AND hccl_op_name NOT GLOB '*-middle'
        AND hccl_op_name NOT GLOB '*-bottom[123]' AND hccl_op_name NOT GLOB '*-total') > 0
    THEN 'FAIL CommAnalyzerMatrix: an op name without its -top1/-middle/-bottomN/-total'
  WHEN (SELECT count(*) FROM m WHERE src_rank GLOB '*[^0-9]*' OR dst_rank GLOB '*[^0-9]*'
        OR src_rank = '' OR dst_rank = '' OR type NOT IN ('p2p', 'collective') OR step NOT LIKE 'step%'
        OR (transit_time > 0 AND abs(bandwidth - transit_size / transit_time) > 1e-3)) > 0
    THEN 'FAIL CommAnalyzerMatrix: ranks, type, step or bandwidth'
  WHEN (SELECT count(*) FROM m x WHERE x.hccl_op_name GLOB '*-top1' AND NOT EXISTS
        (SELECT 1 FROM m y WHERE y.hccl_op_name = substr(x.hccl_op_name, 1, length(x.hccl_op_name) - 4)
         || 'total' AND y.group_name = x.group_name AND y.step = x.step AND y.src_rank = x.src_rank
         AND y.dst_rank = x.dst_rank)) > 0
    THEN 'FAIL CommAnalyzerMatrix: a link without its -total row'
  WHEN (SELECT count(*) FROM m WHERE hccl_op_name NOT GLOB '*-total' AND NOT EXISTS
        (SELECT 1 FROM t WHERE t.hccl_op_name = m.op_name AND t.group_name = m.group_name
         AND t.step = m.step)) > 0
    THEN 'FAIL CommAnalyzerMatrix: an op_name without its CommAnalyzerTime row'
  ELSE 'ok' END;
