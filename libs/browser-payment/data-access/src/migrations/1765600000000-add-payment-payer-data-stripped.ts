import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the payer personal-data retention (docs/decisions/payer-personal-data.md, amendment
 * 2026-11-27) last stripped the payment's order: NULL until then, and again after any later step
 * of the payment (every step's write sets it back to NULL, in the same statement). A nullable
 * column without a default: added without rewriting the table.
 */
export class AddPaymentPayerDataStripped1765600000000 implements MigrationInterface {
  name = 'AddPaymentPayerDataStripped1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE browser_payment.payments ADD COLUMN personal_data_stripped_at timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE browser_payment.payments DROP COLUMN personal_data_stripped_at');
  }
}
