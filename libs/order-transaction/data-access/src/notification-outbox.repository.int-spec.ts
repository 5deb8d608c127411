import { randomBytes, randomUUID } from 'node:crypto';
import { migrateSchema, serviceDataSourceOptions } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan } from '@gateway/testing';
import { DataSource } from 'typeorm';
import { DueNotification, NotificationOutbox, NotificationOutcome } from './notification-outbox.repository';
import { ORDER_TRANSACTION_SCHEMA } from './order-transaction.schema';

/**
 * The outbox's claims: each notification is held (a session-level advisory lock) by at most one
 * worker from claim to outcome, released on its own as soon as its outcome is written, and
 * released with the session if the worker's connection goes. A database of its own: the other
 * files' dispatchers must not claim these rows.
 */
const database = `${process.env.TEST_DATABASE}_notification_claims`;
let dataSource: DataSource;
let outbox: NotificationOutbox;

beforeAll(async () => {
  const url = await createDatabase(database);
  dataSource = await new DataSource(serviceDataSourceOptions(ORDER_TRANSACTION_SCHEMA, { url, poolSize: 6, statementTimeoutMs: 30_000, applicationName: 'int-notification-claims' })).initialize();
  await migrateSchema(dataSource);
  outbox = NotificationOutbox.over(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

/** Due notifications of a fresh merchant, to `targets` in turn; answers their ids, oldest due first. */
async function due(count: number, targets = ['https://a.example']): Promise<{ merchantId: string; ids: string[] }> {
  const merchantId = `CL${randomBytes(5).toString('hex').toUpperCase()}`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    await outbox.add(dataSource.manager, {
      id, merchantId, merchantMode: 'TEST', orderId: `o-${i}`, transactionId: 'p1', apiOperation: 'PAY',
      url: `${targets[i % targets.length]}/hooks?n=${i}`, payload: {}, sealedSecret: 'sealed', sealedPreviousSecret: null,
      // Far in the past, oldest first: ahead of any other test's rows.
      at: new Date(Date.UTC(2000, 0, 1, 0, 0, i)),
    });
  }
  return { merchantId, ids };
}

/** Claims only among `ids` (other tests' rows may be due too). */
const only = (ids: string[]) => (candidates: DueNotification[], wanted: number) =>
  candidates.map((c) => c.id).filter((id) => ids.includes(id)).slice(0, wanted);
const claimAmong = (ids: string[], limit = 10, skipTargets: string[] = []) => ({ limit, now: new Date(), skipTargets, choose: only(ids) });

function delivered(id: string, attempts = 1): NotificationOutcome {
  const at = new Date();
  return { id, status: 'DELIVERED', attempts, nextAttemptAt: at, lastAttemptAt: at, lastResult: 'HTTP 200', deliveredAt: at };
}

it('holds what it claimed from every other worker until each outcome is written, one by one', async () => {
  const { ids } = await due(3);
  const first = outbox.claims();
  const second = outbox.claims();

  const claimed = await first.claim(claimAmong(ids));
  expect(claimed.map((c) => [c.id, c.target, c.attempts])).toEqual(ids.map((id) => [id, 'https://a.example', 0]));
  expect(await second.claim(claimAmong(ids))).toEqual([]);

  await first.finish(delivered(ids[0]), 0);
  // Written and let go: no longer due, and the two others still held.
  expect(await second.claim(claimAmong(ids))).toEqual([]);
  const [row] = await dataSource.query('SELECT status, attempts FROM order_transaction.notification_outbox WHERE id = $1', [ids[0]]);
  expect(row).toEqual({ status: 'DELIVERED', attempts: 1 });

  await first.finish({ ...delivered(ids[1]), status: 'PENDING', deliveredAt: null, lastResult: 'HTTP 503' }, 0);
  expect((await second.claim(claimAmong(ids))).map((c) => [c.id, c.attempts])).toEqual([[ids[1], 1]]);
  expect(first.holding).toBe(1);
  expect(second.holding).toBe(1);
  await first.close();
  await second.close();
});

it('never claims again what it holds itself (its locks are re-entrant)', async () => {
  const { ids } = await due(2);
  const worker = outbox.claims();
  expect(await worker.claim(claimAmong(ids, 1))).toHaveLength(1);
  const [second] = await worker.claim(claimAmong(ids));
  expect(second.id).toBe(ids[1]);
  expect(await worker.claim(claimAmong(ids))).toEqual([]);

  await worker.close();
});

it('skips the receivers it is told to, and ends the claims of a worker whose connection is gone', async () => {
  const { ids } = await due(4, ['https://slow.example', 'https://Fast.example:8443']);
  const worker = outbox.claims();
  const claimed = await worker.claim(claimAmong(ids, 10, ['https://slow.example']));
  expect(claimed.map((c) => c.target)).toEqual(['https://fast.example:8443', 'https://fast.example:8443']);

  // The worker's session ends (a killed dispatcher): Postgres drops its locks, the rows are due, untouched.
  const [{ pid }] = await dataSource.query(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (SELECT hashtext($1::text)::oid) LIMIT 1`,
    [claimed[0].id],
  );
  await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
  const survivor = outbox.claims();
  let again: string[] = [];
  for (let i = 0; i < 50 && again.length < 2; i++) {
    again = (await survivor.claim(claimAmong(ids, 10, ['https://slow.example']))).map((c) => c.id);
    if (again.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(again.sort()).toEqual(claimed.map((c) => c.id).sort());
  await survivor.close();
  await worker.close().catch(() => undefined);
});

it("claims the due rows nobody holds, however many older ones are in flight elsewhere", async () => {
  // The claim's window must hold this test's rows only (the earlier tests' are due as old).
  await dataSource.query('DELETE FROM order_transaction.notification_outbox');
  const { ids } = await due(10);
  const busy = outbox.claims();
  expect(await busy.claim(claimAmong(ids, 8))).toHaveLength(8);
  // A window of 2 x 4 rows would see only the 8 in flight; the 2 younger ones are claimed.
  const idle = outbox.claims();
  expect((await idle.claim(claimAmong(ids, 2))).map((c) => c.id)).toEqual(ids.slice(8));
  await busy.close();
  await idle.close();
});

it('lets go of what a failed claim locked, so the worker and everyone else can claim it again', async () => {
  const { ids } = await due(3);
  const worker = outbox.claims();
  // The claim's second read fails after the locks were taken (a statement timeout, a reset).
  const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
  const spy = jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((...args) => {
    const runner = createQueryRunner(...args);
    const query = runner.query.bind(runner);
    runner.query = (async (sql: string, parameters?: unknown[]) => {
      if (sql.includes('AS "merchantMode"')) throw new Error('canceling statement due to statement timeout');
      return query(sql, parameters);
    }) as typeof runner.query;
    return runner;
  });
  await expect(worker.claim(claimAmong(ids))).rejects.toThrow(/statement timeout/);
  spy.mockRestore();

  expect(worker.holding).toBe(0);
  const [{ n }] = await dataSource.query(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid IN (SELECT hashtext(id::text)::oid FROM unnest($1::uuid[]) AS c(id))`,
    [ids],
  );
  expect(n).toBe(0);
  const other = outbox.claims();
  expect(await other.claim(claimAmong(ids, 1))).toHaveLength(1);
  expect(await worker.claim(claimAmong(ids))).toHaveLength(2);
  await other.close();
  await worker.close();
});

it('never purges a failed notification a resend made PENDING while the purge waited for it', async () => {
  const { ids } = await due(1);
  const [id] = ids;
  await dataSource.query(
    `UPDATE order_transaction.notification_outbox SET status = 'FAILED', last_attempt_at = now() - interval '40 days' WHERE id = $1`,
    [id],
  );
  // The resend's transaction stays open a moment after its update, so the purge, which already
  // chose the row as FAILED, waits for it and then sees it PENDING.
  await dataSource.query(`
    CREATE OR REPLACE FUNCTION order_transaction.slow_resend() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$`);
  await dataSource.query(`
    CREATE TRIGGER slow_resend AFTER UPDATE ON order_transaction.notification_outbox
    FOR EACH ROW WHEN (OLD.status = 'FAILED' AND NEW.status = 'PENDING') EXECUTE FUNCTION order_transaction.slow_resend()`);
  try {
    const resend = outbox.resend({ ids: [id] }, new Date());
    await new Promise((resolve) => setTimeout(resolve, 150));
    const purged = await outbox.purgeFailed(new Date(Date.now() - 30 * 24 * 3_600_000), 100);
    expect(await resend).toEqual([id]);
    expect(purged).toBe(0);
    const [row] = await dataSource.query('SELECT status FROM order_transaction.notification_outbox WHERE id = $1', [id]);
    expect(row).toEqual({ status: 'PENDING' });
  } finally {
    await dataSource.query('DROP TRIGGER slow_resend ON order_transaction.notification_outbox');
    await dataSource.query('DROP FUNCTION order_transaction.slow_resend()');
  }
});

it('defers the due notifications of one receiver only', async () => {
  const { merchantId, ids } = await due(4, ['https://slow.example', 'https://fast.example']);
  const until = new Date(Date.now() + 60_000);
  expect(await outbox.deferTarget('https://slow.example', until)).toBeGreaterThanOrEqual(2);
  const rows: { id: string; due: boolean }[] = await dataSource.query(
    `SELECT id, next_attempt_at <= now() AS due FROM order_transaction.notification_outbox WHERE merchant_id = $1 ORDER BY created_at`,
    [merchantId],
  );
  expect(rows.map((r) => [r.id, r.due])).toEqual([
    [ids[0], false],
    [ids[1], true],
    [ids[2], false],
    [ids[3], true],
  ]);
});

it('writes nothing when another dispatcher attempted the notification since the claim', async () => {
  const { ids } = await due(1);
  const worker = outbox.claims();
  expect(await worker.claim(claimAmong(ids))).toHaveLength(1);
  // Another dispatcher's attempt (possible only if this session died under the attempt).
  await dataSource.query(`UPDATE order_transaction.notification_outbox SET attempts = 1, last_result = 'HTTP 503' WHERE id = $1`, [ids[0]]);

  await worker.finish(delivered(ids[0]), 0);
  const [row] = await dataSource.query('SELECT status, attempts, last_result AS "lastResult" FROM order_transaction.notification_outbox WHERE id = $1', [ids[0]]);
  expect(row).toEqual({ status: 'PENDING', attempts: 1, lastResult: 'HTTP 503' });
  await worker.close();
});

it('re-sends failed notifications only: a delivered or pending one is left alone', async () => {
  const { merchantId, ids } = await due(3);
  await dataSource.query(`UPDATE order_transaction.notification_outbox SET status = 'DELIVERED', delivered_at = now(), attempts = 1 WHERE id = $1`, [ids[0]]);
  await dataSource.query(`UPDATE order_transaction.notification_outbox SET status = 'FAILED', attempts = 9 WHERE id = $1`, [ids[2]]);

  expect(await outbox.resend({ ids }, new Date())).toEqual([ids[2]]);
  expect(await outbox.resend({ merchantId }, new Date())).toEqual([]);
  const rows: { id: string; status: string; attempts: number }[] = await dataSource.query(
    'SELECT id, status, attempts FROM order_transaction.notification_outbox WHERE merchant_id = $1 ORDER BY created_at',
    [merchantId],
  );
  expect(rows.map((r) => [r.id, r.status, r.attempts])).toEqual([
    [ids[0], 'DELIVERED', 1],
    [ids[1], 'PENDING', 0],
    [ids[2], 'PENDING', 0],
  ]);
});
