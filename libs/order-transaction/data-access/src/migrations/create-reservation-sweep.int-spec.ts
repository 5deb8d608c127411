import { DataSource } from 'typeorm';
import { migrateSchema } from '@gateway/platform';
import { migrationTestDatabase } from '@gateway/testing';
import { ORDER_TRANSACTION_SCHEMA } from '../order-transaction.schema';
import { CreateReservationSweep1765200000002 } from './1765200000002-create-reservation-sweep';

/**
 * Where the sweep's cursor starts on a ledger upgraded to it: at the oldest card reservation
 * still PENDING, less ten minutes, so one abandoned before the upgrade is swept too; a refund
 * request or a provider's PENDING, however old, do not move it back.
 */
const database = migrationTestDatabase('ot_reservation_sweep', ORDER_TRANSACTION_SCHEMA);
const freshDatabase = migrationTestDatabase('ot_reservation_sweep_fresh', ORDER_TRANSACTION_SCHEMA);

async function transaction(dataSource: DataSource, orderId: string, row: { type: string; result: string; funding: string; ageHours: number }): Promise<void> {
  await dataSource.query(
    `INSERT INTO order_transaction.orders (merchant_id, order_id, currency, amount, status, total_authorized_amount,
       total_captured_amount, total_refunded_amount, details, notification_url, last_fencing_token, operation_count, created_at, updated_at)
     VALUES ('INTSWEEP', $1, 'USD', 100, 'CAPTURED', 100, 100, 0, '{}', NULL, 1, 1, now(), now())`,
    [orderId],
  );
  await dataSource.query(
    `INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence, api_operation, type, amount,
       currency, result, gateway_code, funding_type, created_at, updated_at)
     VALUES ('INTSWEEP', $1, 'p1', 1, 'PAY', $2, 100, 'USD', $3, $3, $4, now() - make_interval(hours => $5), now() - make_interval(hours => $5))`,
    [orderId, row.type, row.result, row.funding, row.ageHours],
  );
}

it('starts the cursor of an upgraded ledger ten minutes before its oldest PENDING card reservation', async () => {
  const before = await database.upTo(CreateReservationSweep1765200000002);
  try {
    await migrateSchema(before);
    await transaction(before, 'refund-request', { type: 'REFUND_REQUEST', result: 'PENDING', funding: 'CARD', ageHours: 48 });
    await transaction(before, 'provider', { type: 'PAYMENT', result: 'PENDING', funding: 'PROVIDER_A', ageHours: 48 });
    await transaction(before, 'paid', { type: 'PAYMENT', result: 'SUCCESS', funding: 'CARD', ageHours: 30 });
    await transaction(before, 'abandoned', { type: 'PAYMENT', result: 'PENDING', funding: 'CARD', ageHours: 24 });
    await transaction(before, 'younger', { type: 'PAYMENT', result: 'PENDING', funding: 'CARD', ageHours: 1 });
  } finally {
    await before.destroy();
  }

  const after = await database.withAll();
  try {
    expect(await migrateSchema(after)).toContain('CreateReservationSweep1765200000002');
    const [{ fromOldest }] = await after.query(
      `SELECT s.swept_to = t.created_at - interval '10 minutes' AS "fromOldest"
         FROM order_transaction.reservation_sweep s, order_transaction.transactions t
        WHERE t.merchant_id = 'INTSWEEP' AND t.order_id = 'abandoned'`,
    );
    expect(fromOldest).toBe(true);
  } finally {
    await after.destroy();
  }
});

it('starts the cursor of a ledger without a PENDING card reservation ten minutes before the migration', async () => {
  const fresh = await freshDatabase.withAll();
  try {
    await migrateSchema(fresh);
    const [{ startedAgo }] = await fresh.query(`SELECT extract(epoch FROM now() - swept_to) AS "startedAgo" FROM order_transaction.reservation_sweep`);
    expect(Number(startedAgo)).toBeGreaterThanOrEqual(600);
    expect(Number(startedAgo)).toBeLessThan(3_600);
  } finally {
    await fresh.destroy();
  }
});
