import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger's value checks written so that Postgres rebuilds them cheaply. It reads every CHECK
 * of a table back from its stored node text at each write statement: a status or type
 * `IN (...)` list is stored as an array built from a cast of each value (2.7 KB of text), and
 * `amount >= 0` as a cast of the integer 0, both folded back into constants each time. The same
 * rules as one text[] constant (`= ANY ('{...}'::text[])`) and `0.0` take 40% less of
 * Postgres's CPU in its constraint checks (docs/performance.md, "Tuning done").
 *
 * The ledger is in use when this runs. Each check is dropped and added again under its own name
 * in one ALTER per table, so every write is checked throughout; the new ones are added NOT VALID
 * (no scan of the existing rows under the exclusive lock; those rows satisfied the same rule
 * under the old check) and ValidateLedgerChecks1765000000001 validates them in a transaction of
 * its own. Orders before transactions: the order every ledger statement locks them in.
 */
export class LedgerChecksAsConstants1765000000000 implements MigrationInterface {
  name = 'LedgerChecksAsConstants1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE order_transaction.orders
        DROP CONSTRAINT orders_status_check,
        ADD CONSTRAINT orders_status_check CHECK (status = ANY ('{AUTHORIZED,CANCELLED,CAPTURED,EXCESSIVELY_REFUNDED,FAILED,INITIATED,PARTIALLY_CAPTURED,PARTIALLY_REFUNDED,REFUNDED,REFUND_REQUESTED,VERIFIED}'::text[])) NOT VALID,
        DROP CONSTRAINT orders_amounts_check,
        ADD CONSTRAINT orders_amounts_check CHECK (amount >= 0.0 AND total_authorized_amount >= 0.0 AND total_captured_amount >= 0.0 AND total_refunded_amount >= 0.0) NOT VALID
    `);
    await queryRunner.query(`
      ALTER TABLE order_transaction.transactions
        DROP CONSTRAINT transactions_type_check,
        ADD CONSTRAINT transactions_type_check CHECK (type = ANY ('{AUTHORIZATION,AUTHORIZATION_UPDATE,CAPTURE,PAYMENT,REFUND,REFUND_REQUEST,VERIFICATION,VOID_AUTHORIZATION,VOID_CAPTURE,VOID_PAYMENT,VOID_REFUND}'::text[])) NOT VALID,
        DROP CONSTRAINT transactions_result_check,
        ADD CONSTRAINT transactions_result_check CHECK (result = ANY ('{SUCCESS,FAILURE,PENDING,UNKNOWN}'::text[])) NOT VALID,
        DROP CONSTRAINT transactions_amount_check,
        ADD CONSTRAINT transactions_amount_check CHECK (amount >= 0.0) NOT VALID,
        DROP CONSTRAINT transactions_tax_amount_check,
        ADD CONSTRAINT transactions_tax_amount_check CHECK (tax_amount >= 0.0) NOT VALID
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The old forms back, NOT VALID as in up (no scan of the table under the exclusive lock): every
    // write is checked by them from here on, and the rows already satisfy the same rule. A
    // VALIDATE CONSTRAINT of each may be run afterwards, at leisure.
    await queryRunner.query(`
      ALTER TABLE order_transaction.orders
        DROP CONSTRAINT orders_status_check,
        ADD CONSTRAINT orders_status_check CHECK (status IN ('AUTHORIZED', 'CANCELLED', 'CAPTURED', 'EXCESSIVELY_REFUNDED', 'FAILED', 'INITIATED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REFUND_REQUESTED', 'VERIFIED')) NOT VALID,
        DROP CONSTRAINT orders_amounts_check,
        ADD CONSTRAINT orders_amounts_check CHECK (amount >= 0 AND total_authorized_amount >= 0 AND total_captured_amount >= 0 AND total_refunded_amount >= 0) NOT VALID
    `);
    await queryRunner.query(`
      ALTER TABLE order_transaction.transactions
        DROP CONSTRAINT transactions_type_check,
        ADD CONSTRAINT transactions_type_check CHECK (type IN ('AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'CAPTURE', 'PAYMENT', 'REFUND', 'REFUND_REQUEST', 'VERIFICATION', 'VOID_AUTHORIZATION', 'VOID_CAPTURE', 'VOID_PAYMENT', 'VOID_REFUND')) NOT VALID,
        DROP CONSTRAINT transactions_result_check,
        ADD CONSTRAINT transactions_result_check CHECK (result IN ('SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN')) NOT VALID,
        DROP CONSTRAINT transactions_amount_check,
        ADD CONSTRAINT transactions_amount_check CHECK (amount >= 0) NOT VALID,
        DROP CONSTRAINT transactions_tax_amount_check,
        ADD CONSTRAINT transactions_tax_amount_check CHECK (tax_amount >= 0) NOT VALID
    `);
  }
}
