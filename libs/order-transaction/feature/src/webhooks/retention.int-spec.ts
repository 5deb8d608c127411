import { randomBytes } from 'node:crypto';
import { NotificationOutbox } from '@gateway/order-transaction/data-access';
import type { DispatchNotifications } from '@gateway/order-transaction/domain';
import { BackgroundJobs, createLogger, Metrics } from '@gateway/platform';
import { LedgerTestApp, startLedgerTestApp } from '../testing/ledger-test-app';
import { NotificationDispatcher } from './notification-dispatcher';

/**
 * The outbox past retention (WEBHOOK_RETENTION_DAYS): delivered notifications counted from their
 * delivery, failed ones from their last attempt, all of them in one purge run however many.
 * A retention far longer than any other test's keeps this file's rows apart from theirs, and
 * the dispatcher here runs no workers (the purge only): it claims no other file's notifications.
 */
const RETENTION_DAYS = 300;
const DAY_MS = 86_400_000;

let ledger: LedgerTestApp;
let dispatcher: NotificationDispatcher;

beforeAll(async () => {
  ledger = await startLedgerTestApp();
  dispatcher = new NotificationDispatcher(
    {} as DispatchNotifications,
    NotificationOutbox.over(ledger.dataSource),
    { workers: 0, pollIntervalMs: 1_000, retentionMs: RETENTION_DAYS * DAY_MS },
    createLogger({ service: 'order-transaction', level: 'silent' }),
    new Metrics(),
    new BackgroundJobs(createLogger({ service: 'order-transaction', level: 'silent' })),
  );
});

afterAll(async () => {
  await ledger?.running.shutdown('tests done');
});

/** `count` rows of one merchant in `status`, created, delivered and last attempted `daysAgo` days ago (pending ones not due). */
async function insertRows(merchantId: string, count: number, status: 'PENDING' | 'DELIVERED' | 'FAILED', daysAgo: number): Promise<void> {
  await ledger.dataSource.query(
    `INSERT INTO order_transaction.notification_outbox (id, merchant_id, merchant_mode, order_id, transaction_id, api_operation,
       url, payload, sealed_secret, status, attempts, next_attempt_at, window_started_at, created_at, last_attempt_at, last_result, delivered_at)
     SELECT gen_random_uuid(), $1, 'TEST', 'o-' || i, 'p1', 'PAY', 'https://merchant.example/hooks', '{}'::jsonb, 'sealed', $2::varchar, 1,
            CASE WHEN $2::varchar = 'PENDING' THEN now() + interval '1 year' ELSE at END, at, at, at, 'HTTP 200', CASE WHEN $2::varchar = 'DELIVERED' THEN at END
       FROM generate_series(1, $3::int) AS i, (SELECT now() - make_interval(days => $4::int) AS at) t`,
    [merchantId, status, count, daysAgo],
  );
}

async function countOf(merchantId: string): Promise<Record<string, number>> {
  const rows: { status: string; n: number }[] = await ledger.dataSource.query(
    `SELECT status, count(*)::int AS n FROM order_transaction.notification_outbox WHERE merchant_id = $1 GROUP BY status`,
    [merchantId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

const merchantId = () => `RET${randomBytes(5).toString('hex').toUpperCase()}`;

describe('a purge run', () => {
  it('deletes every delivered notification past retention, more than one batch of them, and keeps the others', async () => {
    const who = merchantId();
    await insertRows(who, 6_000, 'DELIVERED', RETENTION_DAYS + 1);
    await insertRows(who, 3, 'DELIVERED', RETENTION_DAYS - 1);
    await insertRows(who, 2, 'PENDING', RETENTION_DAYS + 1);

    const report = await dispatcher.purgeExpired();

    expect(await countOf(who)).toEqual({ DELIVERED: 3, PENDING: 2 });
    expect(report.delivered).toBeGreaterThanOrEqual(6_000);
  }, 60_000);

  it('deletes failed notifications whose last attempt is past retention; a failed one still within it can be re-sent', async () => {
    const who = merchantId();
    await insertRows(who, 4, 'FAILED', RETENTION_DAYS + 1);
    await insertRows(who, 1, 'FAILED', RETENTION_DAYS - 1);

    const report = await dispatcher.purgeExpired();

    expect(await countOf(who)).toEqual({ FAILED: 1 });
    expect(report.failed).toBeGreaterThanOrEqual(4);
  });
});
