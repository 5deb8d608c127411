import { createServer } from 'node:net';
import { Pool } from 'pg';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

// Not @gateway/testing's testInfra: that lib depends on this one.
const ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

describe('isDatabaseUnavailable, on the errors node-pg really raises', () => {
  it('recognises a pool with no connection free within its timeout', async () => {
    const pool = new Pool({ connectionString: ADMIN_URL, max: 1, connectionTimeoutMillis: 100 });
    const held = await pool.connect();
    try {
      const err = await rejection(pool.query('SELECT 1'));
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('recognises a server that refuses connections', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const pool = new Pool({ host: '127.0.0.1', port, user: 'postgres', connectionTimeoutMillis: 1_000 });
    try {
      expect(isDatabaseUnavailable(await rejection(pool.query('SELECT 1')))).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('recognises a connection the server terminated, and not a query the server refused', async () => {
    const pool = new Pool({ connectionString: ADMIN_URL, max: 2 });
    try {
      const victim = await pool.connect();
      victim.on('error', () => undefined);
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      const terminated = await rejection(victim.query('SELECT 1'));
      victim.release(true);
      expect(isDatabaseUnavailable(terminated)).toBe(true);

      const refused = await rejection(pool.query('SELECT * FROM no_such_table_here'));
      expect(isDatabaseUnavailable(refused)).toBe(false);
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT * FROM no_such_table_here', [], refused as Error))).toBe(false);
    } finally {
      await pool.end();
    }
  });
});
