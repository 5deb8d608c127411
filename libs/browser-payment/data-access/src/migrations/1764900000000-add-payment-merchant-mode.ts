import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The merchant's mode a payment was initiated in: later steps go where it routes, not where the
 * merchant's mode routes by then (docs/decisions/browser-payment-journey.md, amendment
 * 2026-11-26 (6)). Every existing row was initiated by a test merchant (a live merchant's
 * initiate was refused before anything was stored), so they take TEST, and so do the rows the
 * previous release inserts while this one rolls out: hence the default, which stays.
 *
 * The table is in use when this runs. A constant default makes Postgres 11 and later add the
 * column without rewriting or scanning the table, NOT NULL included (no existing row can be
 * null), under a brief exclusive lock. The check is added NOT VALID (new rows only; no scan
 * under that lock); ValidatePaymentMerchantMode1764900000001 validates it in a transaction of
 * its own.
 */
export class AddPaymentMerchantMode1764900000000 implements MigrationInterface {
  name = 'AddPaymentMerchantMode1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE browser_payment.payments
        ADD COLUMN merchant_mode varchar(4) NOT NULL DEFAULT 'TEST',
        ADD CONSTRAINT payments_merchant_mode_check CHECK (merchant_mode IN ('TEST', 'LIVE')) NOT VALID
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE browser_payment.payments DROP COLUMN merchant_mode');
  }
}
