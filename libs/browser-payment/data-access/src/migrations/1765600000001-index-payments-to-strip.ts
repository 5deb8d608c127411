import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { TO_STRIP_PREDICATE } from '../payment-columns';

const PAYMENTS_TO_STRIP_INDEX: ConcurrentIndex = {
  name: 'payments_to_strip_idx',
  table: 'browser_payment.payments',
  keys: `(time_initiated, id) WHERE ${TO_STRIP_PREDICATE}`,
};

/**
 * The payments whose journey is over and whose order the payer personal-data retention has not
 * stripped, by initiation (docs/decisions/payer-personal-data.md, amendment 2026-11-27): a payment
 * idle past PERSONAL_DATA_RETENTION_DAYS was initiated before then, so a run reads that range and
 * checks each row's `updated_at`. A journey under way is not there (its order is not stripped) and
 * enters when it ends; a stripped payment leaves it, and enters again with its next step. The key
 * never moves (a payment's initiation time is written once); the condition moves when the journey
 * ends and when the retention marks the payment, not with a step's write (the mark is NULL before
 * and after). Built CONCURRENTLY: payers' steps write the table while this runs.
 */
export class IndexPaymentsToStrip1765600000001 implements MigrationInterface {
  name = 'IndexPaymentsToStrip1765600000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, PAYMENTS_TO_STRIP_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, PAYMENTS_TO_STRIP_INDEX);
  }
}
