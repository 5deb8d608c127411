import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Validates the check AddTransactionTaxAmount1764000000000 added NOT VALID. Its own migration,
 * so its own transaction: VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets
 * the ledger read and write meanwhile, but would not help behind the exclusive lock the ALTER
 * that added the check holds until its transaction ends. On a database where the check is
 * valid already, a no-op.
 */
export class ValidateTransactionTaxAmount1764000000001 implements MigrationInterface {
  name = 'ValidateTransactionTaxAmount1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE order_transaction.transactions VALIDATE CONSTRAINT transactions_tax_amount_check',
    );
  }

  async down(): Promise<void> {
    // Nothing to undo: the previous migration's down drops the check with its column.
  }
}
