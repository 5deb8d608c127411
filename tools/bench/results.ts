import type { Profile, ScenarioName } from './options';
import type { OverloadFigures } from './overload';

/** The part of autocannon's result the harness reads. */
export interface LoadResult {
  /** Seconds the load ran. */
  duration: number;
  requests: { total: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** What the harness itself saw in the answers: statuses and results other than the scenario's. */
export interface AnswerCheck {
  expected: number;
  unexpected: number;
  /** A few unexpected answers, for the report (`<status> <first bytes of the body>`). */
  samples: string[];
}

const ANSWER_SAMPLES = 3;

/** Counts an answer as the scenario expects it or not, keeping the first few unexpected ones. */
export function recordAnswer(
  check: AnswerCheck,
  expected: { expectStatus: number; expectBody?: string },
  status: number,
  body: string,
): void {
  if (status === expected.expectStatus && (!expected.expectBody || body.includes(expected.expectBody))) {
    check.expected += 1;
    return;
  }
  check.unexpected += 1;
  if (check.samples.length < ANSWER_SAMPLES) {
    check.samples.push(`${status} ${body.slice(0, 160)}`);
  }
}

export interface ScenarioResult {
  profile: Profile | 'reference';
  scenario: ScenarioName;
  connections: number;
  /** The fixed rate asked for, if any. */
  rate?: number;
  durationSeconds: number;
  requests: number;
  throughput: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Socket errors and timeouts. */
  errors: number;
  non2xx: number;
  unexpected: number;
  unexpectedSamples: string[];
  /** Peak resident set per process during the scenario, in MB. */
  peakRssMb: Record<string, number>;
  /** CPU time per completed request, per process, in ms: the cost a busy machine does not distort. */
  cpuMsPerRequest: Record<string, number>;
  /**
   * The same for the servers and the load generator (absent in runs before it was measured):
   * `postgres`, the backends of the run's databases (before stop 31's change: every Postgres process on
   * the machine, other work's included); `postgres (shared)`, the processes of that server that
   * work for every database (postmaster, checkpointer, background writer, walwriter, launchers);
   * NATS and Redis, all of each one's processes.
   */
  supportCpuMsPerRequest?: Record<string, number>;
  /** The whole machine during the scenario: busy, and stolen by the hypervisor, in percent. */
  machine?: { busyPercent: number; stealPercent: number };
  notes?: string;
  /** The overload scenario's answers and ledger checks (refund-overload only). */
  overload?: OverloadFigures;
}

export interface BenchRun {
  startedAt: string;
  command: string;
  machine: { cpu: string; cores: number; memoryGb: number; node: string; os: string };
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  options: { durationSeconds: number; warmupSeconds: number; connections: number; rate: number; smoke: boolean; env?: Record<string, string> };
  /** NODE_OPTIONS of the gateway's processes, per profile ('' for none). */
  nodeOptions?: Partial<Record<Profile, string>>;
  results: ScenarioResult[];
}

const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

export function scenarioResult(
  meta: Pick<ScenarioResult, 'profile' | 'scenario' | 'connections' | 'rate' | 'notes'>,
  load: LoadResult,
  check: AnswerCheck,
  processes: {
    peakRssMb: Record<string, number>;
    cpuMs: Record<string, number>;
    supportCpuMs?: Record<string, number>;
    machine?: ScenarioResult['machine'];
  },
): ScenarioResult {
  const durationSeconds = load.duration > 0 ? load.duration : 1;
  const perRequest = (cpuMs: Record<string, number>) =>
    Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, load.requests.total > 0 ? round(ms / load.requests.total, 2) : 0]));
  return {
    ...meta,
    durationSeconds: round(durationSeconds),
    requests: load.requests.total,
    throughput: round(load.requests.total / durationSeconds, 0),
    p50: load.latency.p50,
    p90: load.latency.p90,
    p99: load.latency.p99,
    max: load.latency.max,
    errors: load.errors + load.timeouts,
    non2xx: load.non2xx,
    unexpected: check.unexpected,
    unexpectedSamples: check.samples,
    peakRssMb: processes.peakRssMb,
    cpuMsPerRequest: perRequest(processes.cpuMs),
    ...(processes.supportCpuMs ? { supportCpuMsPerRequest: perRequest(processes.supportCpuMs) } : {}),
    ...(processes.machine ? { machine: processes.machine } : {}),
  };
}

/** A result fails the smoke check if anything went wrong, or nothing was measured. */
export function failures(results: readonly ScenarioResult[]): string[] {
  return results.flatMap((r) => {
    // Under overload a 503 SERVER_BUSY is a right answer; what must not happen is in its own checks.
    const problems = [
      r.requests === 0 ? 'no requests completed' : '',
      ...(r.overload
        ? [...r.overload.problems, r.unexpectedSamples.length > 0 ? `first other answers: ${r.unexpectedSamples.join(' | ')}` : '']
        : [r.errors > 0 ? `${r.errors} errors` : '', r.unexpected > 0 ? `${r.unexpected} unexpected answers (${r.unexpectedSamples.join(' | ')})` : '']),
    ].filter(Boolean);
    return problems.length > 0 ? [`${r.profile} ${r.scenario}: ${problems.join(', ')}`] : [];
  });
}

export interface TargetVerdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

const find = (results: readonly ScenarioResult[], profile: ScenarioResult['profile'], scenario: ScenarioName) =>
  results.find((r) => r.profile === profile && r.scenario === scenario);

/** Issue 12's targets, distributed profile, each judged on this run (undefined: not measured). */
export function targetVerdicts(results: readonly ScenarioResult[]): TargetVerdict[] {
  const verify = find(results, 'distributed', 'verify');
  const atRate = find(results, 'distributed', 'verify-at-rate');
  const chain = find(results, 'reference', 'reference-http-nats-postgres');
  const refund = find(results, 'distributed', 'refund');
  const token = find(results, 'distributed', 'token-put');
  const clean = (r: ScenarioResult) => r.errors === 0 && r.unexpected === 0;
  const verdict = (target: string, r: ScenarioResult | undefined, measured: (r: ScenarioResult) => string, ok: (r: ScenarioResult) => boolean) => ({
    target,
    measured: r ? measured(r) : 'not measured',
    met: r ? ok(r) && clean(r) : undefined,
  });
  // The overload scenario is past the load the targets are for.
  const distributed = results.filter((r) => r.profile === 'distributed' && !r.overload);
  const peaks = distributed.flatMap((r) => Object.entries(r.peakRssMb));
  const highest = peaks.reduce<[string, number] | undefined>((top, peak) => (!top || peak[1] > top[1] ? peak : top), undefined);
  return [
    verdict('VERIFY ≥ 1,000 ops/s sustained, zero errors', verify, (r) => `${r.throughput} ops/s over ${r.durationSeconds} s`, (r) => r.throughput >= 1000),
    verdict('VERIFY p99 ≤ 50 ms at 500 ops/s', atRate, (r) => `p99 ${r.p99} ms at ${r.throughput} ops/s (asked ${r.rate})`, (r) => r.p99 <= 50),
    {
      target: 'VERIFY ≥ 50% of the HTTP→NATS→Postgres chain',
      measured: verify && chain ? `${percent(verify.throughput, chain.throughput)} (${verify.throughput} / ${chain.throughput})` : 'not measured',
      met: verify && chain ? verify.throughput >= chain.throughput / 2 && clean(verify) : undefined,
    },
    verdict('REFUND on distinct orders ≥ 800 ops/s', refund, (r) => `${r.throughput} ops/s`, (r) => r.throughput >= 800),
    verdict('token PUT ≥ 1,000 ops/s', token, (r) => `${r.throughput} ops/s`, (r) => r.throughput >= 1000),
    {
      target: 'each service process < 200 MB RSS under load',
      measured: highest ? `highest ${highest[1]} MB (${highest[0]})` : 'not measured',
      met: highest ? highest[1] < 200 : undefined,
    },
  ];
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((100 * part) / whole)}%` : 'n/a';
}

function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map((c) => String(c)).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

const PROFILE_ORDER: ScenarioResult['profile'][] = ['distributed', 'standalone', 'reference'];

/** The figures of a run as markdown: what `docs/performance-results.md` holds. */
export function renderMarkdown(run: BenchRun): string {
  const profiles = PROFILE_ORDER.filter((p) => run.results.some((r) => r.profile === p));
  const bare = find(run.results, 'reference', 'reference-bare-http');
  const chain = find(run.results, 'reference', 'reference-http-nats-postgres');
  const sections = profiles.map((profile) => {
    const results = run.results.filter((r) => r.profile === profile && !r.overload);
    const figures = table(
      ['scenario', 'conns', 'rate', 'ops/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'non-2xx', 'unexpected', 'vs chain', 'vs bare HTTP'],
      results.map((r) => [
        r.scenario,
        r.connections,
        r.rate ?? '—',
        r.throughput,
        r.p50,
        r.p90,
        r.p99,
        r.max,
        r.errors,
        r.non2xx,
        r.unexpected,
        chain ? percent(r.throughput, chain.throughput) : '—',
        bare ? percent(r.throughput, bare.throughput) : '—',
      ]),
    );
    const processes = [...new Set(results.flatMap((r) => Object.keys(r.peakRssMb)))];
    const rss = table(['scenario', ...processes], results.map((r) => [r.scenario, ...processes.map((p) => r.peakRssMb[p] ?? '—')]));
    const support = [...new Set(results.flatMap((r) => Object.keys(r.supportCpuMsPerRequest ?? {})))];
    const cpu = table(
      ['scenario', ...processes, 'total', ...support, 'machine busy %', 'stolen %'],
      results.map((r) => {
        const costs = processes.map((p) => r.cpuMsPerRequest[p]);
        return [
          r.scenario,
          ...costs.map((c) => c ?? '—'),
          round(costs.reduce<number>((sum, c) => sum + (c ?? 0), 0), 2),
          ...support.map((s) => r.supportCpuMsPerRequest?.[s] ?? '—'),
          r.machine?.busyPercent ?? '—',
          r.machine?.stealPercent ?? '—',
        ];
      }),
    );
    const notes = results.filter((r) => r.notes).map((r) => `- ${r.scenario}: ${r.notes}`);
    return [`### ${profile}`, '', figures, '', 'Peak RSS per process during each scenario (MB):', '', rss, '', 'CPU time per request per process (ms): the gateway\'s processes and their total; then Postgres: the backends of the run\'s database (`postgres`) and the server\'s processes that work for every database (`postgres (shared)`: postmaster, checkpointer, background writer, walwriter, launchers; other databases\' backends on the same server are in neither); every process of NATS and Redis, and the load generator (the bench itself); and the whole machine during the scenario (busy; stolen by the hypervisor from this virtual machine):', '', cpu, ...(notes.length ? ['', ...notes] : [])].join('\n');
  });
  const verdicts = targetVerdicts(run.results);
  const m = run.machine;
  return [
    `Run of ${run.startedAt}: \`${run.command}\``,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB; ${m.os}; Node ${m.node}. Load generator (autocannon; undici at a steady rate for verify-at-rate), gateway, Postgres, Redis and NATS all on this machine.`,
    `Load average (1/5/15 min) before: ${run.loadAverageBefore.map((l) => l.toFixed(2)).join(' / ')}, after: ${run.loadAverageAfter.map((l) => l.toFixed(2)).join(' / ')}.`,
    ...(run.nodeOptions
      ? [`Node flags of the gateway's processes: ${Object.entries(run.nodeOptions).map(([profile, flags]) => `${profile} \`${flags || '(none)'}\``).join(', ')}.`]
      : []),
    `Per scenario: ${run.options.warmupSeconds} s of unmeasured warm-up, then ${run.options.durationSeconds} s of load, ${run.options.connections} connections (verify-at-rate: a steady ${run.options.rate} ops/s, latency from when each request was due)${run.options.smoke ? '; a smoke run, not figures to quote' : ''}.`,
    '',
    ...sections.flatMap((s) => [s, '']),
    ...overloadSection(run.results.filter((r) => r.overload)),
    '### Targets (distributed profile)',
    '',
    table(
      ['target', 'measured', 'met'],
      verdicts.map((v) => [v.target, v.measured, v.met === undefined ? '—' : v.met ? 'yes' : 'no']),
    ),
    '',
  ].join('\n');
}

/** The overload scenario's figures: answers by what they tell the merchant, then what the ledger recorded for them. */
function overloadSection(results: readonly ScenarioResult[]): string[] {
  if (results.length === 0) {
    return [];
  }
  const answers = table(
    ['profile', 'rate /s', 'settings', 'goodput /s', 'success p50 / p99 ms', '201', '503 may have been processed', '503 busy', 'other', 'unanswered', 'shed: edge / service / past deadline', 'drain s', 'peak RSS MB'],
    results.map((r) => {
      const o = r.overload!;
      const env = Object.entries(o.env).map(([k, v]) => `${k}=${v}`).join(' ') || 'defaults';
      return [r.profile, o.rate, env, o.goodput, `${o.successP50} / ${o.successP99}`, o.answers.success, o.answers['busy-may-have-processed'], o.answers.busy, o.answers.other, o.answers['no-answer'], `${o.shed.edge} / ${o.shed.service} / ${o.shed.pastDeadline}`, o.drainSeconds, Object.entries(r.peakRssMb).map(([p, mb]) => `${p} ${mb}`).join(', ')];
    }),
  );
  const ledger = table(
    ['profile', 'settings', 'answer', 'requests', 'recorded SUCCESS', 'PENDING', 'UNKNOWN', 'FAILURE', 'not recorded'],
    results.flatMap((r) => {
      const o = r.overload!;
      const env = Object.entries(o.env).map(([k, v]) => `${k}=${v}`).join(' ') || 'defaults';
      return (['success', 'busy-may-have-processed', 'busy', 'other', 'no-answer'] as const)
        .filter((kind) => o.answers[kind] > 0)
        .map((kind) => {
          const by = o.ledger.byAnswer[kind];
          return [r.profile, env, kind, o.answers[kind], by.SUCCESS, by.PENDING, by.UNKNOWN, by.FAILURE, by['not recorded']];
        });
    }),
  );
  const checks = results.map((r) => {
    const l = r.overload!.ledger;
    const problems = r.overload!.problems;
    const unanswered = Object.entries(r.overload!.unanswered).map(([why, n]) => `${n} ${why}`).join(', ');
    return `- ${r.profile}${unanswered ? ` (unanswered: ${unanswered})` : ''}: PENDING left ${l.pendingLeft}, UNKNOWN left ${l.unknownLeft}, orders refunded beyond their captured amount ${l.overCapturedOrders}, total refunded differing from SUCCESS refunds ${l.totalMismatchOrders}, refunds without their stored response ${l.withoutStoredResponse}${problems.length ? `; problems: ${problems.join('; ')}` : ''}`;
  });
  return [
    '### Overload (refund-overload: open loop, one refund per captured order)',
    '',
    answers,
    '',
    'What the ledger recorded, once the backlog drained, for each request by its answer:',
    '',
    ledger,
    '',
    ...checks,
    '',
  ];
}
