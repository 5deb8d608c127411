import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors as undiciErrors, Pool } from 'undici';
import { AnswerCheck, LoadResult, recordAnswer } from './results';
import type { LoadShape, Traffic } from './load';

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Open-loop load at a fixed rate: request n is due at `n / rate` seconds, whatever the answers
 * before it, over at most `connections` keep-alive sockets (undici's pool: the lightest client
 * to run beside the gateway). Its latency runs from when it was due, not from when a socket was
 * free to send it, so a gateway that falls behind shows it in every request that waited
 * (coordinated omission; docs/decisions/benchmark-method.md). autocannon's `overallRate` is not
 * this: each connection sends its share of a second back to back at the start of the second.
 * `connections: Infinity` opens a socket for every request that finds none free: no request then
 * waits in the client, however far the server falls behind (the overload scenario).
 * With BENCH_TRACE_FILE set, each answered request's timing is appended there, a JSON line each
 * (`timingLine`), to set beside the services' GC and event-loop records.
 */
export async function runSteadyLoad(
  traffic: Traffic,
  shape: LoadShape & { rate: number },
  sequence = { next: 0 },
): Promise<{ load: LoadResult; check: AnswerCheck }> {
  const timeoutMs = shape.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pool = new Pool(traffic.baseUrl, {
    connections: Number.isFinite(shape.connections) ? shape.connections : null,
    // Waiting for a connection is waiting for the answer too: a server whose accept queue is full
    // under overload leaves new connections pending (undici's own limit is 10 s).
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const headers: Record<string, string> = {
    ...(traffic.body ? { 'content-type': 'application/json' } : {}),
    ...traffic.headers,
  };
  const check: AnswerCheck = { expected: 0, unexpected: 0, samples: [] };
  const latencies: number[] = [];
  const counts = { errors: 0, timeouts: 0, non2xx: 0 };
  const inFlight = new Set<Promise<void>>();

  const traceFile = process.env.BENCH_TRACE_FILE;
  const timings: string[] = [];
  const send = async (n: number, path: string, due: number): Promise<void> => {
    const sentAt = performance.now();
    try {
      const response = await pool.request({ method: traffic.method, path, headers, ...(traffic.body ? { body: traffic.body } : {}) });
      const body = await response.body.text();
      const latencyMs = performance.now() - due;
      latencies.push(latencyMs);
      if (traceFile) timings.push(timingLine(due, sentAt, latencyMs, path));
      if (response.statusCode < 200 || response.statusCode > 299) counts.non2xx += 1;
      recordAnswer(check, traffic, response.statusCode, body);
      const retryAfter = response.headers['retry-after'];
      traffic.onAnswer?.(n, { status: response.statusCode, body, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, latencyMs });
    } catch (err) {
      const timedOut =
        err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
      if (timedOut) counts.timeouts += 1;
      else counts.errors += 1;
      traffic.onAnswer?.(n, { failed: timedOut ? 'timeout' : 'error', reason: failureReason(err) });
    }
  };

  const intervalMs = 1000 / shape.rate;
  const total = Math.max(1, Math.round(shape.rate * shape.durationSeconds));
  const start = performance.now();
  for (let n = 0; n < total; n += 1) {
    const due = start + n * intervalMs;
    const early = due - performance.now();
    if (early >= 1) {
      await sleep(early);
    }
    const number = sequence.next;
    sequence.next += 1;
    const sent = send(number, traffic.path(number), due).finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  if (traceFile) appendFileSync(traceFile, timings.join(''));
  return {
    load: { duration: seconds, requests: { total: latencies.length }, latency: percentiles(latencies), ...counts },
    check,
  };
}

/**
 * One answered request's timing, for BENCH_TRACE_FILE: when it was due (ms since the epoch, to
 * set beside other processes' clocks), how late the generator sent it, its latency, its path.
 * Which requests were slow, and when, is what tells a tail's cause (docs/performance.md).
 */
function timingLine(due: number, sentAt: number, latencyMs: number, path: string): string {
  return `${JSON.stringify({ due: performance.timeOrigin + due, sendLateMs: sentAt - due, ms: latencyMs, path })}\n`;
}

/** What went wrong, briefly: the error's code (ECONNRESET, UND_ERR_CONNECT_TIMEOUT, ...) or its message. */
function failureReason(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.message.slice(0, 80) : String(err);
}

/** p50, p90, p99 and the maximum, in ms to a tenth (nearest-rank). */
export function percentiles(latenciesMs: number[]): LoadResult['latency'] {
  if (latenciesMs.length === 0) {
    return { p50: 0, p90: 0, p99: 0, max: 0 };
  }
  const sorted = Float64Array.from(latenciesMs).sort();
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 10) / 10;
  return { p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}
