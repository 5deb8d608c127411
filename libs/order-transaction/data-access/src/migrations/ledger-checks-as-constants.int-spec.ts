import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { migrateSchema } from '@gateway/platform';
import { migrationTestDatabase } from '@gateway/testing';
import { ORDER_TRANSACTION_SCHEMA } from '../order-transaction.schema';
import { LedgerChecksAsConstants1765000000000 } from './1765000000000-ledger-checks-as-constants';

/**
 * LedgerChecksAsConstants against a database that holds an order from before it, as a live one
 * does: in a database of its own, migrated up to the migration before, given an order and its
 * transaction, then migrated on. The checks it writes anew must refuse what the old ones refused
 * and let through what they let through, and be stored without the casts Postgres would fold
 * again at every write statement.
 */
const database = migrationTestDatabase('ot_ledger_checks', ORDER_TRANSACTION_SCHEMA);

const REPLACED = {
  orders: ['orders_status_check', 'orders_amounts_check'],
  transactions: ['transactions_type_check', 'transactions_result_check', 'transactions_amount_check', 'transactions_tax_amount_check'],
};

const ORDER_STATUSES = [
  'AUTHORIZED',
  'CANCELLED',
  'CAPTURED',
  'EXCESSIVELY_REFUNDED',
  'FAILED',
  'INITIATED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REFUND_REQUESTED',
  'VERIFIED',
];
const TRANSACTION_TYPES = [
  'AUTHORIZATION',
  'AUTHORIZATION_UPDATE',
  'CAPTURE',
  'PAYMENT',
  'REFUND',
  'REFUND_REQUEST',
  'VERIFICATION',
  'VOID_AUTHORIZATION',
  'VOID_CAPTURE',
  'VOID_PAYMENT',
  'VOID_REFUND',
];
const TRANSACTION_RESULTS = ['SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN'];

/** A captured order and its payment, written as the release before this migration writes them. */
async function orderBefore(dataSource: DataSource): Promise<string> {
  const orderId = `order-${randomBytes(4).toString('hex')}`;
  await dataSource.query(
    `INSERT INTO order_transaction.orders (merchant_id, order_id, currency, amount, status, total_authorized_amount,
       total_captured_amount, total_refunded_amount, details, notification_url, last_fencing_token, operation_count, created_at, updated_at)
     VALUES ('INTCHECKS', $1, 'USD', 100, 'CAPTURED', 100, 100, 0, '{}', NULL, 1, 1, now(), now())`,
    [orderId],
  );
  await dataSource.query(
    `INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence, api_operation, type, amount,
       currency, result, gateway_code, tax_amount, created_at, updated_at)
     VALUES ('INTCHECKS', $1, 'pay-1', 1, 'PAY', 'PAYMENT', 100, 'USD', 'SUCCESS', 'APPROVED', 0, now(), now())`,
    [orderId],
  );
  return orderId;
}

it('replaces the ledger checks on a live ledger, validated, stored as constants, refusing what they refused', async () => {
  const before = await database.upTo(LedgerChecksAsConstants1765000000000);
  let orderId: string;
  try {
    await migrateSchema(before);
    orderId = await orderBefore(before);
  } finally {
    await before.destroy();
  }

  const after = await database.withAll();
  try {
    // Those two first; the migrations of later releases after them.
    expect((await migrateSchema(after)).slice(0, 2)).toEqual(['LedgerChecksAsConstants1765000000000', 'ValidateLedgerChecks1765000000001']);
    expect(await migrateSchema(after)).toEqual([]);

    const checks: { table: string; name: string; validated: boolean; stored: string }[] = await after.query(
      `SELECT conrelid::regclass::text AS table, conname AS name, convalidated AS validated, conbin AS stored
         FROM pg_constraint WHERE contype = 'c' AND conrelid = ANY ('{order_transaction.orders,order_transaction.transactions}'::regclass[])`,
    );
    for (const [table, names] of Object.entries(REPLACED)) {
      const ofTable = checks.filter((c) => c.table === `order_transaction.${table}` && names.includes(c.name));
      expect(ofTable.map((c) => [c.name, c.validated]).sort()).toEqual(names.map((name) => [name, true]).sort());
    }
    // What the change is for: no check of either table is stored as an array built at run time
    // or with a cast Postgres evaluates again at every write statement.
    for (const check of checks) {
      expect([check.name, check.stored]).toEqual([check.name, expect.not.stringMatching(/\{(ARRAYEXPR|ARRAYCOERCEEXPR|FUNCEXPR) /)]);
    }

    const order = (set: string, values: unknown[] = []) =>
      after.query(`UPDATE order_transaction.orders SET ${set} WHERE merchant_id = 'INTCHECKS' AND order_id = $1`, [orderId, ...values]);
    const payment = (set: string, values: unknown[] = []) =>
      after.query(
        `UPDATE order_transaction.transactions SET ${set} WHERE merchant_id = 'INTCHECKS' AND order_id = $1 AND transaction_id = 'pay-1'`,
        [orderId, ...values],
      );

    // Every value the old checks let through still goes through.
    for (const status of ORDER_STATUSES) await order('status = $2', [status]);
    for (const type of TRANSACTION_TYPES) await payment('type = $2', [type]);
    for (const result of TRANSACTION_RESULTS) await payment('result = $2', [result]);
    await order('amount = 0, total_authorized_amount = 0, total_captured_amount = 0, total_refunded_amount = 0');
    await payment('amount = 0, tax_amount = NULL');

    // And what they refused is refused, by the check of that name.
    await expect(order('status = $2', ['SETTLED'])).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'orders_status_check' } });
    await expect(order('status = $2', ['captured'])).rejects.toMatchObject({ driverError: { constraint: 'orders_status_check' } });
    await expect(payment('type = $2', ['CHARGEBACK'])).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'transactions_type_check' } });
    await expect(payment('result = $2', ['DECLINED'])).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'transactions_result_check' } });
    await expect(payment('result = $2', [''])).rejects.toMatchObject({ driverError: { constraint: 'transactions_result_check' } });
    for (const column of ['amount', 'total_authorized_amount', 'total_captured_amount', 'total_refunded_amount']) {
      await expect(order(`${column} = -0.0001`)).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'orders_amounts_check' } });
    }
    await expect(payment('amount = -0.0001')).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'transactions_amount_check' } });
    await expect(payment('tax_amount = -0.0001')).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'transactions_tax_amount_check' } });
  } finally {
    await after.destroy();
  }
});
