import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { UNKNOWN_ANNOUNCEMENT_SQL } from '../notification-columns';

const UNKNOWN_ANNOUNCEMENTS_INDEX: ConcurrentIndex = {
  name: 'notification_outbox_unknown_idx',
  table: 'order_transaction.notification_outbox',
  keys: `(merchant_id, order_id, transaction_id) WHERE ${UNKNOWN_ANNOUNCEMENT_SQL}`,
};

/**
 * The notifications that announced a transaction's UNKNOWN outcome, by transaction: when the
 * outcome is learned later, its notification is written only if the UNKNOWN one was
 * (docs/decisions/unknown-resolution.md). Partial, so the notifications of every other outcome
 * (all but a rare few) pay nothing for it. Built CONCURRENTLY: the outbox is written by every
 * ledger record while this runs.
 */
export class IndexUnknownAnnouncements1764800000000 implements MigrationInterface {
  name = 'IndexUnknownAnnouncements1764800000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, UNKNOWN_ANNOUNCEMENTS_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, UNKNOWN_ANNOUNCEMENTS_INDEX);
  }
}
