import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the payer personal-data retention (docs/decisions/payer-personal-data.md, amendment
 * 2026-11-27) last stripped the order: NULL until then, and again after any later operation
 * (every write of an order's operation sets it back to NULL, in the same statement). A nullable
 * column without a default: added without rewriting the table.
 */
export class AddOrderPayerDataStripped1765600000000 implements MigrationInterface {
  name = 'AddOrderPayerDataStripped1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE order_transaction.orders ADD COLUMN personal_data_stripped_at timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE order_transaction.orders DROP COLUMN personal_data_stripped_at');
  }
}
