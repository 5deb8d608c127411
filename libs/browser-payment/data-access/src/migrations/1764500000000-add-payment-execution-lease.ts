import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lease an attempt at a payment's execution holds while it executes at the provider,
 * records and, if the ledger refuses, reverses (docs/decisions/browser-payment-journey.md,
 * amendment 2026-11-25, later). Nullable without a default: Postgres adds it without touching
 * the rows.
 */
export class AddPaymentExecutionLease1764500000000 implements MigrationInterface {
  name = 'AddPaymentExecutionLease1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE browser_payment.payments ADD COLUMN execution_lease_until timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE browser_payment.payments DROP COLUMN execution_lease_until');
  }
}
