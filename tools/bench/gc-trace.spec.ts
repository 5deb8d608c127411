import { liveHeapsAfterFullGc, metricSum } from './gc-trace';

describe("a service's heap, as its GC trace and /metrics give it", () => {
  it('reads the heap left by each full GC, and ignores scavenges and the log lines around them', () => {
    const log = [
      '{"level":30,"msg":"Nest application successfully started"}',
      '[19271:0x42291c30]      605 ms: Scavenge 4.1 (4.2) -> 3.6 (5.2) MB, 63.62 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
      '[19271:0x42291c30]    10884 ms: Mark-Compact 58.8 (82.7) -> 45.7 (85.5) MB, 122.60 / 0.07 ms  (+ 1.3 ms in 10 steps since start of marking) finalize incremental marking via task; GC in old space requested',
      '[19271:0x42291c30]    11020 ms: Mark-Compact (reduce) 47.1 (85.5) -> 44.9 (70.0) MB, 80.01 / 0.00 ms  (average mu = 0.9) memory pressure',
    ].join('\n');
    expect(liveHeapsAfterFullGc(log)).toEqual([45.7, 44.9]);
  });

  it('sums a metric over its label sets, or over those that match', () => {
    const exposition = [
      '# HELP gateway_messages_shed_total Requests refused',
      '# TYPE gateway_messages_shed_total counter',
      'gateway_messages_shed_total{subject="order-transaction.verify.v1"} 12',
      'gateway_messages_shed_total{subject="order-transaction.refund.v1"} 30',
      'gateway_messages_shed_totally_other 99',
      'gateway_db_pool_connections{schema="order_transaction",state="busy"} 10',
      'gateway_db_pool_connections{schema="order_transaction",state="max"} 10',
      'nodejs_heap_size_used_bytes 52428800',
    ].join('\n');
    expect(metricSum(exposition, 'gateway_messages_shed_total')).toBe(42);
    expect(metricSum(exposition, 'gateway_db_pool_connections', 'state="busy"')).toBe(10);
    expect(metricSum(exposition, 'nodejs_heap_size_used_bytes')).toBe(52428800);
    expect(metricSum(exposition, 'gateway_messages_shed_total', 'refund')).toBe(30);
  });
});
