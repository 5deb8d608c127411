import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { JOURNEY_OVER_PREDICATE } from '../payment-columns';

const PAYMENT_LAST_STEP_INDEX: ConcurrentIndex = {
  name: 'payments_last_step_idx',
  table: 'browser_payment.payments',
  keys: `(updated_at, id) WHERE ${JOURNEY_OVER_PREDICATE}`,
};

/**
 * The payments whose journey is over by last step, for the payer personal-data retention
 * (docs/decisions/payer-personal-data.md, amendment 2026-11-27): each run reads the next page of
 * them idle past PERSONAL_DATA_RETENTION_DAYS after its cursor, never the whole table. Partial: a
 * journey under way is not there (its order is not stripped), and enters once it ends. A step
 * already writes columns of payments_expiry_due_idx's condition, so steps were rarely HOT updates;
 * this adds an entry per step of a finished payment (its completion, a lease's end).
 * Built CONCURRENTLY: payers' steps write the table while this runs.
 */
export class IndexPaymentLastStep1765600000001 implements MigrationInterface {
  name = 'IndexPaymentLastStep1765600000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, PAYMENT_LAST_STEP_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, PAYMENT_LAST_STEP_INDEX);
  }
}
