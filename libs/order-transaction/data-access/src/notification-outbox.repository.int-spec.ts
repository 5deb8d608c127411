import { randomBytes, randomUUID } from 'node:crypto';
import { migrateSchema, serviceDataSourceOptions } from '@gateway/platform';
import { createDatabase, dropDatabase, interleavedDataSource, keptForAtRestScan } from '@gateway/testing';
import { DataSource } from 'typeorm';
import { DueNotification, NotificationClaims, NotificationOutbox, NotificationOutcome } from './notification-outbox.repository';
import { RECEIVER_SQL } from './notification-columns';
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

/**
 * Due notifications of a fresh merchant, to `targets` in turn; answers their ids, oldest due
 * first. Due one a second from `firstSecond` seconds into 2000-01-01: ahead of any other test's rows.
 */
async function due(count: number, targets = ['https://a.example'], firstSecond = 0): Promise<{ merchantId: string; ids: string[] }> {
  const merchantId = `CL${randomBytes(5).toString('hex').toUpperCase()}`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    await outbox.add(dataSource.manager, {
      id, merchantId, merchantMode: 'TEST', orderId: `o-${i}`, transactionId: 'p1', apiOperation: 'PAY',
      url: `${targets[i % targets.length]}/hooks?n=${i}`, payload: {}, sealedSecret: 'sealed', sealedPreviousSecret: null,
      at: new Date(Date.UTC(2000, 0, 1, 0, 0, firstSecond + i)),
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

describe('a claim behind the backlog of a receiver it skips', () => {
  const BACKLOG = 'https://backlog.example';
  const WINDOW = 8;

  /** A claim session with a head window of WINDOW rows, and the statements it ran. */
  function recordedClaims(): { claims: NotificationClaims; statements: { sql: string; params: unknown[] }[]; restore: () => void } {
    const statements: { sql: string; params: unknown[] }[] = [];
    const create = dataSource.createQueryRunner.bind(dataSource);
    const spy = jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((...args) => {
      const runner = create(...args);
      const query = runner.query.bind(runner);
      runner.query = ((sql: string, params?: unknown[]) => {
        statements.push({ sql, params: params ?? [] });
        return query(sql, params);
      }) as typeof runner.query;
      return runner;
    });
    return { claims: new NotificationClaims(dataSource, WINDOW), statements, restore: () => spy.mockRestore() };
  }
  const byReceiver = <T extends { sql: string }>(statements: T[]) => statements.filter((s) => s.sql.includes('WITH RECURSIVE receivers'));

  beforeEach(async () => {
    // The window must hold this test's rows only (the earlier tests' are due as old).
    await dataSource.query('DELETE FROM order_transaction.notification_outbox');
  });

  it('takes the oldest due of each receiver it may call, found receiver by receiver through their index, when its window is all backlog', async () => {
    await due(3 * WINDOW, [BACKLOG]);
    const others = await due(4, ['https://one.example', 'https://two.example'], 100);
    const { claims, statements, restore } = recordedClaims();
    try {
      const claimed = await claims.claim({ limit: 3, now: new Date(), skipTargets: [BACKLOG], choose: only(others.ids) });

      expect(claimed.map((c) => [c.id, c.target])).toEqual([
        [others.ids[0], 'https://one.example'],
        [others.ids[1], 'https://two.example'],
        [others.ids[2], 'https://one.example'],
      ]);
      const [read] = byReceiver(statements);
      expect(read).toBeDefined();
      // Each receiver's due rows are an index range, not a filter over the backlog.
      const runner = dataSource.createQueryRunner();
      try {
        await runner.query('SET enable_seqscan = off');
        const plan: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${read.sql}`, read.params);
        const text = plan.map((row) => row['QUERY PLAN']).join('\n');
        expect(text).toMatch(/Index Cond: \(\(lower\("substring"\(\(url\)::text, .*\) = r\.target\) AND \(next_attempt_at <= /);
        expect(text).toContain('notification_outbox_receiver_due_idx');
      } finally {
        await runner.query('RESET enable_seqscan');
        await runner.release();
      }
    } finally {
      restore();
      await claims.close();
    }
  });

  it('takes the oldest due across receivers, whatever their names', async () => {
    await due(3 * WINDOW, [BACKLOG]);
    const late = await due(WINDOW, ['https://a-late.example'], 200);
    const early = await due(WINDOW, ['https://z-early.example'], 100);
    const { claims, restore } = recordedClaims();
    try {
      const claimed = await claims.claim({ limit: 1, now: new Date(), skipTargets: [BACKLOG], choose: only([...late.ids, ...early.ids]) });
      expect(claimed.map((c) => c.id)).toEqual([early.ids[0]]);
    } finally {
      restore();
      await claims.close();
    }
  });

  it('reads in due order only when its window holds enough rows to take, or the whole due queue', async () => {
    const first = await due(2 * WINDOW, ['https://one.example']);
    await due(3 * WINDOW, [BACKLOG], 100);
    const { claims, statements, restore } = recordedClaims();
    try {
      // 2 free slots want 8 rows: the window's first 8 are the receiver's it may call.
      expect((await claims.claim({ limit: 2, now: new Date(), skipTargets: [BACKLOG], choose: only(first.ids) })).map((c) => c.id)).toEqual(
        first.ids.slice(0, 2),
      );
      expect(byReceiver(statements)).toEqual([]);

      await dataSource.query('DELETE FROM order_transaction.notification_outbox');
      await due(WINDOW - 3, [BACKLOG]);
      const few = await due(2, ['https://one.example'], 100);
      // Fewer rows than wanted, but the window read every due one: nothing more to find.
      expect((await claims.claim({ limit: 3, now: new Date(), skipTargets: [BACKLOG], choose: only(few.ids) })).map((c) => c.id)).toEqual(few.ids);
      expect(byReceiver(statements)).toEqual([]);
    } finally {
      restore();
      await claims.close();
    }
  });

  it('leaves out, receiver by receiver, the rows another session holds', async () => {
    await due(3 * WINDOW, [BACKLOG]);
    const others = await due(6, ['https://one.example'], 100);
    const elsewhere = outbox.claims();
    expect((await elsewhere.claim(claimAmong(others.ids, 4, [BACKLOG]))).map((c) => c.id)).toEqual(others.ids.slice(0, 4));
    const { claims, statements, restore } = recordedClaims();
    try {
      // One free slot reads 4 rows: were the 4 in flight elsewhere among them, it would take none.
      const claimed = await claims.claim({ limit: 1, now: new Date(), skipTargets: [BACKLOG], choose: only(others.ids) });
      expect(claimed.map((c) => c.id)).toEqual([others.ids[4]]);
      expect(byReceiver(statements)).toHaveLength(1);
    } finally {
      restore();
      await claims.close();
      await elsewhere.close();
    }
  });
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

it('reads a purge batch once, however small the table looked to the planner: no step of its plan runs once per row', async () => {
  const merchantId = `PU${randomBytes(5).toString('hex').toUpperCase()}`;
  // Rows no statistics have seen yet, as after a burst: the planner believes the table small.
  await dataSource.query(
    `INSERT INTO order_transaction.notification_outbox (id, merchant_id, merchant_mode, order_id, transaction_id, api_operation,
       url, payload, sealed_secret, status, attempts, next_attempt_at, window_started_at, created_at, last_attempt_at, delivered_at)
     SELECT gen_random_uuid(), $1, 'TEST', 'o-' || i, 'p1', 'PAY', 'https://a.example/hooks', '{}'::jsonb, 'sealed', 'DELIVERED', 1,
            at, at, at, at, at
       FROM generate_series(1, 3000) AS i, (SELECT now() - interval '400 days' AS at) t`,
    [merchantId],
  );
  const query = jest.spyOn(dataSource, 'query').mockResolvedValueOnce([{ purged: '0' }]);
  await outbox.purgeDelivered(new Date(Date.now() - 300 * 24 * 3_600_000), 1_000);
  const [sql, params] = query.mock.calls[0] as [string, unknown[]];
  query.mockRestore();

  type PlanNode = { 'Actual Loops': number; 'Node Type': string; Plans?: PlanNode[] };
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  try {
    const [{ 'QUERY PLAN': [explained] }]: { 'QUERY PLAN': { Plan: PlanNode }[] }[] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
    const repeated = (node: PlanNode): string[] => [
      ...(node['Actual Loops'] > 1 ? [`${node['Node Type']} x${node['Actual Loops']}`] : []),
      ...(node.Plans ?? []).flatMap(repeated),
    ];
    expect(repeated(explained.Plan)).toEqual([]);
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
  await dataSource.query('DELETE FROM order_transaction.notification_outbox WHERE merchant_id = $1', [merchantId]);
});

it('defers the due notifications of one receiver only, found through the receiver index', async () => {
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
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SET enable_seqscan = off');
    const plan: { 'QUERY PLAN': string }[] = await runner.query(
      `EXPLAIN UPDATE order_transaction.notification_outbox SET next_attempt_at = $2
        WHERE status = 'PENDING' AND next_attempt_at < $2 AND ${RECEIVER_SQL} = $1`,
      ['https://slow.example', until],
    );
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('Index Scan using notification_outbox_receiver_due_idx');
  } finally {
    await runner.query('RESET enable_seqscan');
    await runner.release();
  }
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

it('counts as due only notifications whose next attempt has come: one waiting out its backoff is backlog, not due', async () => {
  const now = new Date();
  const anHourOn = new Date(now.getTime() + 3_600_000);
  const [dueBefore, dueAnHourOnBefore, depthBefore] = [await outbox.due(now), await outbox.due(anHourOn), await outbox.depth()];
  const { ids } = await due(3);
  // A failed attempt's backoff, as an outcome writes it: its next attempt in an hour.
  await dataSource.query(`UPDATE order_transaction.notification_outbox SET attempts = 1, next_attempt_at = $2 WHERE id = $1`, [ids[1], anHourOn]);
  await dataSource.query(`UPDATE order_transaction.notification_outbox SET status = 'DELIVERED', delivered_at = now(), attempts = 1 WHERE id = $1`, [ids[2]]);

  expect(await outbox.due(now)).toBe(dueBefore + 1);
  expect(await outbox.depth()).toBe(depthBefore + 2);
  // Its time come, it is due like the other.
  expect(await outbox.due(anHourOn)).toBe(dueAnHourOnBefore + 2);
});

/** Claim locks on `ids` any session holds. */
async function locksOn(ids: string[]): Promise<number> {
  const [{ n }] = await dataSource.query(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid IN (SELECT hashtext(id::text)::oid FROM unnest($1::uuid[]) AS c(id))`,
    [ids],
  );
  return n;
}

describe('two dispatchers racing for the same rows', () => {
  const BEFORE_LOCK = /pg_try_advisory_lock\(/;
  beforeEach(async () => {
    // Each claim's window must hold this test's rows only.
    await dataSource.query('DELETE FROM order_transaction.notification_outbox');
  });

  it('leaves a row another dispatcher locked between its read and its lock to that one, and takes the next due rows instead', async () => {
    const { ids } = await due(4);
    const { source, hold } = interleavedDataSource(dataSource);
    const first = new NotificationClaims(source);
    const second = outbox.claims();
    try {
      const beforeLock = hold(BEFORE_LOCK);
      const firstClaim = first.claim(claimAmong(ids, 2));
      // The first has read the four and chosen the two oldest; it has not locked them yet.
      await beforeLock.reached;
      expect((await second.claim(claimAmong(ids, 2))).map((c) => c.id)).toEqual(ids.slice(0, 2));
      beforeLock.open();

      expect((await firstClaim).map((c) => c.id)).toEqual(ids.slice(2));
      expect([first.holding, second.holding]).toEqual([2, 2]);
      // One lock per notification: no row is in two dispatchers' hands.
      const perRow: { n: number }[] = await dataSource.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
            AND objid IN (SELECT hashtext(id::text)::oid FROM unnest($1::uuid[]) AS c(id)) GROUP BY objid`,
        [ids],
      );
      expect(perRow).toEqual(ids.map(() => ({ n: 1 })));
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('lets go of a row another dispatcher attempted between its read and its lock, whatever that one\'s clock said', async () => {
    const { ids } = await due(2);
    const { source, hold } = interleavedDataSource(dataSource);
    const first = new NotificationClaims(source);
    const second = outbox.claims();
    try {
      const beforeLock = hold(BEFORE_LOCK);
      const firstClaim = first.claim(claimAmong(ids, 2));
      await beforeLock.reached;
      expect(await second.claim(claimAmong(ids, 2))).toHaveLength(2);
      // A replica whose clock is a minute behind delivers one and retries the other in a minute.
      const behind = new Date(Date.now() - 60_000);
      await second.finish({ id: ids[0], status: 'DELIVERED', attempts: 1, nextAttemptAt: behind, lastAttemptAt: behind, lastResult: 'HTTP 200', deliveredAt: behind }, 0);
      await second.finish({ id: ids[1], status: 'PENDING', attempts: 1, nextAttemptAt: new Date(Date.now() + 60_000), lastAttemptAt: behind, lastResult: 'HTTP 503', deliveredAt: null }, 0);
      beforeLock.open();

      // It locked both (nobody held them any more), read them again and let both go: neither is sent again now.
      expect(await firstClaim).toEqual([]);
      expect(first.holding).toBe(0);
      expect(await locksOn(ids)).toBe(0);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('writes an outcome before it lets go of the notification: a claim in between finds it held, and after, done', async () => {
    const { ids } = await due(1);
    const { source, hold } = interleavedDataSource(dataSource);
    const first = new NotificationClaims(source);
    const second = outbox.claims();
    try {
      expect(await first.claim(claimAmong(ids))).toHaveLength(1);
      const beforeWrite = hold(/^\s*UPDATE order_transaction\.notification_outbox/);
      const finishing = first.finish(delivered(ids[0]), 0);
      await beforeWrite.reached;
      expect(await second.claim(claimAmong(ids))).toEqual([]);
      beforeWrite.open();
      await finishing;

      expect(await second.claim(claimAmong(ids))).toEqual([]);
      const [row] = await dataSource.query('SELECT status, attempts FROM order_transaction.notification_outbox WHERE id = $1', [ids[0]]);
      expect(row).toEqual({ status: 'DELIVERED', attempts: 1 });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('lets go of a notification whose outcome it could not write, so another dispatcher sends it again', async () => {
    const { ids } = await due(1);
    const { source, fail } = interleavedDataSource(dataSource);
    const first = new NotificationClaims(source);
    const second = outbox.claims();
    try {
      expect(await first.claim(claimAmong(ids))).toHaveLength(1);
      fail(/^\s*UPDATE order_transaction\.notification_outbox/, 'canceling statement due to statement timeout');
      await expect(first.finish(delivered(ids[0]), 0)).rejects.toThrow(/statement timeout/);

      expect(first.holding).toBe(0);
      // Due again, unchanged (at least once): not held for as long as the first one's session lives.
      expect((await second.claim(claimAmong(ids))).map((c) => [c.id, c.attempts])).toEqual([[ids[0], 0]]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("never brings a receiver's notifications forward: another dispatcher's shorter deferral leaves a longer one, and a later retry, as they are", async () => {
    const TARGET = 'https://deferred-twice.example';
    const { ids } = await due(2, [TARGET]);
    const retryAt = new Date(Date.now() + 3_600_000);
    await dataSource.query('UPDATE order_transaction.notification_outbox SET next_attempt_at = $2 WHERE id = $1', [ids[1], retryAt]);
    const longer = new Date(Date.now() + 600_000);
    expect(await outbox.deferTarget(TARGET, longer)).toBe(1);

    // Another replica, at its first timeout to the receiver, backs off for a minute only.
    expect(await outbox.deferTarget(TARGET, new Date(Date.now() + 60_000))).toBe(0);
    const rows: { nextAttemptAt: Date }[] = await dataSource.query(
      'SELECT next_attempt_at AS "nextAttemptAt" FROM order_transaction.notification_outbox WHERE id = ANY($1::uuid[]) ORDER BY created_at',
      [ids],
    );
    expect(rows.map((r) => r.nextAttemptAt.getTime())).toEqual([longer.getTime(), retryAt.getTime()]);
  });
});
