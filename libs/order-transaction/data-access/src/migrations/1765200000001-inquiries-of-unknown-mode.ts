import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An inquiry the sweep queues has no merchant mode: the sweep serves no request, and the ledger
 * keeps no mode with a reservation. Such an inquiry is routed by the acquirer the reservation's
 * stored body names (docs/decisions/unknown-resolution.md, amendment "abandoned reservations
 * nobody reads"). Dropping NOT NULL changes the catalogue only (no scan, no rewrite): a brief
 * ACCESS EXCLUSIVE lock, bounded by the migration's lock_timeout.
 */
export class InquiriesOfUnknownMode1765200000001 implements MigrationInterface {
  name = 'InquiriesOfUnknownMode1765200000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE order_transaction.unknown_inquiries ALTER COLUMN merchant_mode DROP NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM order_transaction.unknown_inquiries WHERE merchant_mode IS NULL');
    await queryRunner.query('ALTER TABLE order_transaction.unknown_inquiries ALTER COLUMN merchant_mode SET NOT NULL');
  }
}
