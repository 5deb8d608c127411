/**
 * `npm run bench`: the gateway's benchmark (issue 12). Starts the gateway itself in each profile
 * asked for, provisions benchmark merchants, drives every scenario with autocannon, measures the
 * two reference figures on the same machine in the same run, and writes the figures to
 * `<out>/performance-results.{json,md}` (docs/ by default: the figures docs/performance.md
 * links to). `npm run bench:smoke` runs every scenario briefly and fails on any error or
 * unexpected answer (CI, tools/scripts/test-all.sh). Method and findings: docs/performance.md.
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { createDatabase, dropDatabase, freePort, newRunId, testInfra } from '@gateway/testing';
import { benchNodeOptions, ROOT, RunningGateway, startDistributed, startStandalone } from './gateway';
import { LoadShape, runLoad, Traffic, watchProcesses } from './load';
import type { PostgresScope } from './postgres-cpu';
import { BenchOptions, DEFAULT_OVERLOAD_RATE, OptionsError, parseOptions, Profile, ScenarioName, USAGE } from './options';
import { measureRefundOverload } from './refund-overload';
import { BenchRun, failures, renderMarkdown, ScenarioResult, scenarioResult } from './results';
import { prepareScenario } from './scenarios';

type GatewayScenario = Exclude<ScenarioName, `reference-${string}`>;
const isReference = (s: ScenarioName): s is `reference-${string}` & ScenarioName => s.startsWith('reference-');

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function shapeOf(scenario: ScenarioName, options: BenchOptions): LoadShape {
  return {
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    ...(scenario === 'verify-at-rate' ? { rate: options.rate } : {}),
  };
}

async function measure(
  profile: ScenarioResult['profile'],
  scenario: ScenarioName,
  traffic: Traffic,
  options: BenchOptions,
  pids: Record<string, number>,
  postgres: PostgresScope,
  notes?: (requests: number) => string,
): Promise<ScenarioResult> {
  const shape = shapeOf(scenario, options);
  const sequence = { next: 0 };
  if (options.warmupSeconds > 0) {
    // Unmeasured: lets the JIT compile the scenario's path and the pools fill first.
    await runLoad(traffic, { ...shape, durationSeconds: options.warmupSeconds }, sequence);
  }
  log(`${profile} ${scenario}: ${shape.durationSeconds} s, ${shape.connections} connections${shape.rate ? `, ${shape.rate} ops/s` : ''}`);
  const watch = watchProcesses(pids, postgres);
  const { load, check } = await runLoad(traffic, shape, sequence);
  const processes = watch.stop();
  const result = scenarioResult(
    { profile, scenario, connections: shape.connections, rate: shape.rate, notes: notes?.(load.requests.total) },
    load,
    check,
    processes,
  );
  const stolen = result.machine ? `, machine busy ${result.machine.busyPercent}% (stolen ${result.machine.stealPercent}%)` : '';
  log(`  ${result.throughput} ops/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors}, unexpected ${result.unexpected}${stolen}`);
  return result;
}

/** A reference server process (tools/bench/reference-server.mjs), resolved once it listens. */
async function startReference(args: string[]): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = fork(path.join(__dirname, 'reference-server.mjs'), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`reference server ${args[0]} exited with ${code}`)));
  });
  return {
    pid: child.pid!,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function referenceFigures(scenarios: ScenarioName[], options: BenchOptions, runId: string): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const body = JSON.stringify({ apiOperation: 'VERIFY', order: { currency: 'USD' } });
  if (scenarios.includes('reference-bare-http')) {
    const port = await freePort();
    const server = await startReference(['bare', String(port)]);
    try {
      const traffic: Traffic = { baseUrl: `http://127.0.0.1:${port}`, method: 'PUT', path: (n) => `/order/${n}`, body, expectStatus: 200, expectBody: '"SUCCESS"' };
      results.push(await measure('reference', 'reference-bare-http', traffic, options, { 'bare-http': server.pid }, { databases: [] }));
    } finally {
      await server.stop();
    }
  }
  if (scenarios.includes('reference-http-nats-postgres')) {
    const database = `gw_bench_${runId}_chain`;
    const databaseUrl = await createDatabase(database);
    const subject = `b${runId}.reference.chain`;
    const port = await freePort();
    const service = await startReference(['chain-service', testInfra.natsUrl, subject, databaseUrl]);
    const edge = await startReference(['chain-edge', String(port), testInfra.natsUrl, subject]);
    try {
      const traffic: Traffic = { baseUrl: `http://127.0.0.1:${port}`, method: 'PUT', path: (n) => `/order/${n}`, body, expectStatus: 201, expectBody: '"SUCCESS"' };
      results.push(
        await measure('reference', 'reference-http-nats-postgres', traffic, options, { 'chain-edge': edge.pid, 'chain-service': service.pid }, { databases: [database] }),
      );
    } finally {
      await Promise.all([edge.stop(), service.stop()]);
      await dropDatabase(database);
    }
  }
  return results;
}

function refundOrders(profile: Profile, options: BenchOptions): number {
  // Distinct orders for up to 1,000 refunds a second, above issue 12's 800 (seeding records
  // about 1,500 a second, so it takes about two thirds of the run's own length); the standalone
  // profile pays each by card over HTTP, slower, so it prepares fewer. A run that outlasts its
  // orders refunds them again under new transaction ids, and its notes say so.
  if (options.smoke) {
    return profile === 'distributed' ? 300 : 60;
  }
  return Math.ceil((options.durationSeconds + options.warmupSeconds) * (profile === 'distributed' ? 1_000 : 100));
}

/** The overload's rate: as asked, else twice the refund throughput this profile just measured. */
function overloadRate(options: BenchOptions, measured: readonly ScenarioResult[]): number {
  const refund = measured.find((r) => r.scenario === 'refund');
  return options.overloadRate ?? (refund && refund.throughput > 0 ? 2 * refund.throughput : DEFAULT_OVERLOAD_RATE);
}

async function profileFigures(profile: Profile, scenarios: GatewayScenario[], options: BenchOptions, runId: string): Promise<ScenarioResult[]> {
  const logDir = path.resolve(ROOT, process.env.BENCH_LOG_DIR ?? 'tmp/bench/logs', `bench-${runId}-${profile}`);
  const nodeArgs = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'tmp', 'bench', 'cpu-profiles', `${runId}-${profile}`)}`] : [];
  log(`starting the ${profile} gateway (logs: ${path.relative(ROOT, logDir)})`);
  const gateway: RunningGateway =
    profile === 'distributed' ? await startDistributed(runId, logDir, nodeArgs, () => options.env) : await startStandalone(runId, logDir, nodeArgs);
  const results: ScenarioResult[] = [];
  try {
    const merchants = {
      plain: await gateway.createMerchant({ 'testAcquirer.latencyMs': 0 }),
      tokens: await gateway.createMerchant({ 'tokenRepository.generation': 'MERCHANT_SUPPLIED', 'tokenRepository.management': 'UNIQUE_TOKEN' }),
    };
    for (const scenario of scenarios) {
      if (scenario === 'refund-overload') {
        if (profile !== 'distributed') {
          log(`${profile} refund-overload: skipped (distributed profile only: it reads the ledger in the run's database)`);
          continue;
        }
        results.push(await measureRefundOverload(gateway, merchants.plain, { rate: overloadRate(options, results), durationSeconds: options.durationSeconds, env: options.env }, log));
        continue;
      }
      if (scenario === 'refund') log(`${profile} refund: preparing ${refundOrders(profile, options)} captured orders`);
      const { traffic, notes } = await prepareScenario(scenario, gateway, merchants, refundOrders(profile, options));
      results.push(await measure(profile, scenario, traffic, options, gateway.pids, gateway.postgres, notes));
    }
  } finally {
    await gateway.stop();
  }
  return results;
}

function machine(): BenchRun['machine'] {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.versions.node,
    os: `${os.type()} ${os.release()}`,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  if (!process.env.BENCH_SKIP_BUILD) {
    execFileSync(process.execPath, [path.join(ROOT, 'tools/scripts/build.mjs')], { stdio: 'inherit' });
  }
  // The seeding NATS client is a Nest client: its connection chatter is not the benchmark's.
  Logger.overrideLogger(['error']);
  const runId = newRunId();
  const run: BenchRun = {
    startedAt: new Date().toISOString(),
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    loadAverageBefore: os.loadavg(),
    loadAverageAfter: [],
    options: {
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      connections: options.connections,
      rate: options.rate,
      smoke: options.smoke,
      ...(Object.keys(options.env).length > 0 ? { env: options.env } : {}),
    },
    nodeOptions: Object.fromEntries(options.profiles.map((profile) => [profile, benchNodeOptions(profile)])),
    results: [],
  };
  run.results.push(...(await referenceFigures(options.scenarios.filter(isReference), options, runId)));
  const gatewayScenarios = options.scenarios.filter((s): s is GatewayScenario => !isReference(s));
  if (gatewayScenarios.length > 0) {
    for (const profile of options.profiles) {
      run.results.push(...(await profileFigures(profile, gatewayScenarios, options, runId)));
    }
  }
  run.loadAverageAfter = os.loadavg();
  const outDir = path.resolve(ROOT, options.outDir);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'performance-results.json'), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(
    path.join(outDir, 'performance-results.md'),
    `# Benchmark figures\n\nWritten by \`npm run bench\` (tools/bench); method and findings: docs/performance.md.\n\n${renderMarkdown(run)}`,
  );
  log(`results: ${path.relative(ROOT, path.join(outDir, 'performance-results.md'))}`);
  const problems = failures(run.results);
  if (options.check && problems.length > 0) {
    throw new Error(`the benchmark saw errors:\n  ${problems.join('\n  ')}`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof OptionsError ? `${err.message}\n\n${USAGE}` : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
