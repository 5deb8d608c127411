import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EXPIRY_DUE_PREDICATE } from '../payment-columns';

const EXPIRY_DUE_INDEX: ConcurrentIndex = {
  name: 'payments_expiry_due_idx',
  table: 'browser_payment.payments',
  keys: `(token_expires_at, id) WHERE ${EXPIRY_DUE_PREDICATE}`,
};

/**
 * The payments the gateway settles once their redirect token expired, by expiry (then id, the
 * sweep's page boundary): pending ones,
 * except those back and waiting for the merchant's confirm (the merchant settles those). The
 * index holds only open journeys, so it stays small however many payments end.
 *
 * The table is in use when this runs, so the index is built CONCURRENTLY, outside a
 * transaction (a plain CREATE INDEX would block the payments' writes for the whole build); a
 * retry drops what a failed build left. Databases that applied the earlier, plain version
 * keep their index: a migration is identified by its name (changed before any release).
 */
export class IndexExpiredPayments1764300000000 implements MigrationInterface {
  name = 'IndexExpiredPayments1764300000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, EXPIRY_DUE_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, EXPIRY_DUE_INDEX);
  }
}
