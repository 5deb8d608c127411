/**
 * The benchmark's command line (`npm run bench -- --help`). Pure: parsing only, so the unit
 * tests can pin every option without starting anything.
 */
export const PROFILES = ['distributed', 'standalone'] as const;
export type Profile = (typeof PROFILES)[number];

/** Gateway scenarios, then the two reference figures measured on the same machine in the same run. */
export const SCENARIOS = [
  'verify',
  'verify-at-rate',
  'token-put',
  'refund',
  'initiate-browser-payment',
  'unauthenticated',
  'refund-overload',
  'reference-bare-http',
  'reference-http-nats-postgres',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/**
 * Run only when named in `--scenarios`, and briefly by `--smoke` so they cannot rot: the overload
 * scenario runs the gateway past capacity, which the default run's figures should not follow.
 */
export const OPT_IN_SCENARIOS: readonly ScenarioName[] = ['refund-overload'];

export interface BenchOptions {
  profiles: Profile[];
  scenarios: ScenarioName[];
  /** Seconds of load per scenario. */
  durationSeconds: number;
  /** Seconds of unmeasured load before each scenario's measured run. */
  warmupSeconds: number;
  connections: number;
  /** Operations per second of the fixed-rate scenario (`verify-at-rate`). */
  rate: number;
  /**
   * Refunds per second of `refund-overload`; undefined: twice the `refund` scenario's throughput
   * measured just before in the same profile, or DEFAULT_OVERLOAD_RATE without one.
   */
  overloadRate?: number;
  /** Configuration added to every distributed app's (`--env NAME=value,...`): a measurement's settings. */
  env: Record<string, string>;
  smoke: boolean;
  /** Fail (exit 1) on any error, non-2xx where 2xx was expected, or unexpected result. */
  check: boolean;
  /** Start the services with `node --cpu-prof` (profiles land in `<out>/cpu-profiles`). */
  cpuProf: boolean;
  /** Where the results go: `<out>/performance-results.json` and `.md`. */
  outDir: string;
  help: boolean;
}

export const DEFAULT_OVERLOAD_RATE = 400;
/** Far below capacity: the smoke checks the scenario and its ledger reading, not an overload. */
export const SMOKE_OVERLOAD_RATE = 20;

export const USAGE = `Usage: npm run bench -- [options]

  --profile distributed|standalone|both   profiles to measure (default both)
  --scenarios a,b,...                     subset of: ${SCENARIOS.join(', ')}
                                          (default all but ${OPT_IN_SCENARIOS.join(', ')}, which --smoke includes)
  --duration <seconds>                    load per scenario (default 60; 3 with --smoke)
  --warmup <seconds>                      unmeasured load before each scenario (default 5; 0 with --smoke)
  --connections <n>                       concurrent connections (default 50; 8 with --smoke)
  --rate <ops/s>                          fixed rate of verify-at-rate (default 500; 50 with --smoke)
  --overload-rate <ops/s>                 refunds/s of refund-overload (default twice the refund
                                          scenario's throughput just measured, else ${DEFAULT_OVERLOAD_RATE}; ${SMOKE_OVERLOAD_RATE} with --smoke)
  --env NAME=value,...                    added to every distributed app's environment
                                          (e.g. EDGE_MAX_IN_FLIGHT=0)
  --smoke                                 every scenario briefly; implies --check; results to tmp/bench
  --check                                 exit 1 on any error or unexpected status/result
  --cpu-prof                              run the services with node --cpu-prof
  --out <dir>                             results folder (default docs, tmp/bench with --smoke)
  --help`;

export class OptionsError extends Error {}

function environment(value: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (value ?? '').split(',').filter(Boolean)) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(pair);
    if (!match) {
      throw new OptionsError(`--env takes NAME=value pairs separated by commas, got '${pair}'`);
    }
    env[match[1]] = match[2];
  }
  return env;
}

function positive(flag: string, value: string | undefined): number {
  const number = Number(value);
  if (value === undefined || !Number.isFinite(number) || number <= 0) {
    throw new OptionsError(`${flag} needs a positive number, got ${value === undefined ? 'nothing' : `'${value}'`}`);
  }
  return number;
}

function nonNegative(flag: string, value: string | undefined): number {
  return value === '0' ? 0 : positive(flag, value);
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const given = new Map<string, string | undefined>();
  const flags = new Set(['--smoke', '--check', '--cpu-prof', '--help']);
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flags.has(flag)) {
      given.set(flag, undefined);
    } else if (['--profile', '--scenarios', '--duration', '--warmup', '--connections', '--rate', '--overload-rate', '--env', '--out'].includes(flag)) {
      given.set(flag, inline ?? argv[(i += 1)]);
    } else {
      throw new OptionsError(`unknown option '${argv[i]}'`);
    }
  }
  const smoke = given.has('--smoke');
  const profile = given.get('--profile') ?? 'both';
  if (profile !== 'both' && !(PROFILES as readonly string[]).includes(profile)) {
    throw new OptionsError(`--profile must be distributed, standalone or both, got '${profile}'`);
  }
  const scenarios = given.has('--scenarios')
    ? (given.get('--scenarios') ?? '').split(',').filter(Boolean)
    : SCENARIOS.filter((s) => smoke || !OPT_IN_SCENARIOS.includes(s));
  const unknown = scenarios.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknown.length > 0 || scenarios.length === 0) {
    throw new OptionsError(`--scenarios takes a comma-separated subset of ${SCENARIOS.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  }
  return {
    profiles: profile === 'both' ? [...PROFILES] : [profile as Profile],
    scenarios: SCENARIOS.filter((s) => scenarios.includes(s)),
    durationSeconds: given.has('--duration') ? positive('--duration', given.get('--duration')) : smoke ? 3 : 60,
    warmupSeconds: given.has('--warmup') ? nonNegative('--warmup', given.get('--warmup')) : smoke ? 0 : 5,
    connections: given.has('--connections') ? Math.round(positive('--connections', given.get('--connections'))) : smoke ? 8 : 50,
    rate: given.has('--rate') ? positive('--rate', given.get('--rate')) : smoke ? 50 : 500,
    overloadRate: given.has('--overload-rate') ? positive('--overload-rate', given.get('--overload-rate')) : smoke ? SMOKE_OVERLOAD_RATE : undefined,
    env: environment(given.get('--env')),
    smoke,
    check: smoke || given.has('--check'),
    cpuProf: given.has('--cpu-prof'),
    outDir: given.get('--out') ?? (smoke ? 'tmp/bench' : 'docs'),
    help: given.has('--help'),
  };
}
