import { execFileSync } from 'node:child_process';
import { BlockList } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { PATH_METADATA } from '@nestjs/common/constants';
import { AdminConfig, ProvisionDatabaseConfig } from '../../apps/admin/src/admin.config';
import { SECTIONS } from '../config-reference/config-reference';
import {
  AddressRange,
  ConfigError,
  DatabaseConfig,
  describeVariables,
  HealthController,
  loadConfig,
  Metrics,
  MetricsController,
  NON_PUBLIC_IPV4,
  NON_PUBLIC_IPV6,
  PlatformConfig,
  urlCarriesCredentials,
} from '@gateway/platform';
import { ORDER_TRANSACTION_MODES, OrderTransactionConfig, shutdownGraceNeeded } from '@gateway/order-transaction/feature';
import { BrowserPaymentConfig } from '@gateway/browser-payment/feature';
import { EdgeConfig, edgeShutdownGraceNeeded, longestEdgeRequest } from '@gateway/edge/feature';
import { TrustedProxies } from '../../libs/edge/feature/src/http/trusted-proxies';
import { DEPLOYED_NODE_OPTIONS } from '../bench/deployed-node-options';
import { IN_FLIGHT_HEAP, liveHeapAtCapMb } from '../bench/in-flight-heap-figures';
import { K8sObject, kustomizeVersion, OVERLAYS, render, renderPatched, ROOT } from './kustomize';

jest.setTimeout(60_000);

/** The Kubernetes version whose schemas validate the manifests: kubernetes-models 4.5 is generated from v1.33.0. */
const KUBERNETES_SCHEMAS = 'v1.33.0';
const APPS = ['api-edge', 'token-vault', 'order-transaction', 'browser-payment', 'verification'];
/** The apps that answer NATS requests, each under its in-flight cap (NATS_MAX_IN_FLIGHT). */
const SERVICES = APPS.filter((app) => app !== 'api-edge');
/** Deployments that run an app's image in another mode, with that app's credentials. */
const MODE_OF: Record<string, string> = { 'order-transaction-dispatcher': 'order-transaction' };

/**
 * Postgres sessions a replica opens beside its pool (DATABASE_POOL_SIZE): every app's readiness
 * check of its database (libs/platform/src/database/database-health-session.ts), and the edge's
 * LISTEN for merchant changes (libs/edge/feature/src/merchant-changes.listener.ts). The
 * dispatcher's claim sessions come from its pool (decisions/resource-bounds.md).
 */
const READINESS_SESSION = 1;
const SESSIONS_BESIDE_THE_POOL = (deployment: string): number => READINESS_SESSION + (deployment === 'api-edge' ? 1 : 0);
/** Sessions kept for operators at full scale: the admin CLI (a pool of 2), an operator command in an app's pod, psql. */
const OPERATOR_SESSIONS = 10;
/** Postgres's superuser_reserved_connections (its default): slots the apps' roles never get. */
const SUPERUSER_RESERVED = 3;
/** Where a production overlay states the connections its external database accepts from the gateway's roles. */
const DATABASE_CONNECTIONS_ANNOTATION = 'payment-gateway/database-connections';

const MODELS: Record<string, string> = {
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

function modelOf(object: K8sObject): new (data: object) => { validate(): void } {
  const group = MODELS[object.apiVersion] ?? `kubernetes-models/${object.apiVersion}`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(`${group}/${object.kind}`)[object.kind];
}

type HttpGet = { path: string; port?: string | number; scheme?: string };
type Container = {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { runAsNonRoot?: boolean; allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
  startupProbe?: { httpGet?: HttpGet } & Probe;
  livenessProbe?: { httpGet?: HttpGet } & Probe;
  readinessProbe?: { httpGet?: HttpGet } & Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
  envFrom?: { secretRef?: { name: string }; configMapRef?: { name: string } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
};
type PodSpec = {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean };
  terminationGracePeriodSeconds?: number;
  volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
};

const podSpecOf = (o: K8sObject): PodSpec | undefined => (o.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
const containersOf = (spec: PodSpec) => [...(spec.initContainers ?? []), ...spec.containers];
/** A CPU quantity in millicores ('250m', '1', '1.5'); NaN for anything else. */
const millicores = (quantity: string | number | undefined) => {
  const [, amount, milli] = /^(\d+(?:\.\d+)?)(m?)$/.exec(String(quantity ?? '')) ?? [];
  return Number(amount) * (milli ? 1 : 1000);
};
/**
 * The least CPU a CPU-scaled app's replica uses before its HPA adds another (its request × the
 * target; k8s/README.md#cpu-and-scaling). Below it a replica is added before it does real work:
 * its fixed costs (memory, database connections, background CPU) dominate, and the HPA reaches
 * maxReplicas early, past which the replicas run on CPU the scheduler never reserved.
 */
const LEAST_SCALE_OUT_MILLICORES = 150;
const mebibytes = (quantity: string) => {
  const [, amount, unit] = /^(\d+)(Mi|Gi)$/.exec(quantity) ?? [];
  return Number(amount) * (unit === 'Gi' ? 1024 : unit === 'Mi' ? 1 : NaN);
};
/** A variable as the container's process sees it: its own env first, else the last ConfigMap of envFrom that has it. */
function variableOf(c: Container, name: string, configMaps: K8sObject[]): string | undefined {
  const own = c.env?.find((e) => e.name === name);
  if (own) {
    return own.value;
  }
  const sources = (c.envFrom ?? []).map((e) => configMaps.find((m) => m.metadata.name === e.configMapRef?.name)?.data as Record<string, string> | undefined);
  return sources.reverse().find((data) => data && name in data)?.[name];
}
/**
 * Stand-ins for what a container reads from its Secrets, so that its configuration can be loaded
 * from the manifests: the values are the operator's, only their presence is the manifests'.
 */
const SECRET_STAND_INS: Record<string, string> = {
  DATABASE_URL: 'postgres://stand-in@postgres/gateway',
  API_PASSWORD_PEPPER: 'x'.repeat(32),
  REDIS_URL: 'rediss://stand-in@redis:6379',
};
/** The environment a container's process gets: its Secrets' stand-ins, its ConfigMaps (the last one wins), its own env. */
function environmentOf(c: Container, configMaps: K8sObject[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of c.envFrom ?? []) {
    if (source.secretRef && source.secretRef.name.endsWith('-database')) env.DATABASE_URL = SECRET_STAND_INS.DATABASE_URL;
    if (source.secretRef?.name === 'api-edge-secrets') env.API_PASSWORD_PEPPER = SECRET_STAND_INS.API_PASSWORD_PEPPER;
    const data = configMaps.find((m) => m.metadata.name === source.configMapRef?.name)?.data as Record<string, string> | undefined;
    Object.assign(env, data ?? {});
  }
  for (const variable of c.env ?? []) {
    const standIn = variable.valueFrom?.secretKeyRef ? SECRET_STAND_INS[variable.name] : undefined;
    if (variable.valueFrom?.secretKeyRef && standIn === undefined) {
      throw new Error(`${c.name}: ${variable.name} comes from a Secret; give it a stand-in in SECRET_STAND_INS`);
    }
    env[variable.name] = standIn ?? variable.value ?? '';
  }
  return env;
}
/** Variables the apps' containers set that no config class reads: Node's own. */
const RUNTIME_VARIABLES = ['NODE_OPTIONS'];
/**
 * What the manifests set for an app that the app never reads, each as `<Deployment>: env <name>`
 * or `ConfigMap <name>: <key>`: a misspelt name, or a setting given to the wrong app (the ledger's
 * ConfigMap setting the edge's lock lease), starts the app with the default instead. A container's
 * own env is held against its app's config class; a ConfigMap's key against those of every app that
 * loads it (gateway-config is shared: PUBLIC_BASE_URL is browser-payment's alone).
 */
function unreadVariables(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const readers = new Map<string, Set<string>>();
  for (const name of [...APPS, ...Object.keys(MODE_OF)]) {
    const read = new Set([...Object.keys(new (configClassOf(name))()), ...RUNTIME_VARIABLES]);
    for (const deployment of objects.filter((o) => o.kind === 'Deployment' && o.metadata.name === name)) {
      for (const c of podSpecOf(deployment)!.containers) {
        problems.push(...(c.env ?? []).filter((e) => !read.has(e.name)).map((e) => `${name}: env ${e.name}`));
        for (const configMap of (c.envFrom ?? []).flatMap((e) => (e.configMapRef ? [e.configMapRef.name] : []))) {
          readers.set(configMap, new Set([...(readers.get(configMap) ?? []), ...read]));
        }
      }
    }
  }
  for (const configMap of objects.filter((o) => o.kind === 'ConfigMap' && readers.has(o.metadata.name))) {
    const read = readers.get(configMap.metadata.name)!;
    problems.push(...Object.keys((configMap.data ?? {}) as object).filter((key) => !read.has(key)).map((key) => `ConfigMap ${configMap.metadata.name}: ${key}`));
  }
  return problems;
}
/** The config class an app's Deployment (or one running its image in another mode) reads. */
function configClassOf(deployment: string): new () => PlatformConfig {
  const app = MODE_OF[deployment] ?? deployment;
  const section = SECTIONS.find((s) => s.title === app);
  if (!section) throw new Error(`no config class for ${deployment}`);
  return section.configClass as new () => PlatformConfig;
}
/** A probe's timing; Kubernetes' defaults: timeoutSeconds 1, periodSeconds 10, failureThreshold 3. */
type Probe = { timeoutSeconds?: number; periodSeconds?: number; failureThreshold?: number };
/** Pods a Deployment runs at most: its HPA's maximum, plus the surge of a rollout at that scale. */
function podsAtFullScale(deployment: K8sObject, hpas: K8sObject[]): number {
  const hpa = hpas.find((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === deployment.metadata.name);
  const spec = deployment.spec as { replicas?: number; strategy?: { rollingUpdate?: { maxSurge?: number | string } } };
  const replicas = hpa ? (hpa.spec as { maxReplicas: number }).maxReplicas : (spec.replicas ?? 1);
  // Kubernetes' default surge is 25%, a percentage rounded up.
  const surge = spec.strategy?.rollingUpdate?.maxSurge ?? '25%';
  return replicas + (typeof surge === 'number' ? surge : Math.ceil((replicas * parseInt(surge, 10)) / 100));
}
/** The highest RSS each distributed process reached under load in the last bench run (MiB, by process name). */
function measuredPeakRss(): Record<string, number> {
  type Result = { profile: string; peakRssMb: Record<string, number> };
  const { results } = JSON.parse(readFileSync(path.join(ROOT, 'docs/performance-results.json'), 'utf8')) as { results: Result[] };
  const peaks: Record<string, number> = {};
  for (const result of results.filter((r) => r.profile === 'distributed')) {
    for (const [process, mb] of Object.entries(result.peakRssMb)) {
      peaks[process] = Math.max(peaks[process] ?? 0, mb);
    }
  }
  return peaks;
}
const secretsOf = (c: Container) => [
  ...(c.envFrom ?? []).flatMap((e) => (e.secretRef ? [e.secretRef.name] : [])),
  ...(c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [])),
];

describe.each(OVERLAYS)('k8s/%s', (overlay) => {
  let objects: K8sObject[];
  const find = (kind: string, name?: string) => objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  const workloads = () => objects.filter((o) => podSpecOf(o));
  /** Each app's configuration as its pods load it at start, from the rendered ConfigMaps and env. */
  const deployedConfigs = (): [string, PlatformConfig][] =>
    [...APPS, ...Object.keys(MODE_OF)].map((name) => {
      const [container] = podSpecOf(find('Deployment', name)[0])!.containers;
      try {
        return [name, loadConfig(configClassOf(name), environmentOf(container, find('ConfigMap')))];
      } catch (err) {
        if (err instanceof ConfigError) throw new Error(`${name} would refuse to start: ${err.message}`);
        throw err;
      }
    });

  beforeAll(() => {
    expect(kustomizeVersion()).toMatch(/Kustomize Version: v5\./);
    objects = render(overlay);
  });

  it(`renders, and every object is valid against the Kubernetes ${KUBERNETES_SCHEMAS} schemas (Prometheus Operator CRDs included)`, () => {
    expect(objects.length).toBeGreaterThanOrEqual(3);
    const invalid: string[] = [];
    for (const object of objects) {
      try {
        new (modelOf(object))(object).validate();
      } catch (err) {
        invalid.push(`${object.kind}/${object.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('gives every container requests, limits and a locked-down, non-root security context', () => {
    const problems: string[] = [];
    for (const workload of workloads()) {
      const spec = podSpecOf(workload)!;
      for (const c of containersOf(spec)) {
        const where = `${workload.kind}/${workload.metadata.name}/${c.name}`;
        for (const kind of ['requests', 'limits'] as const) {
          if (!c.resources?.[kind]?.cpu || !c.resources?.[kind]?.memory) problems.push(`${where}: no cpu/memory ${kind}`);
        }
        if (!(c.securityContext?.runAsNonRoot ?? spec.securityContext?.runAsNonRoot)) problems.push(`${where}: may run as root`);
        if (c.securityContext?.allowPrivilegeEscalation !== false) problems.push(`${where}: privilege escalation allowed`);
        if (c.securityContext?.readOnlyRootFilesystem !== true) problems.push(`${where}: writable root file system`);
        if (!c.securityContext?.capabilities?.drop?.includes('ALL')) problems.push(`${where}: capabilities not dropped`);
        if (!/:[\w.-]+$/.test(c.image) || c.image.endsWith(':latest')) problems.push(`${where}: image ${c.image} has no release tag`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('limits every container at or above its request, and every app at a whole core of CPU at least', () => {
    const problems: string[] = [];
    for (const workload of workloads()) {
      for (const c of containersOf(podSpecOf(workload)!)) {
        const where = `${workload.kind}/${workload.metadata.name}/${c.name}`;
        const cpu = { request: millicores(c.resources?.requests?.cpu), limit: millicores(c.resources?.limits?.cpu) };
        const memory = { request: mebibytes(c.resources?.requests?.memory ?? ''), limit: mebibytes(c.resources?.limits?.memory ?? '') };
        if (!(cpu.limit >= cpu.request)) problems.push(`${where}: cpu limit ${cpu.limit}m below its request ${cpu.request}m`);
        if (!(memory.limit >= memory.request)) problems.push(`${where}: memory limit ${memory.limit} Mi below its request ${memory.request} Mi`);
      }
    }
    // An app runs its JavaScript on one thread: a CFS quota below one core stops it for the rest of
    // every 100 ms period once spent, a stall on every request in flight.
    for (const deployment of find('Deployment').filter((d) => APPS.includes(d.metadata.name) || d.metadata.name in MODE_OF)) {
      const [c] = podSpecOf(deployment)!.containers;
      if (!(millicores(c.resources?.limits?.cpu) >= 1000)) problems.push(`${deployment.metadata.name}: cpu limit ${c.resources?.limits?.cpu}, under one core`);
    }
    expect(problems).toEqual([]);
  });

  it("caps every app's old generation well inside its memory limit, keeping production's source maps", () => {
    const problems: string[] = [];
    for (const deployment of find('Deployment').filter((d) => APPS.includes(d.metadata.name) || d.metadata.name in MODE_OF)) {
      for (const c of podSpecOf(deployment)!.containers) {
        const options = c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
        const cap = Number(/--max-old-space-size=(\d+)/.exec(options)?.[1] ?? NaN);
        const limit = mebibytes(c.resources?.limits?.memory ?? '');
        if (!options.includes('--enable-source-maps')) problems.push(`${deployment.metadata.name}: NODE_OPTIONS drops --enable-source-maps`);
        // The benchmark measures the distributed profile with the deployed flags.
        if (options !== DEPLOYED_NODE_OPTIONS) problems.push(`${deployment.metadata.name}: NODE_OPTIONS '${options}' is not the benchmark's '${DEPLOYED_NODE_OPTIONS}'`);
        // Old space plus young generation, code and native memory: the cap leaves the limit room for them.
        if (!(cap > 0 && cap * 2 <= limit)) problems.push(`${deployment.metadata.name}: old-space cap ${cap} MB against a ${limit} Mi limit`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("keeps each service's live heap at its in-flight cap within half its old generation, and the cap above its pool", () => {
    const configMaps = find('ConfigMap');
    const problems: string[] = [];
    for (const deployment of find('Deployment').filter((d) => SERVICES.includes(d.metadata.name))) {
      const [c] = podSpecOf(deployment)!.containers;
      const oldSpace = Number(/--max-old-space-size=(\d+)/.exec(c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '')?.[1] ?? NaN);
      const cap = Number(variableOf(c, 'NATS_MAX_IN_FLIGHT', configMaps) ?? new PlatformConfig().NATS_MAX_IN_FLIGHT);
      const pool = Number(variableOf(c, 'DATABASE_POOL_SIZE', configMaps) ?? new DatabaseConfig().DATABASE_POOL_SIZE);
      // Measured heap per handler in flight (tools/bench/in-flight-heap-figures.ts): past half the
      // old space, full GCs come back to back and the process nears "heap out of memory".
      const atCap = liveHeapAtCapMb(cap);
      if (!(atCap <= oldSpace / 2)) {
        problems.push(`${deployment.metadata.name}: ${cap} in flight hold about ${Math.round(atCap)} MB live (${IN_FLIGHT_HEAP.restingLiveHeapMb} MB + ${IN_FLIGHT_HEAP.perHandlerKb} KB each) of a ${oldSpace} MB old space`);
      }
      // Handlers queue for the pool's connections: a cap at or below the pool would leave it idle while refusing.
      if (!(cap > pool)) problems.push(`${deployment.metadata.name}: in-flight cap ${cap} not above DATABASE_POOL_SIZE ${pool}`);
    }
    expect(problems).toEqual([]);
  });

  it('requests for every app at least the memory its process peaked at under load in the last bench run', () => {
    const peaks = measuredPeakRss();
    const problems: string[] = [];
    for (const deployment of find('Deployment').filter((d) => APPS.includes(d.metadata.name) || d.metadata.name in MODE_OF)) {
      // The dispatcher is order-transaction's code with the same flags; the bench ran both in one process.
      const measured = peaks[MODE_OF[deployment.metadata.name] ?? deployment.metadata.name];
      for (const c of podSpecOf(deployment)!.containers) {
        const request = mebibytes(c.resources?.requests?.memory ?? '');
        // Below its use a pod is among the first evicted under memory pressure, and the scheduler overcommits its node.
        if (!(measured > 0 && request >= measured)) problems.push(`${deployment.metadata.name}: requests ${request} Mi, measured peak ${measured} MiB`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every long-running container startup, liveness and readiness probes', () => {
    const missing = objects
      .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
      .flatMap((o) => podSpecOf(o)!.containers.map((c) => [o.metadata.name, c] as const))
      .filter(([, c]) => !c.startupProbe || !c.livenessProbe || !c.readinessProbe)
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('holds no Secret values: Secrets are referenced, never committed', () => {
    expect(find('Secret').filter((s) => s.data || s.stringData)).toEqual([]);
    const secrets = new Map(SECTIONS.flatMap((s) => Object.entries(describeVariables(s.configClass))).filter(([, doc]) => doc.secret));
    // A URL secret for its credentials only (REDIS_URL, NATS_URL) may be set without them.
    const committed = ([key, value]: [string, string]) =>
      secrets.has(key) && (!secrets.get(key)!.credentialsInUrl || urlCarriesCredentials(value));
    for (const configMap of find('ConfigMap')) {
      const data = Object.entries((configMap.data ?? {}) as Record<string, string>);
      expect([configMap.metadata.name, data.filter(committed).map(([key]) => key)]).toEqual([configMap.metadata.name, []]);
    }
  });

  it('sets only variables the apps know (a typo would silently keep a default)', () => {
    const known = new Set(SECTIONS.flatMap((s) => Object.keys(new s.configClass())));
    for (const configMap of find('ConfigMap')) {
      expect(Object.keys(configMap.data as object).filter((key) => !known.has(key))).toEqual([]);
    }
  });

  const referencedSecrets = () => {
    const mounted = (spec: PodSpec) => (spec.volumes ?? []).flatMap((v) => (v.secret ? [v.secret.secretName] : []));
    return [...new Set(workloads().flatMap((o) => [...containersOf(podSpecOf(o)!).flatMap(secretsOf), ...mounted(podSpecOf(o)!)]))].sort();
  };

  it('documents how to create every Secret it references', () => {
    const guide = readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8');
    expect(referencedSecrets().filter((name) => !guide.includes(`\`${name}\``))).toEqual([]);
  });

  if (overlay.startsWith('overlays/dev')) {
    it("has every Secret it references created by the guide's trial on kind (its commands, run against stubs)", () => {
      const created = new Set(secretsTheTrialCreates());
      expect(referencedSecrets().filter((name) => !created.has(name))).toEqual([]);
    });
  }

  it("gives each service's database credentials to that service only (and to the migration Job)", () => {
    for (const workload of workloads()) {
      for (const c of containersOf(podSpecOf(workload)!)) {
        for (const secret of secretsOf(c).filter((s) => s.endsWith('-database'))) {
          const owner = secret.replace(/-database$/, '');
          const app = MODE_OF[workload.metadata.name] ?? workload.metadata.name;
          const allowed = app === owner || (workload.kind === 'Job' && (c.name === `migrate-${owner}` || c.name === 'provision-database'));
          expect([`${workload.metadata.name}/${c.name}`, secret, allowed]).toEqual([`${workload.metadata.name}/${c.name}`, secret, true]);
        }
      }
    }
  });

  if (!overlay.endsWith('/migrate')) {
    it("sets on each app only variables that app reads: in its container's env, and in the ConfigMaps it loads", () => {
      expect(unreadVariables(objects)).toEqual([]);
    });

    it('would name a variable a Deployment sets that its app does not read, and a ConfigMap key none of its apps reads', () => {
      const patched = renderPatched(overlay, [
        {
          target: { kind: 'Deployment', name: 'order-transaction-dispatcher' },
          patch: '- op: add\n  path: /spec/template/spec/containers/0/env/-\n  value: { name: WEBHOOK_WORKER, value: "4" }',
        },
        // The edge's lock lease in the ConfigMap only the dispatcher loads: every name is right, on the wrong app.
        { target: { kind: 'ConfigMap', name: 'webhook-dispatcher-config' }, patch: '- op: add\n  path: /data/ORDER_LOCK_TTL_MS\n  value: "60000"' },
      ]);
      expect(unreadVariables(patched)).toEqual([
        'order-transaction-dispatcher: env WEBHOOK_WORKER',
        expect.stringMatching(/^ConfigMap webhook-dispatcher-config-\w+: ORDER_LOCK_TTL_MS$/),
      ]);
    });

    it('gives every app a Deployment that rolls with no unavailability, a Service, an HPA and a PDB', () => {
      for (const app of APPS) {
        const [deployment] = find('Deployment', app);
        const strategy = (deployment.spec as { strategy: { rollingUpdate: { maxUnavailable: number } } }).strategy;
        expect([app, strategy.rollingUpdate.maxUnavailable]).toEqual([app, 0]);
        expect(find('Service', app)).toHaveLength(1);
        const [hpa] = find('HorizontalPodAutoscaler', app);
        expect((hpa.spec as { scaleTargetRef: object }).scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
        const [pdb] = find('PodDisruptionBudget', app);
        expect((pdb.spec as { selector: object }).selector).toEqual({ matchLabels: { 'app.kubernetes.io/name': app } });
      }
    });

    it('scales each app on CPU at a real share of a core, and at half its limit at most', () => {
      const problems: string[] = [];
      for (const app of APPS) {
        const [hpa] = find('HorizontalPodAutoscaler', app);
        type Metric = { type: string; resource?: { name: string; target: { type: string; averageUtilization?: number } } };
        const cpu = (hpa.spec as { metrics: Metric[] }).metrics.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
        if (cpu?.resource?.target.type !== 'Utilization') {
          problems.push(`${app}: its HPA does not scale on CPU utilisation`);
          continue;
        }
        const [c] = podSpecOf(find('Deployment', app)[0])!.containers;
        const request = millicores(c.resources?.requests?.cpu);
        const limit = millicores(c.resources?.limits?.cpu);
        // The HPA adds a replica when the replicas' average use passes the target's share of the request.
        const scaleOut = (request * cpu.resource.target.averageUtilization!) / 100;
        if (!(scaleOut >= LEAST_SCALE_OUT_MILLICORES)) problems.push(`${app}: scales out at ${scaleOut}m, under ${LEAST_SCALE_OUT_MILLICORES}m`);
        // Room for the load to double while the new replica starts, before this one is throttled.
        if (!(scaleOut * 2 <= limit)) problems.push(`${app}: scales out at ${scaleOut}m, less than half its ${limit}m limit`);
      }
      expect(problems).toEqual([]);
    });

    it('lets a pod finish its longest request and outlive its order locks before it is killed', () => {
      const config = Object.assign({}, ...find('ConfigMap').map((c) => c.data)) as Record<string, string>;
      const longestRequest = Number(config.NATS_REQUEST_TIMEOUT_MS);
      const lockTtl = Number(config.ORDER_LOCK_TTL_MS);
      const shutdownGrace = Number(config.SHUTDOWN_GRACE_MS);
      expect(shutdownGrace).toBeGreaterThanOrEqual(longestRequest + lockTtl);
      // The webhook dispatcher finishes its deliveries in flight, each bounded by WEBHOOK_TIMEOUT_MS.
      expect(shutdownGrace).toBeGreaterThanOrEqual(Number(config.WEBHOOK_TIMEOUT_MS));
      // A stopping ledger's longest stop (a completion retried while the database is away, after
      // the operation's own calls and an inquiry in progress) ends before the grace does: the
      // ledger's own startup check, run on the deployed values of each of its modes.
      for (const mode of ORDER_TRANSACTION_MODES) {
        const ledger = loadConfig(OrderTransactionConfig, { ...config, DATABASE_URL: 'postgres://ot@db/gw', REQUEST_HASH_KEY: 'k'.repeat(43), ORDER_TRANSACTION_MODE: mode });
        expect([mode, shutdownGrace >= shutdownGraceNeeded(ledger)]).toEqual([mode, true]);
      }
      // A stopping edge's (the expired-payment settlement in progress, then its longest request), as its own startup check.
      const [, edge] = deployedConfigs().find(([name]) => name === 'api-edge') as [string, EdgeConfig];
      const edgeNeeds = edgeShutdownGraceNeeded(edge);
      expect([edgeNeeds, edge.SHUTDOWN_GRACE_MS >= edgeNeeds]).toEqual([edgeNeeds, true]);
      for (const app of [...APPS, ...Object.keys(MODE_OF)]) {
        const spec = podSpecOf(find('Deployment', app)[0])!;
        const [container] = spec.containers;
        expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
        expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
        expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
        const preStop = container.lifecycle?.preStop?.exec?.command;
        expect(preStop?.[0]).toBe('sleep');
        const preStopMs = Number(preStop?.[1]) * 1000;
        expect(preStopMs).toBeGreaterThan(0);
        expect(spec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(preStopMs + Math.max(shutdownGrace, longestRequest + lockTtl));
      }
    });

    it("counts the edge's longest request in a bucket of the latency histogram, not only in +Inf", async () => {
      // Timed from its headers: the client's body (at most HTTP_REQUEST_TIMEOUT_MS), then the
      // edge's longest work (a payer's step waiting for the order's lock between two requests).
      // Past the last finite bucket, histogram_quantile reads every such request as that bucket's
      // bound, and GatewayHighLatency and the dashboards' p99 with it.
      const [, edge] = deployedConfigs().find(([name]) => name === 'api-edge') as [string, EdgeConfig];
      const longestSeconds = (edge.HTTP_REQUEST_TIMEOUT_MS + longestEdgeRequest(edge)) / 1000;
      const metrics = new Metrics();
      metrics.httpRequestDuration.observe({ route: '/bpui/:provider/in/:token', operation: 'none', status: '303', result: 'none' }, longestSeconds);
      const counted = (await metrics.httpRequestDuration.get()).values
        .filter((v) => v.metricName === 'gateway_http_request_duration_seconds_bucket' && v.value === 1)
        .map((v) => String((v.labels as Record<string, string | number>).le))
        .filter((le) => le !== '+Inf');
      // The value in the failure: a finite bucket that counts it (the smallest is its reading).
      expect([longestSeconds, counted.length > 0]).toEqual([longestSeconds, true]);
    });

    it("keeps the apps' Postgres sessions at full scale, mid-rollout, within what the database accepts", () => {
      const configMaps = find('ConfigMap');
      const poolOf = (c: Container, maps: K8sObject[]) => Number(variableOf(c, 'DATABASE_POOL_SIZE', maps) ?? new DatabaseConfig().DATABASE_POOL_SIZE);
      const usesDatabase = (c: Container) => secretsOf(c).some((secret) => secret.endsWith('-database'));
      const apps = find('Deployment')
        .filter((d) => podSpecOf(d)!.containers.some(usesDatabase))
        .map((d) => {
          const perPod = poolOf(podSpecOf(d)!.containers[0], configMaps) + SESSIONS_BESIDE_THE_POOL(d.metadata.name);
          return [d.metadata.name, podsAtFullScale(d, find('HorizontalPodAutoscaler')) * perPod] as const;
        });
      expect(apps.map(([name]) => name).sort()).toEqual([...APPS, ...Object.keys(MODE_OF)].sort());
      // The migration Job's steps run one at a time, each with a pool of its own (the provisioning step: two clients).
      const migrate = render(`${overlay}/migrate`);
      const [job] = migrate.filter((o) => o.kind === 'Job');
      const jobSessions = Math.max(...containersOf(podSpecOf(job)!).map((c) => poolOf(c, migrate.filter((o) => o.kind === 'ConfigMap'))));
      const needed = apps.reduce((sum, [, sessions]) => sum + sessions, 0) + jobSessions + OPERATOR_SESSIONS;

      // An in-cluster Postgres states its limit in its arguments; an external one's, the namespace's annotation.
      const [postgres] = find('StatefulSet', 'postgres');
      const [namespace] = find('Namespace');
      const maxConnections = postgres && /^max_connections=(\d+)$/.exec(podSpecOf(postgres)!.containers[0].args?.find((a) => a.startsWith('max_connections=')) ?? '')?.[1];
      const accepted = postgres ? Number(maxConnections) - SUPERUSER_RESERVED : Number(namespace.metadata.annotations?.[DATABASE_CONNECTIONS_ANNOTATION]);
      const budget = { ...Object.fromEntries(apps), 'migration Job': jobSessions, operators: OPERATOR_SESSIONS, needed, accepted };
      expect([budget, needed <= accepted]).toEqual([budget, true]);

      // The dispatcher's workers each hold a pooled session while their claims are in flight: its pool keeps room beside them.
      const [dispatcher] = podSpecOf(find('Deployment', 'order-transaction-dispatcher')[0])!.containers;
      const workers = Number(variableOf(dispatcher, 'WEBHOOK_WORKERS', configMaps) ?? new OrderTransactionConfig().WEBHOOK_WORKERS);
      expect(poolOf(dispatcher, configMaps)).toBeGreaterThan(workers);
    });

    it("sets values every app starts with: each variable's bounds and its relations to the others (the lock's lease, the ledger's calls, the workers' connections)", () => {
      expect(deployedConfigs().map(([name]) => name)).toEqual([...APPS, ...Object.keys(MODE_OF)]);
    });

    it('sets one NATS_REQUEST_TIMEOUT_MS for every app: the edge waits it, the ledger and the lock lease are sized against their own copy', () => {
      const timeouts = Object.fromEntries(deployedConfigs().map(([name, config]) => [name, config.NATS_REQUEST_TIMEOUT_MS]));
      expect([timeouts, new Set(Object.values(timeouts)).size]).toEqual([timeouts, 1]);
    });

    it("answers each probe within the kubelet's timeout: the readiness checks, and a start that waits for its database", () => {
      const problems: string[] = [];
      for (const [name, config] of deployedConfigs()) {
        const [container] = podSpecOf(find('Deployment', name)[0])!.containers;
        // The checks run together, each bounded by HEALTH_CHECK_TIMEOUT_MS; a probe that times out
        // first reports nothing of which dependency is away.
        const readinessMs = (container.readinessProbe?.timeoutSeconds ?? 1) * 1000;
        if (!(config.HEALTH_CHECK_TIMEOUT_MS < readinessMs)) {
          problems.push(`${name}: HEALTH_CHECK_TIMEOUT_MS ${config.HEALTH_CHECK_TIMEOUT_MS} against a ${readinessMs} ms readiness probe`);
        }
        // A start that cannot reach its database exits 1 itself (after an attempt of at most 5 s)
        // before the startup probe's window kills it.
        const startup = container.startupProbe ?? {};
        const windowMs = (startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3) * 1000;
        const connectMs = (config as DatabaseConfig).DATABASE_CONNECT_TIMEOUT_SECONDS * 1000 + 5_000;
        if (!(connectMs < windowMs)) problems.push(`${name}: DATABASE_CONNECT_TIMEOUT_SECONDS outlasts the ${windowMs} ms startup probe window`);
      }
      expect(problems).toEqual([]);
    });

    it('lets traffic in from outside to the edge only; services take requests over NATS alone', () => {
      const policies = find('NetworkPolicy');
      type Policy = { podSelector: { matchLabels?: Record<string, string> }; policyTypes: string[]; ingress?: { from?: object[] }[] };
      const denyAll = policies.find((p) => Object.keys((p.spec as Policy).podSelector).length === 0 || !(p.spec as Policy).podSelector.matchLabels);
      expect((denyAll?.spec as Policy).policyTypes).toEqual(['Ingress', 'Egress']);
      expect((denyAll?.spec as Policy).ingress ?? []).toEqual([]);
      // No rule admits anyone (no `from`): not even the edge takes connections from any pod.
      const open = policies.filter((p) => ((p.spec as Policy).ingress ?? []).some((rule) => !rule.from));
      expect(open.map((p) => p.metadata.name)).toEqual([]);
      for (const app of APPS.filter((a) => a !== 'api-edge')) {
        const labels = (podSpecOf(find('Deployment', app)[0]) && (find('Deployment', app)[0].spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels)!;
        const admitting = policies.filter((p) => {
          const selector = (p.spec as Policy).podSelector.matchLabels ?? {};
          const selects = Object.entries(selector).every(([k, v]) => labels[k] === v);
          return selects && ((p.spec as Policy).ingress ?? []).length > 0;
        });
        expect([app, admitting.map((p) => p.metadata.name)]).toEqual([app, ['metrics-scraping']]);
      }
    });

    it("admits to the edge the ingress controller's namespace and, for metrics, Prometheus's: no other pod may pass as the trusted proxy", () => {
      type Peer = { namespaceSelector?: { matchLabels?: Record<string, string> }; podSelector?: object; ipBlock?: object };
      type Policy = { podSelector: { matchLabels?: Record<string, string> }; ingress?: { from?: Peer[]; ports?: { protocol?: string; port: number }[] }[] };
      const labels = (find('Deployment', 'api-edge')[0].spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      const admitting = find('NetworkPolicy').filter((p) => {
        const selector = (p.spec as Policy).podSelector.matchLabels ?? {};
        return Object.entries(selector).every(([k, v]) => labels[k] === v) && ((p.spec as Policy).ingress ?? []).length > 0;
      });
      const peers = admitting.flatMap((p) =>
        ((p.spec as Policy).ingress ?? []).map((rule) => [p.metadata.name, rule.from, rule.ports?.map((port) => port.port)]),
      );
      const namespace = (name: string) => [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } }];
      expect(peers).toEqual([
        ['api-edge', namespace('ingress-nginx'), [8080]],
        // The metrics port alone, which serves nothing but /metrics (METRICS_PORT).
        ['metrics-scraping', namespace('monitoring'), [9464]],
      ]);
    });

    it('gives the key of the replay hashes (Secret request-hash-key) to the services that hash requests, and to no other', () => {
      const holders = find('Deployment')
        .filter((d) => containersOf(podSpecOf(d)!).some((c) => secretsOf(c).includes('request-hash-key')))
        .map((d) => d.metadata.name)
        .sort();
      expect(holders).toEqual(['browser-payment', 'order-transaction']);
    });

    it('gives the API password peppers (Secret api-edge-secrets, whole, so API_PASSWORD_PEPPERS added for a rotation reaches the pods) to the edge alone', () => {
      const holders = find('Deployment').filter((d) => containersOf(podSpecOf(d)!).some((c) => secretsOf(c).includes('api-edge-secrets')));
      expect(holders.map((d) => d.metadata.name)).toEqual(['api-edge']);
      const [edge] = containersOf(podSpecOf(holders[0])!);
      expect(edge.envFrom).toContainEqual({ secretRef: { name: 'api-edge-secrets' } });
    });

    it("runs the webhook dispatcher as order-transaction's image in dispatch mode, scaled on the notifications due, reaching public HTTPS only", () => {
      const [dispatcher] = find('Deployment', 'order-transaction-dispatcher');
      const container = podSpecOf(dispatcher)!.containers[0];
      expect(container.image).toBe(podSpecOf(find('Deployment', 'order-transaction')[0])!.containers[0].image);
      expect(container.env).toContainEqual({ name: 'ORDER_TRANSACTION_MODE', value: 'dispatch' });
      expect(podSpecOf(find('Deployment', 'order-transaction')[0])!.containers[0].env).toContainEqual({ name: 'ORDER_TRANSACTION_MODE', value: 'serve' });
      expect(secretsOf(container).sort()).toEqual(['order-transaction-database', 'order-transaction-webhook-keys']);

      const [hpa] = find('HorizontalPodAutoscaler', 'order-transaction-dispatcher');
      const metrics = (hpa.spec as { metrics: { type: string; external?: { metric: { name: string } } }[] }).metrics;
      // Not the whole backlog (gateway_webhook_outbox_depth): what waits out a backoff needs no replica.
      expect(metrics.map((m) => [m.type, m.external?.metric.name])).toEqual([['External', 'gateway_webhook_outbox_due']]);
      expect(find('PodDisruptionBudget', 'order-transaction-dispatcher')).toHaveLength(1);

      type Egress = { to?: { ipBlock?: { cidr: string; except?: string[] } }[]; ports: { port: number }[] };
      const labels = (dispatcher.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      const policies = find('NetworkPolicy').filter((p) => {
        const selector = (p.spec as { podSelector: { matchLabels?: Record<string, string> } }).podSelector.matchLabels ?? {};
        return Object.entries(selector).every(([k, v]) => labels[k] === v) && ((p.spec as { policyTypes: string[] }).policyTypes ?? []).includes('Egress');
      });
      const egress = policies.flatMap((p) => ((p.spec as { egress?: Egress[] }).egress ?? []));
      const ports = egress.flatMap((rule) => rule.ports.map((port) => port.port)).sort((a, b) => a - b);
      expect(ports).toEqual([53, 53, 443, 5432]);
      const https = egress.find((rule) => rule.ports.some((port) => port.port === 443))!;
      const exceptOf = (cidr: string) => https.to!.find((to) => to.ipBlock?.cidr === cidr)!.ipBlock!.except!;
      // Every range the dispatcher's own check refuses is kept out by the policy too, in each
      // IPv6 form that carries an IPv4 address (mapped, translated, compatible, NAT64).
      const embeddedIn = (prefix: string) => NON_PUBLIC_IPV4.map((range) => ({ network: `${prefix}${ipv4AsHex(range.network)}`, prefix: 96 + range.prefix }));
      const required = {
        ipv4: NON_PUBLIC_IPV4,
        ipv6: [...NON_PUBLIC_IPV6, ...['::ffff:', '::ffff:0:', '::', '64:ff9b::'].flatMap(embeddedIn)],
      };
      const uncovered = (family: 'ipv4' | 'ipv6', except: string[]) =>
        required[family].filter((range) => !except.some((entry) => rangeWithin(range, entry, family))).map(({ network, prefix }) => `${network}/${prefix}`);
      expect(uncovered('ipv4', exceptOf('0.0.0.0/0'))).toEqual([]);
      expect(uncovered('ipv6', exceptOf('::/0'))).toEqual([]);
    });

    it("lets the admin CLI pod of the operator's guide run: restricted pod security, Postgres within reach", () => {
      const { labels, overrides } = documentedAdminPod();
      const spec = overrides.spec as {
        securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
        containers: { securityContext?: { allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } } }[];
      };
      // The namespaces enforce the restricted pod security standard; kubectl run sets none of it.
      const [namespace] = find('Namespace');
      expect(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const container of spec.containers) {
        expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      }

      type Policy = {
        podSelector: { matchLabels?: Record<string, string> };
        policyTypes: string[];
        egress?: { ports?: { port: number }[] }[];
        ingress?: { from?: { podSelector?: { matchLabels?: Record<string, string> } }[]; ports?: { port: number }[] }[];
      };
      const selects = (selector: Record<string, string> | undefined) => Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
      const policies = find('NetworkPolicy').map((p) => p.spec as Policy);
      const egressPorts = policies
        .filter((p) => p.policyTypes.includes('Egress') && selects(p.podSelector.matchLabels))
        .flatMap((p) => (p.egress ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => port.port)));
      expect(egressPorts).toContain(5432);
      // Where Postgres runs in the cluster (dev), its policy admits the pod too.
      const postgres = find('NetworkPolicy', 'postgres').map((p) => p.spec as Policy);
      for (const policy of postgres) {
        const admitted = (policy.ingress ?? []).some((rule) => (rule.from ?? []).some((from) => selects(from.podSelector?.matchLabels)));
        expect(admitted).toBe(true);
      }
    });

    it('runs the apps with migrations left to the Job, and lets Prometheus find them on their metrics port', () => {
      const config = Object.assign({}, ...find('ConfigMap').map((c) => c.data)) as Record<string, string>;
      expect(config.DATABASE_MIGRATE_ON_START).toBe('false');
      expect(config.METRICS_PORT).toBe('9464');
      for (const app of [...APPS, ...Object.keys(MODE_OF)]) {
        const template = (find('Deployment', app)[0].spec as { template: { metadata: { annotations: Record<string, string> } } }).template;
        expect(template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': config.METRICS_PORT, 'prometheus.io/path': '/metrics' });
        const ports = podSpecOf(find('Deployment', app)[0])!.containers[0].ports;
        expect([app, ports?.find((port) => port.name === 'metrics')?.containerPort]).toEqual([app, Number(config.METRICS_PORT)]);
        const servicePorts = (find('Service', app)[0].spec as { ports: { name: string; targetPort: string }[] }).ports;
        expect([app, servicePorts.find((port) => port.name === 'metrics')?.targetPort]).toEqual([app, 'metrics']);
      }
    });
  }

  if (overlay === 'overlays/production') {
    it('connects every app to NATS over TLS it verifies against the private CA mounted from the Secret nats-ca', () => {
      const config = Object.assign({}, ...find('ConfigMap').map((c) => c.data)) as Record<string, string>;
      expect(config.NATS_URL.split(',').filter((url) => !url.startsWith('tls://'))).toEqual([]);
      expect(config.NATS_TLS_CA_FILE).toBe('/etc/gateway/nats-ca/ca.crt');
      for (const deployment of find('Deployment')) {
        const spec = podSpecOf(deployment)!;
        const volume = (spec.volumes ?? []).find((v) => v.secret?.secretName === 'nats-ca');
        expect([deployment.metadata.name, volume?.secret?.items]).toEqual([deployment.metadata.name, [{ key: 'ca.crt', path: 'ca.crt' }]]);
        const mount = spec.containers[0].volumeMounts?.find((m) => m.name === volume!.name);
        expect([deployment.metadata.name, mount?.mountPath, mount?.readOnly]).toEqual([deployment.metadata.name, '/etc/gateway/nats-ca', true]);
      }
    });

    it("switches the edge's probes to HTTPS with the guide's patch for TLS at the edge itself, and no other app's", () => {
      // With TLS_CERT_FILE the edge answers on its port over HTTPS only: plain-HTTP probes fail,
      // and the kubelet restarts the edge's pods before they ever start.
      const patched = renderPatched(overlay, documentedEdgeTlsPatches());
      const schemes = (deployment: K8sObject) => {
        const [c] = podSpecOf(deployment)!.containers;
        return (['startupProbe', 'livenessProbe', 'readinessProbe'] as const).map((probe) => [probe, c[probe]?.httpGet?.port, c[probe]?.httpGet?.scheme ?? 'HTTP']);
      };
      for (const deployment of patched.filter((o) => o.kind === 'Deployment')) {
        const scheme = deployment.metadata.name === 'api-edge' ? 'HTTPS' : 'HTTP';
        expect([deployment.metadata.name, schemes(deployment)]).toEqual([deployment.metadata.name, ['startupProbe', 'livenessProbe', 'readinessProbe'].map((probe) => [probe, 'http', scheme])]);
      }
    });

    const alertExpr = (alert: string): string => {
      const rules = find('PrometheusRule').flatMap((r) => (r.spec as { groups: { rules: { alert?: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules));
      const rule = rules.find((r) => r.alert === alert);
      if (!rule) throw new Error(`no alert ${alert}`);
      return rule.expr;
    };

    it("alerts when any app's pod, the webhook dispatcher's included, cannot be scraped", () => {
      // The Prometheus Operator labels a target `service` with the Service it was found through.
      const [monitor] = find('ServiceMonitor');
      expect((monitor.spec as { endpoints: { port: string }[] }).endpoints.map((endpoint) => endpoint.port)).toEqual(['metrics']);
      const selector = (monitor.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      const scraped = find('Service')
        .filter((service) => Object.entries(selector).every(([k, v]) => service.metadata.labels?.[k] === v))
        .map((service) => service.metadata.name)
        .sort();
      expect(scraped).toEqual(expect.arrayContaining([...APPS, ...Object.keys(MODE_OF)]));
      const watched = /up\{service=~"([^"]+)"\}/.exec(alertExpr('GatewayTargetDown'))?.[1].split('|').sort();
      expect(watched).toEqual(scraped);
    });

    it('computes the error rate over API requests alone, above the line as below it', () => {
      const selectors = [...alertExpr('GatewayHighErrorRate').matchAll(/gateway_http_request_duration_seconds_count\{([^}]*)\}/g)].map(
        (m) => new Set(m[1].split(/,(?=\s*\w+\s*(?:=|!=|=~|!~))/).map((matcher) => matcher.trim())),
      );
      expect(selectors).toHaveLength(2);
      const [numerator, denominator] = selectors;
      expect(denominator).toContain('route!~"/health.*|/metrics"');
      // The numerator is the denominator's requests answered 5xx: the same matchers and the status.
      expect([...denominator].filter((m) => !numerator.has(m))).toEqual([]);
      expect([...numerator].filter((m) => !denominator.has(m))).toEqual(['status=~"5.."']);
    });

    it('names in its alerts only metrics the apps export', () => {
      // A rule over a metric nobody exports evaluates to nothing, so its alert never fires.
      const rules = find('PrometheusRule').flatMap((r) => (r.spec as { groups: { rules: { alert?: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules));
      const exported = exportedMetricNames();
      const unknown = rules.flatMap((rule) => metricsNamedIn(rule.expr).filter((name) => !exported.has(name)).map((name) => `${rule.alert}: ${name}`));
      expect(rules.length).toBeGreaterThanOrEqual(10);
      expect(unknown).toEqual([]);
    });

    it("filters and aggregates its alerts' and autoscalers' metrics only by labels they carry, with values the apps set and the series of their type", () => {
      // An alert over a label a metric does not carry, a value the apps never set, or a series
      // its type does not have (a counter's _count, a histogram without _bucket/_sum/_count)
      // evaluates to nothing: it never fires.
      const rules = find('PrometheusRule').flatMap((r) =>
        (
          r.spec as {
            groups: {
              rules: {
                alert?: string;
                record?: string;
                expr: string;
                annotations?: Record<string, string>;
              }[];
            }[];
          }
        ).groups.flatMap((g) => g.rules),
      );
      const { metrics, literals } = exportedMetrics();
      // The reading of the sources finds what the apps register (the Metrics service's own too); one
      // it missed would fail below as a series no metric has, never pass unchecked.
      expect(metrics.size).toBeGreaterThanOrEqual(25);
      expect(metrics.get('gateway_http_request_duration_seconds')).toEqual({
        type: 'histogram',
        labels: ['route', 'operation', 'status', 'result'],
      });
      expect(metrics.get('gateway_timed_out_reversals_total')).toEqual({
        type: 'counter',
        labels: ['outcome'],
      });
      const problems = rules.flatMap((rule) =>
        metricProblemsIn(rule.expr, metrics, literals).map(
          (problem) => `${rule.alert ?? rule.record}: ${problem}`,
        ),
      );
      expect(problems).toEqual([]);
      // What an alert's annotations name of `$labels` its expression's result carries: an
      // aggregation keeps its `by` labels alone, a selection its metric's and the target's.
      const unlabelled = rules.flatMap((rule) => {
        const aggregated =
          /\b(?:sum|min|max|avg|count|topk|bottomk|quantile|stddev|stdvar|group)\b\s*(?:by|without|\()/.test(
            rule.expr,
          );
        const kept = aggregated
          ? [...rule.expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) =>
              m[1].split(',').map((l) => l.trim()),
            )
          : [
              ...TARGET_LABELS,
              ...metricsNamedIn(rule.expr).flatMap((name) => metrics.get(name)?.labels ?? []),
            ];
        const named = [...JSON.stringify(rule.annotations ?? {}).matchAll(/\$labels\.(\w+)/g)].map(
          (m) => m[1],
        );
        return named
          .filter((label) => !kept.includes(label))
          .map((label) => `${rule.alert}: $labels.${label}`);
      });
      expect(unlabelled).toEqual([]);
      const external = find('HorizontalPodAutoscaler').flatMap((hpa) =>
        ((hpa.spec as { metrics: { external?: { metric: { name: string } } }[] }).metrics ?? []).flatMap(
          (m) => (m.external ? [m.external.metric.name] : []),
        ),
      );
      expect(external.length).toBeGreaterThan(0);
      expect(external.filter((name) => metrics.get(name)?.type !== 'gauge')).toEqual([]);
    });

    it("alerts on a single event over counters that show a process's first one", () => {
      // `increase()` reads nothing from a series whose first sample is already 1: a counter
      // series appears at its first event, so an alert on a rare event (once in a process's life)
      // would never fire. Such a counter is exported from 0 (Metrics.counter's `zeroes`), or its
      // alert also fires on a series that was not there 15 minutes before (`unless ... offset`).
      const rules = find('PrometheusRule').flatMap((r) => (r.spec as { groups: { rules: { alert?: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules));
      const { metrics, fromZero } = exportedMetrics();
      const singleEvent = rules.filter((rule) => /\bincrease\(/.test(rule.expr));
      expect(singleEvent.length).toBeGreaterThanOrEqual(5);
      expect(fromZero).toContain('gateway_timed_out_reversals_total');
      expect(fromZero).toContain('gateway_personal_data_retention_orders_total');
      const unseen = singleEvent.flatMap((rule) =>
        [...rule.expr.matchAll(/\bincrease\((gateway_[a-z0-9_]+)/g)]
          .map((m) => m[1])
          .filter((name) => metrics.get(name)?.type === 'counter' && !fromZero.has(name))
          .filter((name) => !new RegExp(`\\bunless\\s+${name}\\s+offset\\b`).test(rule.expr))
          .map((name) => `${rule.alert}: ${name}`),
      );
      expect(unseen).toEqual([]);
    });

    it("points each alert at its runbook entry, a heading of the operator's guide", () => {
      const rules = find('PrometheusRule').flatMap((r) =>
        (r.spec as { groups: { rules: { alert?: string; annotations?: { runbook?: string } }[] }[] }).groups.flatMap((g) => g.rules),
      );
      // GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
      const anchors = new Set(
        [...readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
          m[1].trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'),
        ),
      );
      const unanchored = rules
        .filter((rule) => rule.alert)
        .map((rule) => [rule.alert, rule.annotations?.runbook] as const)
        .filter(([, runbook]) => !runbook?.startsWith('docs/operations/README.md#') || !anchors.has(runbook.split('#')[1]));
      expect(unanchored).toEqual([]);
    });

    it("leaves the throttle's 503s out of the error rate, and still computes it while nobody was throttled", () => {
      // A client guessing passwords, or a merchant over its own rate limit, is answered 503
      // SERVER_BUSY: their doing, not the gateway's. The counter has no series until the first.
      expect(alertExpr('GatewayHighErrorRate').replace(/\s+/g, ' ')).toContain('- (sum(rate(gateway_edge_throttled_requests_total[5m])) or vector(0))');
    });

    it("leaves the edge's own refusals at its in-flight cap out of the error rate, and pages on them in an alert of their own at the same line", () => {
      // A request refused at EDGE_MAX_IN_FLIGHT is the designed answer to overload, not a fault:
      // its remedy is capacity, so it must not page as an error storm, nor dilute the error rate
      // of the requests the edge took on. But each is a failed request for the merchant who got
      // it, so the share that paged as errors before still pages, under its own name.
      const errorRate = alertExpr('GatewayHighErrorRate').replace(/\s+/g, ' ');
      const shed = '(sum(rate(gateway_edge_requests_shed_total[5m])) or vector(0))';
      const [, numerator, denominator, line] = /^\((.*)\) \/ \((.*)\) > ([\d.]+) $/.exec(errorRate) ?? [];
      expect(numerator).toContain(`- ${shed}`);
      expect(denominator).toContain(`- ${shed}`);
      const requests = denominator.replace(` - ${shed}`, '');
      expect(requests).toMatch(/^sum\(rate\(gateway_http_request_duration_seconds_count\{[^}]*\}\[5m\]\)\)$/);
      const rules = find('PrometheusRule').flatMap((r) =>
        (r.spec as { groups: { rules: { alert?: string; expr: string; for?: string; labels?: Record<string, string> }[] }[] }).groups.flatMap((g) => g.rules),
      );
      const paging = rules.find((rule) => rule.alert === 'GatewayHighErrorRate')!;
      const overloaded = rules.find((rule) => rule.alert === 'GatewayEdgeOverloaded');
      expect(overloaded?.expr.replace(/\s+/g, ' ').trim()).toBe(`sum(rate(gateway_edge_requests_shed_total[5m])) / ${requests} > ${line}`);
      expect(overloaded).toMatchObject({ for: paging.for, labels: { severity: paging.labels?.severity } });
    });

    it('pages on a service unavailable at a share of its requests held for minutes, not at any rate, as its runbook says', () => {
      // A timeout or two under a spike, or a replica's restart, is no outage; a sustained share of
      // a subject's requests answered 503 is one (docs/decisions/edge-admission.md, 2026-11-28).
      const rules = find('PrometheusRule').flatMap((r) =>
        (r.spec as { groups: { rules: { alert?: string; expr: string; for?: string; labels?: Record<string, string> }[] }[] }).groups.flatMap((g) => g.rules),
      );
      const rule = rules.find((r) => r.alert === 'GatewayServiceUnavailable')!;
      const expr = rule.expr.replace(/\s+/g, ' ').trim();
      const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const unavailable = escaped('sum by (subject) (rate(gateway_nats_request_duration_seconds_count{outcome="unavailable"}[5m]))');
      const requests = escaped('sum by (subject) (rate(gateway_nats_request_duration_seconds_count[5m]))');
      const [, share, least] = new RegExp(`^${unavailable} / ${requests} > ([\\d.]+) and ${unavailable} > ([\\d.]+)$`).exec(expr) ?? [];
      expect([expr, Number(share) > 0 && Number(share) <= 0.1, Number(least) > 0]).toEqual([expr, true, true]);
      expect(rule).toMatchObject({ for: '5m', labels: { severity: 'critical' } });
      const guide = readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8');
      const runbook = /^### GatewayServiceUnavailable\n([\s\S]*?)^###/m.exec(guide)?.[1] ?? '';
      expect([runbook.includes(`${Number(share) * 100}%`), /\bcritical\b/i.test(runbook)]).toEqual([true, true]);
    });

    it('believes forwarded headers from the pod network at most, never from a whole private range', () => {
      const config = Object.assign({}, ...find('ConfigMap').map((c) => c.data)) as Record<string, string>;
      const trusted = new TrustedProxies(config.TRUSTED_PROXIES);
      expect(trusted.entries.length).toBeGreaterThan(0);
      // A range at least as wide as one of these holds the nodes and the network around the
      // cluster, whose connections the api-edge NetworkPolicy does not reliably hold back.
      const wide = [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['0.0.0.0', 0]] as const;
      const tooWide = trusted.entries.filter((entry) => {
        const prefix = Number(entry.split('/')[1]);
        return wide.some(([network, bits]) => prefix <= bits && new TrustedProxies(entry).includes(network));
      });
      expect(tooWide).toEqual([]);
    });

    it("waits at the Ingress for the edge's longest answer, so that a merchant gets the gateway's answer rather than the proxy's 504", () => {
      const [ingress] = find('Ingress', 'api-edge');
      // ingress-nginx's default proxy-read-timeout, in seconds.
      const readTimeoutMs = Number(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-read-timeout'] ?? 60) * 1000;
      const [, edge] = deployedConfigs().find(([name]) => name === 'api-edge') as [string, EdgeConfig];
      // The longest request the shutdown grace counts: a payer's step (its lock wait between two requests), or an order operation's lock wait, one budget for its requests and a LOCK_FAILURE answer's read.
      const longestAnswerMs = longestEdgeRequest(edge);
      expect([longestAnswerMs, readTimeoutMs, longestAnswerMs < readTimeoutMs]).toEqual([longestAnswerMs, readTimeoutMs, true]);
    });

    it("sends payers' browsers through the Ingress: browser-payment's PUBLIC_BASE_URL is HTTPS on the host the Ingress serves with TLS", () => {
      type IngressSpec = { tls: { hosts: string[] }[]; rules: { host: string }[] };
      const spec = find('Ingress', 'api-edge')[0].spec as IngressSpec;
      const [, browserPayment] = deployedConfigs().find(([name]) => name === 'browser-payment') as [string, BrowserPaymentConfig];
      const url = new URL(browserPayment.PUBLIC_BASE_URL);
      // An operator who changes the Ingress's host (ingress.yaml) changes this with it, or redirect URLs lead elsewhere.
      expect([url.protocol, spec.rules.map((r) => r.host), spec.tls.flatMap((t) => t.hosts)]).toEqual(['https:', [url.hostname], [url.hostname]]);
    });

    it("routes only the edge's public paths from the Ingress: health and metrics stay inside the cluster", () => {
      type Path = { path: string; pathType: string; backend: { service: { name: string; port: { name?: string } } } };
      const [ingress] = find('Ingress', 'api-edge');
      const rules = (ingress.spec as { rules: { http: { paths: Path[] } }[] }).rules;
      const paths = rules.flatMap((rule) => rule.http.paths);
      expect(paths.map((p) => [p.path, p.pathType, p.backend.service.name, p.backend.service.port.name])).toEqual([
        ['/api', 'Prefix', 'api-edge', 'http'],
        ['/bpui', 'Prefix', 'api-edge', 'http'],
      ]);
      expect(find('Ingress')).toHaveLength(1);
      // Prefix matching is by whole path elements (Kubernetes' rule for pathType Prefix).
      const routed = (requestPath: string) =>
        paths.some((p) => requestPath === p.path || requestPath.startsWith(p.path.endsWith('/') ? p.path : `${p.path}/`));
      for (const inside of ['/health/live', '/health/ready', '/metrics', '/']) {
        expect([inside, routed(inside)]).toEqual([inside, false]);
      }
      // Every route of the edge's HTTP controllers is reachable (the catch-all answering unknown paths aside).
      const routes = edgeControllerPaths().filter((p) => p !== '/');
      expect(routes.length).toBeGreaterThanOrEqual(5);
      expect(routes.filter((p) => !routed(p))).toEqual([]);
      expect(platformControllerPaths().filter(routed)).toEqual([]);
    });
  }

  if (overlay.endsWith('/migrate')) {
    it("provisions the roles, then migrates every app's schema with that app's own image, in order", () => {
      const [job] = find('Job');
      const spec = podSpecOf(job)!;
      const steps = containersOf(spec);
      expect(steps.map((c) => c.name)).toEqual(['provision-database', ...APPS.map((a) => `migrate-${a}`)]);
      expect(steps[0].image).toMatch(/\/admin:/);
      expect((steps[0] as { args?: string[] }).args).toEqual(['provision-database']);
      for (const [i, app] of APPS.entries()) {
        expect(steps[i + 1].image).toMatch(new RegExp(`/${app}:`));
        expect((steps[i + 1] as { args?: string[] }).args).toEqual(['migrate']);
      }
      const provisioned = new Set((steps[0].env ?? []).map((e) => e.name));
      expect(provisioned).toEqual(new Set(Object.keys(describeVariables(ProvisionDatabaseConfig)).filter((v) => v.endsWith('DATABASE_URL') || v === 'DATABASE_ADMIN_URL')));
      expect(Object.keys(describeVariables(AdminConfig))).toEqual(expect.arrayContaining(['API_PASSWORD_PEPPER', 'API_PASSWORD_PEPPERS']));
      expect(steps.flatMap(secretsOf)).not.toContain('api-edge-secrets');
    });

    it("gives one step a longer lock wait with the guide's patch, and no other step", () => {
      const guide = readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8');
      const block = /give one run a longer wait[\s\S]*?```yaml\n([\s\S]*?)\n```/.exec(guide)?.[1];
      if (!block) throw new Error('the guide has no patch (a yaml block) after "give one run a longer wait"');
      const steps = containersOf(podSpecOf(renderPatched(overlay, (parseYaml(block) as { patches: object[] }).patches).find((o) => o.kind === 'Job')!)!);
      const waits = steps
        .filter((c) => c.name.startsWith('migrate-'))
        .map((c) => [c.name, loadConfig(DatabaseConfig, environmentOf(c, [])).DATABASE_MIGRATION_LOCK_TIMEOUT_MS]);
      expect(waits).toEqual(APPS.map((app) => [`migrate-${app}`, app === 'order-transaction' ? 30_000 : 5_000]));
    });

    it('retries a run that failed or was stopped (exit 143) in a new pod, a few times and within the release’s wait, then fails', () => {
      const [job] = find('Job');
      const spec = job.spec as {
        backoffLimit?: number;
        activeDeadlineSeconds?: number;
        ttlSecondsAfterFinished?: number;
        podFailurePolicy?: unknown;
        template: { spec: { restartPolicy?: string } };
      };
      // Never: a failed step fails its pod, whose logs stay, and the next pod runs every step again.
      expect(spec.template.spec.restartPolicy).toBe('Never');
      expect(spec.backoffLimit).toBeGreaterThanOrEqual(1);
      expect(spec.backoffLimit).toBeLessThanOrEqual(3);
      // The runbook waits 15 minutes for the Job: by then it has completed or failed.
      expect(spec.activeDeadlineSeconds).toBeLessThanOrEqual(15 * 60);
      expect(spec.ttlSecondsAfterFinished).toBeGreaterThanOrEqual(3_600);
      // A node drained or a preemption during the run is not one of its tries.
      expect(spec.podFailurePolicy).toEqual({ rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] });
    });
  }
});

/**
 * The Secrets the guide's "A trial on kind or minikube" creates: its shell block, run by bash
 * with kubectl, docker, kind and openssl stubbed (kubectl prints the name of each Secret created).
 */
function secretsTheTrialCreates(): string[] {
  const guide = readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8');
  const block = /## A trial on kind or minikube\s+```sh\n([\s\S]*?)\n```/.exec(guide)?.[1];
  if (!block) {
    throw new Error('the guide has no shell block under "A trial on kind or minikube"');
  }
  const stubs = [
    'kubectl() { while [ $# -gt 0 ]; do if [ "$1" = secret ] && [ "$2" = generic ]; then echo "$3"; return; fi; shift; done; }',
    'docker() { :; }',
    'kind() { :; }',
    'openssl() { echo c2VjcmV0; }',
  ].join('\n');
  const output = execFileSync('bash', ['-euo', 'pipefail', '-c', `${stubs}\n${block}`], { encoding: 'utf8', cwd: ROOT });
  return output.split('\n').filter(Boolean);
}

/** `/<controller path>` of each HTTP controller of the edge, with a sample value for each parameter. */
function edgeControllerPaths(): string[] {
  const dir = path.join(ROOT, 'libs/edge/feature/src/http');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.http-controller.ts'))
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    .flatMap((file) => Object.values(require(path.join(dir, file)) as Record<string, unknown>))
    .flatMap((exported) => controllerPath(exported));
}

function platformControllerPaths(): string[] {
  return [HealthController, MetricsController].flatMap((controller) => controllerPath(controller));
}

function controllerPath(controller: unknown): string[] {
  const prefix: unknown = typeof controller === 'function' ? Reflect.getMetadata(PATH_METADATA, controller) : undefined;
  if (typeof prefix !== 'string') {
    return [];
  }
  return [`/${prefix.replace(/^\/+/, '').replace(/:[A-Za-z]+/g, 'x')}`];
}

describe("the operator's guides", () => {
  it('name only metrics the apps export', () => {
    const exported = exportedMetricNames();
    const guides = ['docs/operations/README.md', 'docs/operations/token-vault-key-rotation.md', 'docs/webhooks.md'];
    const unknown = guides.flatMap((guide) => metricsNamedIn(readFileSync(path.join(ROOT, guide), 'utf8')).filter((name) => !exported.has(name)).map((name) => `${guide}: ${name}`));
    expect(unknown).toEqual([]);
  });

  it("delete the last release's migration Job before a release applies the new one (its pod template is immutable; it is kept a day)", () => {
    const problems: string[] = [];
    for (const guide of ['k8s/README.md', 'docs/operations/README.md']) {
      for (const [, block] of readFileSync(path.join(ROOT, guide), 'utf8').matchAll(/```sh\n([\s\S]*?)\n```/g)) {
        const lines = block.split('\n');
        lines.forEach((line, i) => {
          const applied = /kubectl .*apply -k (\S*migrate)\b/.exec(line)?.[1];
          const production = applied !== undefined && (applied.includes('production') || /cd \S*overlays\/production\b/.test(block));
          if (production && !lines.slice(0, i).some((before) => /delete job gateway-migrate\b/.test(before))) {
            problems.push(`${guide}: ${line.trim()}`);
          }
        });
      }
    }
    expect(problems).toEqual([]);
  });
});

/**
 * The gateway's own metric names (gateway_*) declared in the apps' and libraries' source: each is
 * registered under a string literal (prom-client's `name`, or a constant holding it). Tests and the
 * e2e app, which read metrics, do not count.
 */
function exportedMetricNames(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles()) {
    for (const m of readFileSync(file, 'utf8').matchAll(/['"`](gateway_[a-z0-9_]+)['"`]/g)) names.add(m[1]);
  }
  return names;
}

/** The gateway_* metrics a PromQL expression or a text names, a histogram's series (_bucket, _count, _sum) by the histogram's name. */
function metricsNamedIn(text: string): string[] {
  return [...new Set([...text.matchAll(/\bgateway_[a-z0-9_]*[a-z0-9]/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')))];
}

type MetricType = 'counter' | 'gauge' | 'histogram';

/** Labels every scraped series carries besides its own: the target's (Prometheus, the Prometheus Operator, the ServiceMonitor's targetLabels). */
const TARGET_LABELS = new Set([
  'job',
  'instance',
  'namespace',
  'service',
  'pod',
  'container',
  'endpoint',
  'app_kubernetes_io_name',
]);

/** The non-test TypeScript sources of the apps and libs (e2e apps aside). */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.endsWith('-e2e')) walk(file);
      } else if (entry.name.endsWith('.ts') && !/\.(int-)?spec\.ts$/.test(entry.name)) {
        files.push(file);
      }
    }
  };
  walk(path.join(ROOT, 'libs'));
  walk(path.join(ROOT, 'apps'));
  return files;
}

/**
 * The gateway_* metrics the sources register, with their type and label names, read from the
 * code without running it: `new Counter|Gauge|Histogram({ name, labelNames })` and the Metrics
 * service's `counter`/`gauge(name, help, labelNames)`, `sampledGauge(name, ...)` and the
 * webhook dispatcher's `registerOutboxGauge(name, ...)` (unlabelled), a name given as a string or
 * as a constant holding one. Also every string literal of the sources: the label values they set.
 */
function exportedMetrics(): {
  metrics: Map<string, { type: MetricType; labels: string[] }>;
  literals: Set<string>;
  fromZero: Set<string>;
} {
  const sources = sourceFiles().map((file) =>
    ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
  );
  const constants = new Map<string, string>();
  const literals = new Set<string>();
  const visitAll = (visit: (node: ts.Node, source: ts.SourceFile) => void): void => {
    for (const source of sources) {
      const walk = (node: ts.Node): void => {
        visit(node, source);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
  };
  visitAll((node) => {
    if (ts.isStringLiteralLike(node)) literals.add(node.text);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isStringLiteralLike(node.initializer)
    ) {
      constants.set(node.name.text, node.initializer.text);
    }
  });
  const unwrap = (node: ts.Expression): ts.Expression =>
    ts.isAsExpression(node) || ts.isParenthesizedExpression(node) ? unwrap(node.expression) : node;
  const nameOf = (node: ts.Expression | undefined): string | undefined => {
    const value =
      node &&
      (ts.isStringLiteralLike(node)
        ? node.text
        : ts.isIdentifier(node)
          ? constants.get(node.text)
          : undefined);
    return value?.startsWith('gateway_') ? value : undefined;
  };
  const labelsOf = (node: ts.Expression | undefined, source: ts.SourceFile): string[] => {
    if (!node) return [];
    const array = unwrap(node);
    if (!ts.isArrayLiteralExpression(array) || !array.elements.every(ts.isStringLiteralLike)) {
      throw new Error(
        `${source.fileName}: label names not given as a literal array: ${node.getText(source)}`,
      );
    }
    return array.elements.map((element) => (element as ts.StringLiteralLike).text);
  };
  const metrics = new Map<string, { type: MetricType; labels: string[] }>();
  // Counters exported from 0 before their first event: registered with `counter`'s `zeroes`, or
  // in a file that increments a counter by 0 (`inc(labels, 0)`).
  const fromZero = new Set<string>();
  const add = (name: string, type: MetricType, labels: string[], source: ts.SourceFile): void => {
    const known = metrics.get(name);
    if (known && (known.type !== type || known.labels.join() !== labels.join())) {
      throw new Error(`${source.fileName}: ${name} registered again with another type or labels`);
    }
    metrics.set(name, { type, labels });
  };
  visitAll((node, source) => {
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ['Counter', 'Gauge', 'Histogram'].includes(node.expression.text)
    ) {
      const options = node.arguments?.[0];
      if (!options || !ts.isObjectLiteralExpression(options)) return;
      const property = (key: string) =>
        options.properties.find(
          (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(source) === key,
        )?.initializer;
      const name = nameOf(property('name'));
      if (name)
        add(
          name,
          node.expression.text.toLowerCase() as MetricType,
          labelsOf(property('labelNames'), source),
          source,
        );
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const name = nameOf(node.arguments[0]);
      if (!name) return;
      if (method === 'counter' || method === 'gauge')
        add(name, method, labelsOf(node.arguments[2], source), source);
      if (method === 'counter' && (node.arguments.length > 3 || /\.inc\([^;]*,\s*0\)/.test(source.text))) fromZero.add(name);
      else if (method === 'sampledGauge' || method === 'registerOutboxGauge') add(name, 'gauge', [], source);
    }
  });
  return { metrics, literals, fromZero };
}

/**
 * What is wrong with the gateway_* metrics a PromQL expression selects: a series their type
 * does not have, a matcher or an aggregation (`by`/`without`) over a label they do not carry,
 * an equality matcher on a value the sources never hold.
 */
function metricProblemsIn(
  expr: string,
  metrics: Map<string, { type: MetricType; labels: string[] }>,
  literals: Set<string>,
): string[] {
  const problems: string[] = [];
  /** The labels of a series, or undefined (and a problem) when no metric has it. */
  const labelsOfSeries = (series: string): string[] | undefined => {
    const metric = metrics.get(series);
    if (metric && metric.type !== 'histogram') {
      if (metric.type === 'counter' && !series.endsWith('_total'))
        problems.push(`${series}: a counter not named *_total`);
      return metric.labels;
    }
    if (metric) {
      problems.push(`${series}: a histogram has no series of that name (_bucket, _sum, _count)`);
      return undefined;
    }
    const [, base, suffix] = /^(.*)_(bucket|sum|count)$/.exec(series) ?? [];
    if (base && metrics.get(base)?.type === 'histogram')
      return suffix === 'bucket' ? [...metrics.get(base)!.labels, 'le'] : metrics.get(base)!.labels;
    problems.push(`${series}: no metric of the apps has this series`);
    return undefined;
  };
  const carries = (labels: string[], label: string) => labels.includes(label) || TARGET_LABELS.has(label);

  for (const selector of expr.matchAll(/\b(gateway_[a-z0-9_]*[a-z0-9])\b(?:\{([^}]*)\})?/g)) {
    const labels = labelsOfSeries(selector[1]);
    if (!labels) continue;
    for (const [, label, op, value] of (selector[2] ?? '').matchAll(
      /(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g,
    )) {
      if (!carries(labels, label)) problems.push(`${selector[1]}: no label ${label}`);
      else if ((op === '=' || op === '!=') && !TARGET_LABELS.has(label) && !literals.has(value))
        problems.push(`${selector[1]}: ${label}="${value}" is set nowhere`);
    }
  }

  // An aggregation's labels must be carried by every metric of what it aggregates: the
  // parenthesised argument after `by (...)`, or before it in `sum(...) by (...)`.
  for (const clause of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
    const after = clause.index + clause[0].length;
    const argument = /^\s*\(/.test(expr.slice(after))
      ? balancedFrom(expr, expr.indexOf('(', after))
      : balancedBefore(expr, clause.index);
    const aggregated = [...argument.matchAll(/\b(gateway_[a-z0-9_]*[a-z0-9])\b/g)].map((m) => m[1]);
    for (const label of clause[1]
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean)) {
      for (const series of aggregated) {
        const labels = metrics.get(series)?.type === 'histogram' ? undefined : labelsOfSeries(series);
        if (labels && !carries(labels, label))
          problems.push(`${series}: aggregated by ${label}, a label it does not carry`);
      }
    }
  }
  return [...new Set(problems)];
}

/** The text of the parenthesised group opening at `open`. */
function balancedFrom(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
    if (depth === 0) return text.slice(open, i + 1);
  }
  throw new Error(`unbalanced parentheses in ${text}`);
}

/** The text of the parenthesised group closing at the last `)` before `end`. */
function balancedBefore(text: string, end: number): string {
  const close = text.lastIndexOf(')', end);
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    depth += text[i] === ')' ? 1 : text[i] === '(' ? -1 : 0;
    if (depth === 0) return text.slice(i, close + 1);
  }
  throw new Error(`unbalanced parentheses in ${text}`);
}

/** The `kubectl run` of the operator's guide's "Provisioning merchants": its pod labels and its overrides. */
function documentedAdminPod(): { labels: Record<string, string>; overrides: { spec: object } } {
  const guide = readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8');
  const command = guide.slice(guide.indexOf('## Provisioning merchants')).match(/kubectl -n \$NS run gateway-admin[\s\S]*?'\s*\n```/)?.[0];
  if (!command) {
    throw new Error('the guide has no `kubectl run gateway-admin` command under "Provisioning merchants"');
  }
  const labels = Object.fromEntries(
    command
      .match(/--labels=(\S+)/)![1]
      .split(',')
      .map((pair) => pair.split('=') as [string, string]),
  );
  return { labels, overrides: JSON.parse(command.match(/--overrides='([\s\S]*?)'/)![1]) };
}

/** The kustomize patches the guide gives for TLS at the edge itself (its YAML block after the paragraph). */
function documentedEdgeTlsPatches(): object[] {
  const guide = readFileSync(path.join(ROOT, 'docs/operations/README.md'), 'utf8');
  const block = /\*\*TLS at the edge itself\*\*[^`]*`TLS_CERT_FILE`[\s\S]*?```yaml\n([\s\S]*?)\n```/.exec(guide)?.[1];
  if (!block) {
    throw new Error('the guide has no patch (a yaml block) under "TLS at the edge itself"');
  }
  return parseYaml(block) as object[];
}

/** `10.0.0.0` as `a00:0`: an IPv4 address as the last two groups of an IPv6 one. */
function ipv4AsHex(address: string): string {
  const [a, b, c, d] = address.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** True when the whole of `range` lies within the CIDR `entry` (a policy's except entry). */
function rangeWithin(range: AddressRange, entry: string, family: 'ipv4' | 'ipv6'): boolean {
  const [network, bits] = entry.split('/');
  const list = new BlockList();
  list.addSubnet(network, Number(bits), family);
  return Number(bits) <= range.prefix && list.check(range.network, family);
}
