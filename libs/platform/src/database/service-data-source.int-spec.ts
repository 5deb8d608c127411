import { DataSource } from 'typeorm';
import { databaseConnection } from '../bootstrap/service-main';
import { DatabaseConfig } from '../config';
import { createServiceDataSource, DatabaseConnection } from './service-data-source';

/**
 * The server-side keepalive of a service's connections, read back from Postgres over TCP (the
 * integration run's database): a session whose client vanished with its node (advisory locks
 * held: the webhook dispatcher's claims, the migration lock) is ended within about a minute,
 * not the kernel's two hours.
 */
const opened: DataSource[] = [];

async function open(connection: Omit<DatabaseConnection, 'url'>, query = ''): Promise<DataSource> {
  const base = process.env.TEST_DATABASE_URL;
  const url = base && `${base}${query === '' ? '' : `${base.includes('?') ? '&' : '?'}${query}`}`;
  if (!url) {
    throw new Error('TEST_DATABASE_URL is not set: run integration tests with `jest --selectProjects int`.');
  }
  const dataSource = await createServiceDataSource({ schema: 'public', entities: [], migrations: [] }, { ...connection, url }).initialize();
  opened.push(dataSource);
  return dataSource;
}

afterAll(async () => {
  await Promise.all(opened.map((d) => d.destroy()));
});

/** What every connection of the pool shows: `poolSize` sessions held at once, each asked. */
async function settingsOfEachSession(dataSource: DataSource, poolSize: number): Promise<Record<string, string>[]> {
  const runners = Array.from({ length: poolSize }, () => dataSource.createQueryRunner());
  try {
    return await Promise.all(
      runners.map(async (runner) => {
        const shown: Record<string, string>[] = [];
        for (const name of ['tcp_keepalives_idle', 'tcp_keepalives_interval', 'tcp_keepalives_count', 'tcp_user_timeout']) {
          shown.push(...(await runner.query(`SHOW ${name}`)));
        }
        return Object.assign({}, ...shown);
      }),
    );
  } finally {
    await Promise.all(runners.map((runner) => runner.release()));
  }
}

it("probes every connection of a service's pool after 30 s of silence, every 10 s, 3 times, by default", async () => {
  const dataSource = await open({ poolSize: 3, statementTimeoutMs: 10_000, applicationName: 'int-keepalive-default' });
  const expected = { tcp_keepalives_idle: '30', tcp_keepalives_interval: '10', tcp_keepalives_count: '3', tcp_user_timeout: '60000' };
  expect(await settingsOfEachSession(dataSource, 3)).toEqual(Array(3).fill(expected));
});

it('takes the keepalive from DATABASE_TCP_KEEPALIVE_* of the service config', async () => {
  const config = Object.assign(new DatabaseConfig(), {
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: 2,
    DATABASE_TCP_KEEPALIVE_IDLE_SECONDS: 45,
    DATABASE_TCP_KEEPALIVE_INTERVAL_SECONDS: 5,
    DATABASE_TCP_KEEPALIVE_COUNT: 4,
  });
  const { url: _url, ...connection } = databaseConnection(config, 'int-keepalive-configured');
  const dataSource = await open(connection);
  const expected = { tcp_keepalives_idle: '45', tcp_keepalives_interval: '5', tcp_keepalives_count: '4', tcp_user_timeout: '65000' };
  expect(await settingsOfEachSession(dataSource, 2)).toEqual(Array(2).fill(expected));
});

it('sends no keepalive settings with DATABASE_TCP_KEEPALIVE_IDLE_SECONDS=0: the server\'s own hold (a pooler that refuses startup options)', async () => {
  const dataSource = await open({
    poolSize: 1,
    statementTimeoutMs: 10_000,
    applicationName: 'int-keepalive-off',
    tcpKeepalive: { idleSeconds: 0, intervalSeconds: 10, count: 3 },
  });
  const [shown] = await settingsOfEachSession(dataSource, 1);
  expect(shown.tcp_user_timeout).toBe('0');
  expect(shown.tcp_keepalives_idle).not.toBe('30');
});

it("keeps the URL's own `options` (DATABASE_URL's ?options=...) beside the keepalive, the URL's winning a setting both make", async () => {
  const dataSource = await open(
    { poolSize: 2, statementTimeoutMs: 10_000, applicationName: 'int-keepalive-url-options' },
    `options=${encodeURIComponent('-c tcp_keepalives_count=7 -c work_mem=5MB')}`,
  );
  const runners = [dataSource.createQueryRunner(), dataSource.createQueryRunner()];
  try {
    for (const runner of runners) {
      const [workMem] = await runner.query('SHOW work_mem');
      const [idle] = await runner.query('SHOW tcp_keepalives_idle');
      const [count] = await runner.query('SHOW tcp_keepalives_count');
      expect({ ...workMem, ...idle, ...count }).toEqual({ work_mem: '5MB', tcp_keepalives_idle: '30', tcp_keepalives_count: '7' });
    }
  } finally {
    await Promise.all(runners.map((runner) => runner.release()));
  }
});
