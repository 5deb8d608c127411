import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CLOCK_TICKS_PER_SECOND, PostgresCpu, PostgresScope } from './postgres-cpu';
import { AnswerCheck, LoadResult, recordAnswer } from './results';
import { runSteadyLoad } from './steady-load';

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
  /**
   * Told every answer of request n, or that none came (steady rate only): the overload scenario
   * classifies each one and later looks up its refund in the ledger (tools/bench/overload.ts).
   */
  onAnswer?(n: number, answer: SteadyAnswer | SteadyFailure): void;
}

/** A request the steady-rate generator got no answer to: none within its timeout, or an error (`reason`: its code). */
export interface SteadyFailure {
  failed: 'timeout' | 'error';
  reason: string;
}

/** One answer the steady-rate generator received, with its latency from when it was due. */
export interface SteadyAnswer {
  status: number;
  body: string;
  retryAfter?: string;
  latencyMs: number;
}

export interface LoadShape {
  connections: number;
  durationSeconds: number;
  /** A fixed rate in requests per second, or as fast as the server answers. */
  rate?: number;
  /** The client's wait for an answer at a fixed rate (10 s unless given). */
  timeoutMs?: number;
}

/**
 * Drives the traffic and checks every answer's status and body: as fast as the answers come
 * with autocannon, or at a fixed rate with `runSteadyLoad`. `sequence` numbers the requests;
 * pass the same one to runs of the same traffic (warm-up, then the measured run) so no request
 * repeats an earlier one's order or token.
 */
export async function runLoad(traffic: Traffic, shape: LoadShape, sequence = { next: 0 }): Promise<{ load: LoadResult; check: AnswerCheck }> {
  if (shape.rate) {
    return runSteadyLoad(traffic, { ...shape, rate: shape.rate }, sequence);
  }
  const check: AnswerCheck = { expected: 0, unexpected: 0, samples: [] };
  const result = await autocannon({
    url: traffic.baseUrl,
    connections: shape.connections,
    duration: shape.durationSeconds,
    timeout: 10,
    requests: [
      {
        method: traffic.method,
        headers: { ...(traffic.body ? { 'content-type': 'application/json' } : {}), ...traffic.headers },
        ...(traffic.body ? { body: traffic.body } : {}),
        setupRequest(request) {
          request.path = traffic.path(sequence.next);
          sequence.next += 1;
          return request;
        },
        onResponse(status, body) {
          recordAnswer(check, traffic, status, body);
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

/** CPU time a process has used so far, in ms (user + system; 0 once it is gone). */
export function cpuMs(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * The servers the gateway needs besides Postgres, by their process name (`/proc/<pid>/comm`);
 * Postgres's processes are told apart by what they work for (PostgresCpu).
 */
export const SUPPORT_COMMANDS = ['nats-server', 'redis-server'] as const;

/** CPU time so far, in ms, of every process whose name is one of `commands`, by pid. */
export function cpuByPid(commands: readonly string[]): Map<number, { command: string; ms: number }> {
  const found = new Map<number, { command: string; ms: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const command = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (commands.includes(command)) {
        found.set(Number(entry), { command, ms: cpuMs(Number(entry)) });
      }
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/**
 * CPU time used between two cpuByPid readings, summed by process name: a process started in
 * between counts from zero; one that ended in between is not counted (a Postgres backend that
 * closed its connection during the scenario).
 */
export function cpuSpentByCommand(
  before: Map<number, { command: string; ms: number }>,
  after: Map<number, { command: string; ms: number }>,
  commands: readonly string[],
): Record<string, number> {
  const spent: Record<string, number> = Object.fromEntries(commands.map((command) => [command, 0]));
  for (const [pid, { command, ms }] of after) {
    const earlier = before.get(pid);
    // A pid reused by another process of the same name would count from that process's start.
    spent[command] += Math.max(0, ms - (earlier?.command === command ? earlier.ms : 0));
  }
  return Object.fromEntries(Object.entries(spent).map(([command, ms]) => [command, Math.round(ms)]));
}

/** The machine's CPU time so far, in ticks: all of it, and what was idle or stolen by the hypervisor. */
export function machineTicks(): { total: number; idle: number; steal: number } {
  try {
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
    return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal };
  } catch {
    return { total: 0, idle: 0, steal: 0 };
  }
}

/** Shares of the machine's CPU time between two readings, in percent. */
export function machineShares(
  before: ReturnType<typeof machineTicks>,
  after: ReturnType<typeof machineTicks>,
): { busyPercent: number; stealPercent: number } {
  const total = after.total - before.total;
  if (total <= 0) {
    return { busyPercent: 0, stealPercent: 0 };
  }
  const steal = after.steal - before.steal;
  const idle = after.idle - before.idle;
  return { busyPercent: Math.round((100 * (total - idle - steal)) / total), stealPercent: Math.round((100 * steal) / total) };
}

/** Postgres is sampled less often than the RSS: a scan of /proc costs the load generator's CPU. */
const POSTGRES_SAMPLE_MS = 1_000;

/**
 * Watches the processes while a scenario runs: `stop()` gives each one's peak RSS in MB (polled)
 * and the CPU time it used meanwhile in ms, the cost that does not depend on how busy the
 * machine is; the CPU time of Postgres for the run (`postgres`: the backends of the run's
 * databases, PostgresCpu) and of the server's processes that work for every database
 * (`postgres (shared)`), of NATS and Redis (every process of each: the machine's, shared with
 * any other work on it) and of this process, the load generator; and how busy the whole machine
 * was, with the share the hypervisor stole (a virtual machine's neighbours: time neither the
 * gateway nor anything else here got).
 */
export function watchProcesses(
  pids: Record<string, number>,
  postgres: PostgresScope,
  intervalMs = 200,
): {
  stop(): {
    peakRssMb: Record<string, number>;
    cpuMs: Record<string, number>;
    supportCpuMs: Record<string, number>;
    machine: { busyPercent: number; stealPercent: number };
  };
} {
  const names = Object.keys(pids);
  const peaks: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  const cpuAtStart = Object.fromEntries(names.map((name) => [name, cpuMs(pids[name])]));
  const supportAtStart = cpuByPid(SUPPORT_COMMANDS);
  const postgresCpu = new PostgresCpu(postgres);
  const loadGeneratorAtStart = process.cpuUsage();
  const machineAtStart = machineTicks();
  const sample = () => {
    for (const name of names) {
      peaks[name] = Math.max(peaks[name], rssKb(pids[name]));
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  const postgresTimer = setInterval(() => postgresCpu.sample(), POSTGRES_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      clearInterval(postgresTimer);
      sample();
      const postgresSpent = postgresCpu.spent();
      return {
        peakRssMb: Object.fromEntries(names.map((name) => [name, Math.round(peaks[name] / 1024)])),
        cpuMs: Object.fromEntries(names.map((name) => [name, Math.round(cpuMs(pids[name]) - cpuAtStart[name])])),
        supportCpuMs: {
          postgres: postgresSpent.run,
          'postgres (shared)': postgresSpent.shared,
          ...cpuSpentByCommand(supportAtStart, cpuByPid(SUPPORT_COMMANDS), SUPPORT_COMMANDS),
          'load generator': Math.round(usedMs(process.cpuUsage(loadGeneratorAtStart))),
        },
        machine: machineShares(machineAtStart, machineTicks()),
      };
    },
  };
}

function usedMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}
