import { CpuProfile, ownerOf, topCosts } from './cpu-profile-summary';
import { readFileSync } from 'node:fs';
import { cpuByPid, cpuSpentByCommand, machineShares, machineTicks } from './load';
import { OptionsError, parseOptions, SCENARIOS } from './options';
import type { OverloadFigures } from './overload';
import { BenchRun, failures, LoadResult, renderMarkdown, ScenarioResult, scenarioResult, targetVerdicts } from './results';

describe('bench options', () => {
  it('defaults to a full run of every scenario but the overload in both profiles, results into docs/', () => {
    expect(parseOptions([])).toEqual({
      profiles: ['distributed', 'standalone'],
      scenarios: SCENARIOS.filter((s) => s !== 'refund-overload'),
      durationSeconds: 60,
      warmupSeconds: 5,
      connections: 50,
      rate: 500,
      overloadRate: undefined,
      env: {},
      smoke: false,
      check: false,
      cpuProf: false,
      outDir: 'docs',
      help: false,
    });
  });

  it('--smoke is brief, checks every answer and keeps its results out of docs/', () => {
    expect(parseOptions(['--smoke'])).toMatchObject({ durationSeconds: 3, warmupSeconds: 0, connections: 8, rate: 50, check: true, outDir: 'tmp/bench' });
    // The overload scenario too, far below capacity, so it cannot rot.
    expect(parseOptions(['--smoke'])).toMatchObject({ scenarios: [...SCENARIOS], overloadRate: 20 });
    expect(parseOptions(['--smoke', '--duration', '1', '--out=tmp/x'])).toMatchObject({ durationSeconds: 1, outDir: 'tmp/x' });
  });

  it('takes a profile, a scenario subset (kept in the canonical order), a rate and --cpu-prof', () => {
    expect(parseOptions(['--warmup', '0']).warmupSeconds).toBe(0);
    expect(parseOptions(['--profile', 'distributed', '--scenarios', 'refund,verify', '--rate=250', '--connections', '20', '--warmup=2', '--cpu-prof'])).toMatchObject({
      warmupSeconds: 2,
      profiles: ['distributed'],
      scenarios: ['verify', 'refund'],
      rate: 250,
      connections: 20,
      cpuProf: true,
    });
  });

  it('runs the overload scenario when named, at the rate and with the settings given', () => {
    expect(parseOptions(['--scenarios', 'refund-overload', '--overload-rate', '600', '--env', 'EDGE_MAX_IN_FLIGHT=0,NATS_MAX_IN_FLIGHT=128'])).toMatchObject({
      scenarios: ['refund-overload'],
      overloadRate: 600,
      env: { EDGE_MAX_IN_FLIGHT: '0', NATS_MAX_IN_FLIGHT: '128' },
    });
    expect(parseOptions(['--env=LOG_LEVEL=warn']).env).toEqual({ LOG_LEVEL: 'warn' });
  });

  it.each([
    [['--env', 'EDGE_MAX_IN_FLIGHT'], /--env takes NAME=value pairs/],
    [['--env', 'edge=1'], /--env takes NAME=value pairs/],
    [['--overload-rate', '0'], /--overload-rate needs a positive number/],
    [['--profile', 'cluster'], /--profile/],
    [['--scenarios', 'verify,pay'], /unknown: pay/],
    [['--duration', '0'], /--duration needs a positive number, got '0'/],
    [['--connections'], /--connections needs a positive number, got nothing/],
    [['--fast'], /unknown option '--fast'/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOptions(argv)).toThrow(OptionsError);
    expect(() => parseOptions(argv)).toThrow(message);
  });
});

const load = (overrides: Partial<LoadResult> = {}): LoadResult => ({
  duration: 10,
  requests: { total: 12_345 },
  latency: { p50: 4, p90: 9, p99: 21, max: 80 },
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  ...overrides,
});

function result(overrides: Partial<ScenarioResult>): ScenarioResult {
  return {
    ...scenarioResult(
      { profile: 'distributed', scenario: 'verify', connections: 50 },
      load(),
      { expected: 12_345, unexpected: 0, samples: [] },
      { peakRssMb: { 'api-edge': 120 }, cpuMs: { 'api-edge': 1000 } },
    ),
    ...overrides,
  };
}

describe('bench results', () => {
  it('aggregates a load run: throughput over the measured time, errors with timeouts, CPU per request', () => {
    const aggregated = scenarioResult(
      { profile: 'standalone', scenario: 'token-put', connections: 8, rate: 50 },
      load({ duration: 4, requests: { total: 1000 }, errors: 2, timeouts: 1, non2xx: 7 }),
      { expected: 990, unexpected: 10, samples: ['400 {"result":"ERROR"}'] },
      { peakRssMb: { gateway: 180 }, cpuMs: { gateway: 2500 }, supportCpuMs: { postgres: 1500, 'load generator': 300 } },
    );
    expect(aggregated).toEqual({
      profile: 'standalone',
      scenario: 'token-put',
      connections: 8,
      rate: 50,
      durationSeconds: 4,
      requests: 1000,
      throughput: 250,
      p50: 4,
      p90: 9,
      p99: 21,
      max: 80,
      errors: 3,
      non2xx: 7,
      unexpected: 10,
      unexpectedSamples: ['400 {"result":"ERROR"}'],
      peakRssMb: { gateway: 180 },
      cpuMsPerRequest: { gateway: 2.5 },
      supportCpuMsPerRequest: { postgres: 1.5, 'load generator': 0.3 },
    });
  });

  it('fails a run on errors, unexpected answers or no answers at all, and names the scenario', () => {
    expect(failures([result({})])).toEqual([]);
    expect(failures([result({ errors: 2 }), result({ scenario: 'refund', unexpected: 1, unexpectedSamples: ['500 x'] }), result({ requests: 0 })])).toEqual([
      'distributed verify: 2 errors',
      'distributed refund: 1 unexpected answers (500 x)',
      'distributed verify: no requests completed',
    ]);
  });

  it('fails an overload run on its own checks, not on its 503 answers', () => {
    const overload = (problems: string[]): OverloadFigures => ({
      rate: 400,
      clientTimeoutMs: 60_000,
      env: {},
      answers: { success: 10, 'busy-may-have-processed': 5, busy: 20, other: 0, 'no-answer': 0 },
      unanswered: {},
      goodput: 0.5,
      successP50: 100,
      successP99: 900,
      shed: { edge: 20, service: 0, pastDeadline: 3 },
      drainSeconds: 4,
      ledger: {
        byAnswer: {
          success: { SUCCESS: 10, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 0 },
          'busy-may-have-processed': { SUCCESS: 2, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 3 },
          busy: { SUCCESS: 0, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 20 },
          other: { SUCCESS: 0, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 0 },
          'no-answer': { SUCCESS: 0, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 0 },
        },
        pendingLeft: 0,
        unknownLeft: 0,
        overCapturedOrders: 0,
        totalMismatchOrders: 0,
        withoutStoredResponse: 0,
        ordersMissing: 0,
      },
      problems,
    });
    const clean = result({ scenario: 'refund-overload', non2xx: 25, overload: overload([]) });
    expect(failures([clean])).toEqual([]);
    expect(failures([result({ scenario: 'refund-overload', overload: overload(['1 refunds left PENDING']) })])).toEqual(['distributed refund-overload: 1 refunds left PENDING']);

    const markdown = renderMarkdown({
      startedAt: '2026-01-02T03:04:05.000Z',
      command: 'npm run bench -- --scenarios refund-overload',
      machine: { cpu: 'Test CPU', cores: 2, memoryGb: 8, node: '20.0.0', os: 'Linux 6' },
      loadAverageBefore: [0, 0, 0],
      loadAverageAfter: [0, 0, 0],
      options: { durationSeconds: 20, warmupSeconds: 0, connections: 50, rate: 500, smoke: false },
      results: [{ ...clean, overload: { ...overload([]), env: { EDGE_MAX_IN_FLIGHT: '0' } } }],
    });
    expect(markdown).toContain('| distributed | 400 | EDGE_MAX_IN_FLIGHT=0 | 0.5 | 100 / 900 | 10 | 5 | 20 | 0 | 0 | 20 / 0 / 3 | 4 | api-edge 120 |');
    expect(markdown).toContain('| distributed | EDGE_MAX_IN_FLIGHT=0 | busy-may-have-processed | 5 | 2 | 0 | 0 | 0 | 3 |');
    // Not among the figures of normal load, nor in the targets' peak RSS.
    expect(markdown).not.toContain('| refund-overload |');
    expect(targetVerdicts([clean]).at(-1)?.measured).toBe('not measured');
  });

  it('judges the targets on the distributed figures and the chain of the same run', () => {
    const verdicts = targetVerdicts([
      result({ throughput: 1200 }),
      result({ scenario: 'verify-at-rate', rate: 500, throughput: 500, p99: 60 }),
      result({ profile: 'reference', scenario: 'reference-http-nats-postgres', throughput: 2000 }),
      result({ scenario: 'refund', throughput: 900, unexpected: 1 }),
      result({ scenario: 'token-put', throughput: 1100, peakRssMb: { 'token-vault': 210 } }),
    ]);
    expect(verdicts.map((v) => [v.met, v.measured])).toEqual([
      [true, '1200 ops/s over 10 s'],
      [false, 'p99 60 ms at 500 ops/s (asked 500)'],
      [true, '60% (1200 / 2000)'],
      [false, '900 ops/s'],
      [true, '1100 ops/s'],
      [false, 'highest 210 MB (token-vault)'],
    ]);
    expect(targetVerdicts([]).every((v) => v.met === undefined && v.measured === 'not measured')).toBe(true);
  });

  it('renders the figures as markdown: per profile, ratios to the references, RSS, CPU per request and targets', () => {
    const run: BenchRun = {
      startedAt: '2026-01-02T03:04:05.000Z',
      command: 'npm run bench -- --profile distributed',
      machine: { cpu: 'Test CPU', cores: 2, memoryGb: 8, node: '20.0.0', os: 'Linux 6' },
      loadAverageBefore: [0.5, 0.25, 0.125],
      loadAverageAfter: [1.5, 1, 0.5],
      options: { durationSeconds: 10, warmupSeconds: 5, connections: 50, rate: 500, smoke: false },
      nodeOptions: { distributed: '--max-old-space-size=128', standalone: '' },
      results: [
        result({ throughput: 500, machine: { busyPercent: 97, stealPercent: 12 }, supportCpuMsPerRequest: { postgres: 0.66, 'nats-server': 0.11 } }),
        result({ profile: 'reference', scenario: 'reference-bare-http', throughput: 20_000, peakRssMb: { 'bare-http': 50 }, cpuMsPerRequest: { 'bare-http': 0.05 } }),
        result({ profile: 'reference', scenario: 'reference-http-nats-postgres', throughput: 2000, peakRssMb: {}, cpuMsPerRequest: {} }),
      ],
    };
    const markdown = renderMarkdown(run);
    expect(markdown).toContain('`npm run bench -- --profile distributed`');
    expect(markdown).toContain("Node flags of the gateway's processes: distributed `--max-old-space-size=128`, standalone `(none)`.");
    expect(markdown).toContain('Load average (1/5/15 min) before: 0.50 / 0.25 / 0.13, after: 1.50 / 1.00 / 0.50.');
    expect(markdown).toContain('Per scenario: 5 s of unmeasured warm-up, then 10 s of load, 50 connections');
    expect(markdown).toContain('| verify | 50 | — | 500 | 4 | 9 | 21 | 80 | 0 | 0 | 0 | 25% | 3% |');
    expect(markdown).toContain('| scenario | api-edge |\n| --- | --- |\n| verify | 120 |');
    expect(markdown).toContain(
      '| scenario | api-edge | total | postgres | nats-server | machine busy % | stolen % |\n| --- | --- | --- | --- | --- | --- | --- |\n| verify | 0.08 | 0.08 | 0.66 | 0.11 | 97 | 12 |',
    );
    expect(markdown).toContain('| VERIFY ≥ 1,000 ops/s sustained, zero errors | 500 ops/s over 10 s | no |');
    expect(markdown.indexOf('### distributed')).toBeLessThan(markdown.indexOf('### reference'));
    expect(markdown).not.toContain('### standalone');
  });
});

describe('CPU of the servers the gateway needs', () => {
  it('sums each name\'s processes between two readings: a new one from zero, an ended one not at all', () => {
    const before = new Map([
      [10, { command: 'postgres', ms: 100 }],
      [11, { command: 'postgres', ms: 50 }],
      [20, { command: 'nats-server', ms: 10 }],
      [30, { command: 'nats-server', ms: 400 }],
    ]);
    const after = new Map([
      [10, { command: 'postgres', ms: 160 }],
      [12, { command: 'postgres', ms: 20 }],
      [20, { command: 'nats-server', ms: 15 }],
      // pid 30 ended and its number went to a new Postgres backend.
      [30, { command: 'postgres', ms: 3 }],
    ]);
    expect(cpuSpentByCommand(before, after, ['postgres', 'nats-server', 'redis-server'])).toEqual({ postgres: 83, 'nats-server': 5, 'redis-server': 0 });
  });

  it('finds processes by their name in /proc', () => {
    const ownName = readFileSync('/proc/self/comm', 'utf8').trim();
    const found = cpuByPid([ownName]).get(process.pid);
    expect(found?.command).toBe(ownName);
    expect(found?.ms).toBeGreaterThan(0);
    expect(cpuByPid(['no-such-process-name']).size).toBe(0);
  });
});

describe('machine CPU shares', () => {
  it('splits the ticks between two /proc/stat readings into busy and stolen', () => {
    expect(machineShares({ total: 1000, idle: 400, steal: 50 }, { total: 2000, idle: 500, steal: 150 })).toEqual({ busyPercent: 80, stealPercent: 10 });
    expect(machineShares({ total: 5, idle: 5, steal: 0 }, { total: 5, idle: 5, steal: 0 })).toEqual({ busyPercent: 0, stealPercent: 0 });
  });

  it('reads this machine\'s /proc/stat', () => {
    const ticks = machineTicks();
    expect(ticks.total).toBeGreaterThan(0);
    expect(ticks.idle + ticks.steal).toBeLessThanOrEqual(ticks.total);
  });
});

describe('cpu profile summary', () => {
  it('names the owner of a frame: package, workspace project, node, V8', () => {
    expect(ownerOf('file:///w/node_modules/@nats-io/nats-core/lib/protocol.js')).toBe('@nats-io/nats-core');
    expect(ownerOf('/w/node_modules/class-validator/cjs/index.js')).toBe('class-validator');
    expect(ownerOf('/w/dist/libs/edge/domain/src/x.js')).toBe('libs/edge/domain');
    expect(ownerOf('/w/dist/libs/platform/src/messaging/m.js')).toBe('libs/platform');
    expect(ownerOf('node:internal/streams/writable')).toBe('node');
    expect(ownerOf('')).toBe('(v8)');
  });

  it('ranks self time by function and owner, idle apart', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
    const profile: CpuProfile = {
      startTime: 0,
      endTime: 10,
      nodes: [
        { id: 1, callFrame: frame('(idle)', '') },
        { id: 2, callFrame: frame('validate', '/w/node_modules/class-validator/v.js') },
        { id: 3, callFrame: frame('query', '/w/node_modules/pg/lib/client.js') },
        { id: 4, callFrame: frame('execute', '/w/dist/libs/edge/domain/src/e.js') },
      ],
      samples: [1, 1, 1, 1, 1, 2, 2, 2, 3, 4],
    };
    expect(topCosts(profile, 2)).toEqual({
      idlePercent: 50,
      functions: [
        { name: 'validate v.js:10', percent: 30 },
        { name: 'query client.js:10', percent: 10 },
      ],
      owners: [
        { name: 'class-validator', percent: 30 },
        { name: 'pg', percent: 10 },
      ],
    });
  });
});
