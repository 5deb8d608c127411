import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { migrateSchema } from '@gateway/platform';
import { migrationTestDatabase } from '@gateway/testing';
import { BROWSER_PAYMENT_SCHEMA } from '../browser-payment.schema';
import { BrowserPaymentRepository } from '../browser-payment.repository';
import { AddPaymentMerchantMode1764900000000 } from './1764900000000-add-payment-merchant-mode';

/**
 * AddPaymentMerchantMode against a database that holds payments from before it, as a live one
 * does: in a database of its own, migrated up to the migration before, given a payment, then
 * migrated on. The payments already there were all initiated by test merchants.
 */
const database = migrationTestDatabase('bp_merchant_mode', BROWSER_PAYMENT_SCHEMA);

/** A payment as the release before the column stores it (its INSERT names no merchant_mode). */
async function paymentBefore(dataSource: DataSource): Promise<string> {
  const id = randomUUID();
  await dataSource.query(
    `INSERT INTO browser_payment.payments (id, merchant_id, order_id, transaction_id, provider, operation, confirmation, currency, amount,
       interaction_status, result, gateway_code, token_hash, token_expires_at, provider_reference, return_url, request, time_initiated, updated_at)
     VALUES ($1, 'INTOLD', $3, 'bp-1', 'provider_a', 'AUTHORIZE', 'CONFIRM_AT_PROVIDER', 'EUR', 30,
       'COMPLETED', 'SUCCESS', 'APPROVED', $2, now(), 'PA-OLD', 'https://shop.example/return', '{}', now(), now())`,
    [id, randomBytes(32), `order-${randomBytes(4).toString('hex')}`],
  );
  return id;
}

it('gives the payments from before it TEST, checks the mode of new ones, and is applied once', async () => {
  const before = await database.upTo(AddPaymentMerchantMode1764900000000);
  let paymentId: string;
  try {
    await migrateSchema(before);
    paymentId = await paymentBefore(before);
  } finally {
    await before.destroy();
  }

  const after = await database.withAll();
  try {
    expect((await migrateSchema(after)).slice(0, 2)).toEqual(['AddPaymentMerchantMode1764900000000', 'ValidatePaymentMerchantMode1764900000001']);
    expect(await BrowserPaymentRepository.over(after).findById(paymentId)).toMatchObject({ merchantMode: 'TEST', providerReference: 'PA-OLD' });
    // The previous release, still serving during the rollout, inserts without the column: TEST, as its merchants are.
    expect((await BrowserPaymentRepository.over(after).findById(await paymentBefore(after)))?.merchantMode).toBe('TEST');

    const [check]: { convalidated: boolean }[] = await after.query(
      `SELECT convalidated FROM pg_constraint WHERE conname = 'payments_merchant_mode_check' AND connamespace = 'browser_payment'::regnamespace`,
    );
    expect(check).toEqual({ convalidated: true });
    await expect(after.query(`UPDATE browser_payment.payments SET merchant_mode = 'DEMO' WHERE id = $1`, [paymentId])).rejects.toThrow(/payments_merchant_mode_check/);
    expect(await migrateSchema(after)).toEqual([]);
  } finally {
    await after.destroy();
  }
});
