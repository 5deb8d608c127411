import { randomBytes } from 'node:crypto';
import { ORDER_TRANSACTION_SCHEMA, UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import { ResolveUnknown } from '@gateway/order-transaction/domain';
import { openTestDataSource } from '@gateway/testing';
import type { DataSource } from 'typeorm';
import { runTransactionsCommand } from './transactions.command';

/**
 * `transactions unresolved` against the integration run's ledger: rows written straight into
 * order_transaction's tables, under a merchant of this file's own (the run's database is shared).
 */
const merchantId = `INT${randomBytes(6).toString('hex').toUpperCase()}`;
const NOW = new Date();
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);
let dataSource: DataSource;

async function transaction(orderId: string, transactionId: string, result: string, amount: string, currency: string, writtenAt: Date): Promise<void> {
  await dataSource.query(
    `INSERT INTO order_transaction.orders (merchant_id, order_id, currency, amount, status, total_authorized_amount,
       total_captured_amount, total_refunded_amount, details, last_fencing_token, operation_count, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'INITIATED', 0, 0, 0, '{}', 1, 1, $5, $5)`,
    [merchantId, orderId, currency, amount, writtenAt],
  );
  await dataSource.query(
    `INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence, api_operation, type,
       amount, currency, result, gateway_code, created_at, updated_at)
     VALUES ($1, $2, $3, 1, 'PAY', 'PAYMENT', $4, $5, $6, $7, $8, $8)`,
    [merchantId, orderId, transactionId, amount, currency, result, result === 'SUCCESS' ? 'APPROVED' : result === 'PENDING' ? 'SUBMITTED' : 'UNKNOWN', writtenAt],
  );
}

async function run(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  // `resolve` is proved with the ledger's app (resolve-unknown.int-spec.ts); this file lists.
  const resolution = { execute: () => Promise.reject(new Error('not used here')) } as Pick<ResolveUnknown, 'execute'>;
  // `record-lost` likewise (record-lost.int-spec.ts).
  const lost = { execute: () => Promise.reject(new Error('not used here')), preview: () => Promise.reject(new Error('not used here')) };
  const code = await runTransactionsCommand(
    argv,
    { unresolved: UnresolvedTransactions.over(dataSource), resolution, lost },
    { out: (t) => out.push(t), err: (t) => err.push(t) },
    () => NOW,
  );
  return { code, out, err };
}

beforeAll(async () => {
  dataSource = await openTestDataSource(ORDER_TRANSACTION_SCHEMA, 2);
  await transaction('o-stuck', 'pay-1', 'PENDING', '12.5000', 'USD', minutesAgo(180));
  await transaction('o-lost', 'pay-1', 'UNKNOWN', '7', 'JPY', minutesAgo(90));
  await transaction('o-fresh', 'pay-1', 'PENDING', '3.0000', 'USD', minutesAgo(5));
  await transaction('o-done', 'pay-1', 'SUCCESS', '9.9900', 'USD', minutesAgo(300));
});

afterAll(async () => {
  await dataSource?.query('DELETE FROM order_transaction.transactions WHERE merchant_id = $1', [merchantId]);
  await dataSource?.query('DELETE FROM order_transaction.orders WHERE merchant_id = $1', [merchantId]);
  await dataSource?.destroy();
});

describe('transactions unresolved', () => {
  it('lists PENDING and UNKNOWN transactions left longer than the given minutes, oldest first, amounts in their currency', async () => {
    const { code, out } = await run(['unresolved', '--merchant', merchantId, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out[0])).toEqual([
      expect.objectContaining({ orderId: 'o-stuck', transactionId: 'pay-1', result: 'PENDING', amount: '12.50', currency: 'USD', since: minutesAgo(180).toISOString() }),
      expect.objectContaining({ orderId: 'o-lost', result: 'UNKNOWN', amount: '7', currency: 'JPY', gatewayCode: 'UNKNOWN' }),
    ]);
  });

  it('takes another age and a limit, and says so when nothing is left to reconcile', async () => {
    const recent = await run(['unresolved', '--merchant', merchantId, '--older-than-minutes', '1', '--limit', '10']);
    expect(recent.out[0].split('\n').map((line) => line.split('\t')[2])).toEqual(['o-stuck', 'o-lost', 'o-fresh']);
    const none = await run(['unresolved', '--merchant', merchantId, '--older-than-minutes', '600']);
    expect(none.out).toEqual(['(no unresolved transactions)']);
  });

  it('refuses a bad age or limit and an unknown command, with exit code 2', async () => {
    for (const argv of [['unresolved', '--older-than-minutes', 'abc'], ['unresolved', '--limit', '0'], ['purge']]) {
      const { code, err } = await run(argv);
      expect(code).toBe(2);
      expect(err[0]).toMatch(/^error: /);
    }
  });
});
