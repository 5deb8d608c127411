import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Validates the check AddPaymentMerchantMode1764900000000 added NOT VALID. Its own migration, so
 * its own transaction: VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets the
 * payer's steps read and write meanwhile, but would not help behind the exclusive lock the ALTER
 * that added the check holds until its transaction ends.
 */
export class ValidatePaymentMerchantMode1764900000001 implements MigrationInterface {
  name = 'ValidatePaymentMerchantMode1764900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE browser_payment.payments VALIDATE CONSTRAINT payments_merchant_mode_check');
  }

  async down(): Promise<void> {
    // Nothing to undo: the previous migration's down drops the check with its column.
  }
}
