import { randomBytes } from 'node:crypto';
import { connect, createServer, Server, Socket } from 'node:net';
import { Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Test, TestingModule } from '@nestjs/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ReadinessChecks } from '../health';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { freePort, testServers } from '../test-support';
import { APP_LOGGER } from '../tokens';
import { ServiceDatabaseModule } from './service-database.module';

const POOL_SIZE = 2;

/**
 * A TCP relay to the test Postgres that can be stopped (its connections cut, new ones refused:
 * the database, as this process sees it, is down) and started again on the same port.
 */
async function relay(): Promise<{ url: string; start(): Promise<void>; stop(): Promise<void> }> {
  const target = new URL(testServers.pgAdminUrl);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const start = async () => {
    server = createServer((inbound) => {
      const outbound = connect(Number(target.port || 5432), target.hostname);
      for (const [from, to] of [
        [inbound, outbound],
        [outbound, inbound],
      ]) {
        sockets.add(from);
        from.pipe(to);
        from.on('error', () => undefined);
        from.on('close', () => to.destroy());
      }
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  await start();
  const url = new URL(testServers.pgAdminUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    start,
    stop: async () => {
      const closed = new Promise((resolve) => server?.close(resolve));
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await closed;
    },
  };
}

/** How the readiness check of the database ends, and after how long. */
async function probe(check: (signal: AbortSignal) => Promise<unknown>): Promise<{ up: boolean; ms: number }> {
  const start = Date.now();
  const up = await check(new AbortController().signal).then(
    () => true,
    () => false,
  );
  return { up, ms: Date.now() - start };
}

@Global()
@Module({
  providers: [
    ReadinessChecks,
    { provide: Metrics, useValue: new Metrics() },
    { provide: APP_LOGGER, useValue: createLogger({ service: 'database-health', level: 'silent' }) },
  ],
  exports: [ReadinessChecks, Metrics, APP_LOGGER],
})
class PlatformStub {}

describe("a service's readiness check of its database", () => {
  const schema = `health_${randomBytes(5).toString('hex')}`;
  let database: Awaited<ReturnType<typeof relay>>;
  let app: TestingModule;
  let check: (signal: AbortSignal) => Promise<unknown>;

  beforeAll(async () => {
    database = await relay();
    app = await Test.createTestingModule({
      imports: [
        PlatformStub,
        ServiceDatabaseModule.forRoot({
          service: { schema, entities: [], migrations: [] },
          connection: {
            url: database.url,
            poolSize: POOL_SIZE,
            statementTimeoutMs: 10_000,
            applicationName: 'database-health-spec',
          },
          migrateOnStart: false,
        }),
      ],
    }).compile();
    app.enableShutdownHooks();
    await app.init();
    check = new Map(app.get(ReadinessChecks).entries()).get(`database:${schema}`)!;
  });

  afterAll(async () => {
    await app?.close();
    await database?.stop();
  });

  it('answers at once while every connection of the pool is busy and requests queue for one', async () => {
    const pool = app.get<DataSource>(getDataSourceToken(schema));
    // The pool's connections all held, and as many requests again waiting for one: the backlog under load.
    const busy = Array.from({ length: POOL_SIZE * 2 }, () => pool.query('SELECT pg_sleep(1.5)'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answer = await probe(check);
    await Promise.all(busy);
    expect(answer.up).toBe(true);
    // Through the pool, it waited behind both rounds of sleeps (about 3 s).
    expect(answer.ms).toBeLessThan(500);
  });

  it('fails while the database is unreachable, and passes again once it is back', async () => {
    expect((await probe(check)).up).toBe(true);
    await database.stop();
    // The session it had is gone, and a new one is refused.
    expect((await probe(check)).up).toBe(false);
    expect((await probe(check)).up).toBe(false);
    await database.start();
    expect((await probe(check)).up).toBe(true);
  });

  it('closes its session when the app shuts down', async () => {
    const sessions = async () => {
      const admin = new Client({ connectionString: testServers.pgAdminUrl });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'database-health-spec:health'",
        );
        return rows[0].n as number;
      } finally {
        await admin.end();
      }
    };
    expect(await sessions()).toBe(1);
    await app.close();
    for (let tries = 0; tries < 20 && (await sessions()) > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await sessions()).toBe(0);
  });
});
