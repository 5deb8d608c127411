import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { AnswerCheck, LoadResult } from './results';

/** One scenario's traffic: request n (0, 1, 2, ...) and what its answer must be. */
export interface Traffic {
  baseUrl: string;
  method: 'GET' | 'PUT' | 'POST';
  path(n: number): string;
  body?: string;
  headers?: Record<string, string>;
  expectStatus: number;
  /** Text the answer's body must contain (e.g. `"result":"SUCCESS"`). */
  expectBody?: string;
}

export interface LoadShape {
  connections: number;
  durationSeconds: number;
  /** A fixed rate in requests per second, or as fast as the server answers. */
  rate?: number;
}

const SAMPLES = 3;

/** Drives the traffic with autocannon and checks every answer's status and body. */
export async function runLoad(traffic: Traffic, shape: LoadShape): Promise<{ load: LoadResult; check: AnswerCheck }> {
  let sequence = 0;
  const check: AnswerCheck = { expected: 0, unexpected: 0, samples: [] };
  const result = await autocannon({
    url: traffic.baseUrl,
    connections: shape.connections,
    duration: shape.durationSeconds,
    ...(shape.rate ? { overallRate: shape.rate } : {}),
    timeout: 10,
    requests: [
      {
        method: traffic.method,
        headers: { ...(traffic.body ? { 'content-type': 'application/json' } : {}), ...traffic.headers },
        ...(traffic.body ? { body: traffic.body } : {}),
        setupRequest(request) {
          request.path = traffic.path(sequence);
          sequence += 1;
          return request;
        },
        onResponse(status, body) {
          if (status === traffic.expectStatus && (!traffic.expectBody || body.includes(traffic.expectBody))) {
            check.expected += 1;
            return;
          }
          check.unexpected += 1;
          if (check.samples.length < SAMPLES) {
            check.samples.push(`${status} ${body.slice(0, 160)}`);
          }
        },
      },
    ],
  });
  return { load: result, check };
}

/** Resident set of a process now, in kB (0 once it is gone). */
export function rssKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Polls the processes' RSS while a scenario runs; `stop()` gives each one's peak in MB. */
export function sampleRss(pids: Record<string, number>, intervalMs = 200): { stop(): Record<string, number> } {
  const peaks: Record<string, number> = Object.fromEntries(Object.keys(pids).map((name) => [name, 0]));
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      peaks[name] = Math.max(peaks[name], rssKb(pid));
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return Object.fromEntries(Object.entries(peaks).map(([name, kb]) => [name, Math.round(kb / 1024)]));
    },
  };
}
