/**
 * What a service's heap holds at its in-flight cap (NATS_MAX_IN_FLIGHT,
 * docs/decisions/load-shedding.md): `node -r ./tools/scripts/register-ts.cjs
 * tools/bench/in-flight-heap.ts --cap <n> [--normal-connections 50] [--scenarios a,b]
 * [--connections 1000] [--duration 20] [--edge-timeout-ms 2000] [--refund-orders 20000]`.
 * Starts the distributed gateway with the deployed Node flags plus `--trace-gc`, the cap on every
 * service and the edge's NATS timeout lowered (an edge that gives up early keeps sending: the
 * overload review's stand-in for open-loop traffic above capacity, overload-behaviour.md). Then,
 * per scenario, optionally a phase at normal load (the bench's 50 connections: nothing may be
 * shed there) and a phase at overload, and reports per service: the requests it shed, its live
 * heap (what each full GC left, from V8's own trace: no inspector, and garbage does not count),
 * the heap used sampled on /metrics, the peak RSS, and the most handlers seen in the database
 * (pool connections busy plus queries waiting: at the cap, nearly all its handlers). Run at
 * several caps, it gives the heap one handler in flight holds (the slope of the live heap over
 * the handlers in flight) and the goodput at each cap.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Logger } from '@nestjs/common';
import { DEFAULT_NATS_MAX_IN_FLIGHT } from '@gateway/platform';
import { newRunId, TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { benchNodeOptions, ROOT, RunningGateway, startDistributed } from './gateway';
import { liveHeapsAfterFullGc, metricSum } from './gc-trace';
import { rssKb, runLoad, Traffic } from './load';
import { prepareScenario } from './scenarios';

const SERVICES = ['order-transaction', 'token-vault', 'browser-payment', 'verification'] as const;
const SCENARIOS = ['verify', 'refund', 'token-put', 'token-put-acquirer', 'token-put-slow-acquirer', 'initiate-browser-payment'] as const;
type Scenario = (typeof SCENARIOS)[number];

interface Options {
  cap: number;
  scenarios: Scenario[];
  overloadConnections: number;
  /** 0: no normal-load phase. */
  normalConnections: number;
  durationSeconds: number;
  edgeTimeoutMs: number;
  /** Captured orders prepared for the refund scenario (more refunds than orders refund them again). */
  refundOrders: number;
}

function parse(argv: string[]): Options {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    given.set(flag, inline ?? argv[(i += 1)]);
  }
  const number = (flag: string, fallback: number) => {
    const value = given.has(flag) ? Number(given.get(flag)) : fallback;
    if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} needs a whole number, got '${given.get(flag)}'`);
    return value;
  };
  const scenarios = (given.get('--scenarios') ?? SCENARIOS.join(',')).split(',') as Scenario[];
  const unknown = scenarios.filter((s) => !SCENARIOS.includes(s));
  if (unknown.length > 0) throw new Error(`unknown scenarios ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  return {
    cap: number('--cap', DEFAULT_NATS_MAX_IN_FLIGHT),
    scenarios,
    overloadConnections: number('--connections', 1_000),
    normalConnections: number('--normal-connections', 0),
    durationSeconds: number('--duration', 20),
    edgeTimeoutMs: number('--edge-timeout-ms', 2_000),
    refundOrders: number('--refund-orders', 20_000),
  };
}

function log(message: string): void {
  process.stderr.write(`[in-flight-heap ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function scrape(port: number): Promise<string> {
  return fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(3_000) })
    .then((r) => r.text())
    .catch(() => '');
}

/** What a log file gained from `offset` on. */
function readFrom(file: string, offset: number): string {
  const size = statSync(file).size;
  const buffer = Buffer.alloc(Math.max(0, size - offset));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

interface ServiceFigures {
  shed: number;
  fullGcs: number;
  /** Largest live heap after a full GC, MB. */
  liveHeapMaxMb: number | null;
  /** Largest heap used sampled on /metrics (garbage included), MB. */
  heapUsedMaxMb: number;
  peakRssMb: number;
  /** Most queries seen waiting for a pool connection plus those holding one (in-flight handlers in the database). */
  poolQueuedMax: number;
  alive: boolean;
}

async function phase(gateway: RunningGateway, logDir: string, traffic: Traffic, connections: number, seconds: number, sequence: { next: number }) {
  const files = Object.fromEntries(SERVICES.map((s) => [s, path.join(logDir, `${s}.log`)]));
  const offsets = Object.fromEntries(SERVICES.map((s) => [s, statSync(files[s]).size]));
  const shedBefore = Object.fromEntries(
    await Promise.all(SERVICES.map(async (s) => [s, metricSum(await scrape(gateway.ports[s]), 'gateway_messages_shed_total')] as const)),
  );
  const heapUsed = Object.fromEntries(SERVICES.map((s) => [s, 0]));
  const rss = Object.fromEntries(SERVICES.map((s) => [s, 0]));
  const pool = Object.fromEntries(SERVICES.map((s) => [s, 0]));
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await Promise.all(
        SERVICES.map(async (s) => {
          const metrics = await scrape(gateway.ports[s]);
          heapUsed[s] = Math.max(heapUsed[s], metricSum(metrics, 'nodejs_heap_size_used_bytes'));
          const inDatabase = metricSum(metrics, 'gateway_db_pool_connections', 'state="busy"') + metricSum(metrics, 'gateway_db_pool_waiting_queries');
          pool[s] = Math.max(pool[s], inDatabase);
          rss[s] = Math.max(rss[s], rssKb(gateway.pids[s]));
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  const { load, check } = await runLoad(traffic, { connections, durationSeconds: seconds }, sequence);
  sampling = false;
  await sampler;
  const figures: Record<string, ServiceFigures> = {};
  for (const s of SERVICES) {
    const live = liveHeapsAfterFullGc(readFrom(files[s], offsets[s]));
    const alive = rssKb(gateway.pids[s]) > 0;
    figures[s] = {
      shed: alive ? metricSum(await scrape(gateway.ports[s]), 'gateway_messages_shed_total') - shedBefore[s] : NaN,
      fullGcs: live.length,
      liveHeapMaxMb: live.length > 0 ? Math.max(...live) : null,
      heapUsedMaxMb: Math.round(heapUsed[s] / 2 ** 20),
      peakRssMb: Math.round(rss[s] / 1024),
      poolQueuedMax: pool[s],
      alive,
    };
  }
  return {
    connections,
    requests: load.requests.total,
    perSecond: Math.round(load.requests.total / seconds),
    non2xx: load.non2xx,
    errors: load.errors,
    timeouts: load.timeouts,
    expectedAnswers: check.expected,
    p99Ms: load.latency.p99,
    services: figures,
  };
}

async function trafficOf(scenario: Scenario, gateway: RunningGateway, merchants: Parameters<typeof prepareScenario>[2], refundOrders: number): Promise<Traffic> {
  if (scenario !== 'token-put-acquirer' && scenario !== 'token-put-slow-acquirer') {
    return (await prepareScenario(scenario, gateway, merchants, refundOrders)).traffic;
  }
  // token-vault asks verification (token-vault-acquirer-verification.md): the one path that loads
  // verification. Its handlers wait on the acquirer alone, so only a slow acquirer (1 s) keeps
  // them in flight long enough to reach its cap.
  const merchant =
    scenario === 'token-put-acquirer'
      ? merchants.tokens
      : await gateway.createMerchant({ 'tokenRepository.generation': 'MERCHANT_SUPPLIED', 'tokenRepository.management': 'UNIQUE_TOKEN', 'testAcquirer.latencyMs': 1_000 });
  const tag = Math.random().toString(36).slice(2, 8);
  return {
    baseUrl: gateway.baseUrl,
    method: 'PUT',
    path: (n) => `${merchant.base(57)}/token/bq${tag}${n}`,
    headers: { authorization: merchant.authorization },
    body: JSON.stringify({
      verificationStrategy: 'ACQUIRER',
      transaction: { currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    }),
    expectStatus: 201,
    expectBody: '"result":"SUCCESS"',
  };
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  if (!process.env.BENCH_SKIP_BUILD) {
    execFileSync(process.execPath, [path.join(ROOT, 'tools/scripts/build.mjs')], { stdio: 'inherit' });
  }
  Logger.overrideLogger(['error']);
  const runId = newRunId();
  const logDir = path.resolve(ROOT, 'tmp/bench/logs', `in-flight-heap-${runId}`);
  log(`cap ${options.cap}, edge NATS timeout ${options.edgeTimeoutMs} ms, logs ${path.relative(ROOT, logDir)}`);
  // The deployed flags (NODE_OPTIONS, benchNodeOptions), plus V8's own line per GC (to the app's
  // log; not allowed in NODE_OPTIONS): the live heap after each full GC.
  const gateway = await startDistributed(runId, logDir, ['--trace-gc'], (app) => ({
    NATS_MAX_IN_FLIGHT: String(options.cap),
    ...(app === 'api-edge' ? { NATS_REQUEST_TIMEOUT_MS: String(options.edgeTimeoutMs) } : {}),
  }));
  const report: Record<string, unknown> = { options, nodeOptions: `${benchNodeOptions('distributed')} --trace-gc`, phases: {} };
  try {
    const merchants = {
      plain: await gateway.createMerchant({ 'testAcquirer.latencyMs': 0 }),
      tokens: await gateway.createMerchant({ 'tokenRepository.generation': 'MERCHANT_SUPPLIED', 'tokenRepository.management': 'UNIQUE_TOKEN' }),
    };
    for (const scenario of options.scenarios) {
      const traffic = await trafficOf(scenario, gateway, merchants, options.refundOrders);
      const sequence = { next: 0 };
      const phases: Record<string, unknown> = {};
      if (options.normalConnections > 0) {
        phases.normal = await phase(gateway, logDir, traffic, options.normalConnections, options.durationSeconds, sequence);
        log(`${scenario} normal: ${JSON.stringify(phases.normal)}`);
      }
      phases.overload = await phase(gateway, logDir, traffic, options.overloadConnections, options.durationSeconds, sequence);
      log(`${scenario} overload: ${JSON.stringify(phases.overload)}`);
      (report.phases as Record<string, unknown>)[scenario] = phases;
      // The backlog the edge abandoned drains before the next scenario.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
  } finally {
    await gateway.stop();
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
