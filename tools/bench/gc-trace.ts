/**
 * Readings of what a service process says about its heap, for tools/bench/in-flight-heap.ts:
 * V8's `--trace-gc` lines in its log and prom-client's text on /metrics. Pure, for the unit tests.
 */

/** A full GC's line in `--trace-gc` output: `Mark-Compact 58.8 (82.7) -> 45.7 (85.5) MB, ...`. */
const MARK_COMPACT = /Mark-Compact(?: \(reduce\))? ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/g;

/**
 * The heap (MB) each full GC in `log` left: what was live then, garbage excluded. A scavenge's
 * result is not one: it leaves the old generation's garbage in place.
 */
export function liveHeapsAfterFullGc(log: string): number[] {
  return [...log.matchAll(MARK_COMPACT)].map((m) => Number(m[3]));
}

/** The sum of a metric's samples, every label set, in a Prometheus text exposition; `only` keeps the samples whose labels contain it. */
export function metricSum(exposition: string, name: string, only = ''): number {
  let sum = 0;
  for (const line of exposition.split('\n')) {
    if ((line.startsWith(`${name} `) || line.startsWith(`${name}{`)) && line.includes(only)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}
