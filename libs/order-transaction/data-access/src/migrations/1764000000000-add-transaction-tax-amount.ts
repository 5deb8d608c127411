import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tax included in a transaction's amount, where the operation named it: the default
 * `taxAmount` of a full refund is the total tax captured on the order (spec, refund rule 5).
 * Nullable: most operations carry no tax, and "unknown" must stay distinct from zero.
 *
 * The ledger is in use when this runs, so the check is added NOT VALID: Postgres then checks
 * only new rows and skips the scan of every existing one, which it would make under this
 * statement's exclusive lock. ValidateTransactionTaxAmount1764000000001 validates it, in a
 * transaction of its own. (Changed before any release; a database that applied the one-step
 * version has the same, already valid, constraint: migrations are identified by name.)
 */
export class AddTransactionTaxAmount1764000000000 implements MigrationInterface {
  name = 'AddTransactionTaxAmount1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE order_transaction.transactions
        ADD COLUMN tax_amount numeric(17,4),
        ADD CONSTRAINT transactions_tax_amount_check CHECK (tax_amount >= 0) NOT VALID
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE order_transaction.transactions DROP COLUMN tax_amount');
  }
}
