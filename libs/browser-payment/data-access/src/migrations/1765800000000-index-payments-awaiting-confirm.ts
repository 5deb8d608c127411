import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { CONFIRM_AWAITED_PREDICATE } from '../payment-columns';

const CONFIRM_AWAITED_INDEX: ConcurrentIndex = {
  name: 'payments_confirm_awaited_idx',
  table: 'browser_payment.payments',
  keys: `(time_returned) WHERE ${CONFIRM_AWAITED_PREDICATE}`,
};

/**
 * The CONFIRM_AT_MERCHANT payments the payer approved and came back from, waiting for the
 * merchant's confirm, by the time of the return (docs/decisions/browser-payment-journey.md,
 * amendment 2026-11-27): the sweep reads those whose confirm window passed, the range up to
 * now minus the window. payments_expiry_due_idx leaves them out, so the sweep's other half
 * keeps reading only open journeys. A payment enters when the payer comes back and leaves when
 * it is confirmed or timed out, so the index holds at most a window's worth of unconfirmed
 * payments. Built CONCURRENTLY, in a migration of its own: payers' steps write the table while
 * this runs (docs/decisions/migrations-on-a-live-database.md).
 */
export class IndexPaymentsAwaitingConfirm1765800000000 implements MigrationInterface {
  name = 'IndexPaymentsAwaitingConfirm1765800000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, CONFIRM_AWAITED_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, CONFIRM_AWAITED_INDEX);
  }
}
