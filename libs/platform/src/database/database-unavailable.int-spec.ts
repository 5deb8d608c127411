import { Pool } from 'pg';
import { QueryFailedError } from 'typeorm';
import { freePort, rejectionOf, testServers } from '../test-support';
import { isDatabaseUnavailable, mayHaveCommitted } from './database-unavailable';

const ADMIN_URL = testServers.pgAdminUrl;

describe('isDatabaseUnavailable, on the errors node-pg really raises', () => {
  it('recognises a pool with no connection free within its timeout', async () => {
    // Long enough for the first connection to be made on a loaded machine (100 ms was not, once
    // in a full run); the second request then waits that long for the one held.
    const pool = new Pool({ connectionString: ADMIN_URL, max: 1, connectionTimeoutMillis: 1_500 });
    const held = await pool.connect();
    try {
      const err = await rejectionOf(pool.query('SELECT 1'));
      expect(isDatabaseUnavailable(err)).toBe(true);
      // Nothing was sent.
      expect(mayHaveCommitted(err)).toBe(false);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('recognises a server that refuses connections', async () => {
    const pool = new Pool({ host: '127.0.0.1', port: await freePort(), user: 'postgres', connectionTimeoutMillis: 1_000 });
    try {
      const err = await rejectionOf(pool.query('SELECT 1'));
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(mayHaveCommitted(err)).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it('recognises a connection the server terminated, and not a query the server refused', async () => {
    const pool = new Pool({ connectionString: ADMIN_URL, max: 2 });
    try {
      const victim = await pool.connect();
      const failed = new Promise((resolve) => victim.on('error', resolve));
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      // Whether the query goes out before the server's notice arrives or after is a race: each
      // gives its own error. Both ways, deterministically: the client has seen the connection fail.
      await failed;
      const terminated = await rejectionOf(victim.query('SELECT 1'));
      victim.release(true);
      expect(terminated).toMatchObject({ message: 'Client has encountered a connection error and is not queryable' });
      expect(isDatabaseUnavailable(terminated)).toBe(true);
      expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
      // Lost under a statement: a COMMIT may have committed, its answer lost.
      expect(mayHaveCommitted(new Error('Connection terminated unexpectedly'))).toBe(true);
      expect(mayHaveCommitted(new QueryFailedError('COMMIT', [], new Error('Connection terminated unexpectedly')))).toBe(true);

      const refused = await rejectionOf(pool.query('SELECT * FROM no_such_table_here'));
      expect(isDatabaseUnavailable(refused)).toBe(false);
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT * FROM no_such_table_here', [], refused as Error))).toBe(false);
      expect(mayHaveCommitted(refused)).toBe(false);
    } finally {
      await pool.end();
    }
  });
});
