/**
 * What a service's heap holds at its in-flight cap (NATS_MAX_IN_FLIGHT), as measured with
 * tools/bench/in-flight-heap.ts on the distributed profile with the deployed Node flags
 * (docs/decisions/load-shedding.md, amendment of 2026-11-26). The manifest tests hold every
 * service's cap to `liveHeapAtCapMb(cap) <= old space / 2`.
 */
export const IN_FLIGHT_HEAP = {
  /**
   * Largest live heap (left by a full GC) of a service at the bench's load, 50 connections,
   * rounded up: 44-54 MB measured (order-transaction the largest).
   */
  restingLiveHeapMb: 55,
  /**
   * Live heap one more handler in flight holds, rounded up: the slope of the live heap over the
   * handlers in flight, 21-25 KB measured (order-transaction the largest).
   */
  perHandlerKb: 28,
} as const;

/** The live heap (MB) a service reaches with `cap` handlers in flight. */
export function liveHeapAtCapMb(cap: number): number {
  return IN_FLIGHT_HEAP.restingLiveHeapMb + (cap * IN_FLIGHT_HEAP.perHandlerKb) / 1024;
}
