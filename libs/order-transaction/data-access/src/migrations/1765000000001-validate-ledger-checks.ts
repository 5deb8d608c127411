import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Validates the checks LedgerChecksAsConstants1765000000000 added NOT VALID. Its own migration,
 * so its own transaction: VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets the
 * ledger read and write meanwhile, but would not help behind the exclusive lock the ALTER that
 * added the checks holds until its transaction ends.
 */
export class ValidateLedgerChecks1765000000001 implements MigrationInterface {
  name = 'ValidateLedgerChecks1765000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const check of ['orders_status_check', 'orders_amounts_check']) {
      await queryRunner.query(`ALTER TABLE order_transaction.orders VALIDATE CONSTRAINT ${check}`);
    }
    for (const check of ['transactions_type_check', 'transactions_result_check', 'transactions_amount_check', 'transactions_tax_amount_check']) {
      await queryRunner.query(`ALTER TABLE order_transaction.transactions VALIDATE CONSTRAINT ${check}`);
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: the previous migration's down puts the checks it replaced back.
  }
}
