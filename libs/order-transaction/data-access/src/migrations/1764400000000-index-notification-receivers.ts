import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { RECEIVER_SQL } from '../notification-columns';

const RECEIVER_DUE_INDEX: ConcurrentIndex = {
  name: 'notification_outbox_receiver_due_idx',
  table: 'order_transaction.notification_outbox',
  keys: `((${RECEIVER_SQL}), next_attempt_at) WHERE status = 'PENDING'`,
};

/**
 * The pending notifications of each receiver, oldest due first: a claim finds the receivers
 * with due notifications and takes the oldest of each it may call, instead of reading past the
 * backlog of a receiver at its in-flight limit; deferring a timed-out receiver updates its rows
 * only (docs/decisions/webhook-dispatcher-claims.md, amendment 2026-11-25). Built
 * CONCURRENTLY: the outbox is written by every ledger record while this runs.
 */
export class IndexNotificationReceivers1764400000000 implements MigrationInterface {
  name = 'IndexNotificationReceivers1764400000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, RECEIVER_DUE_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, RECEIVER_DUE_INDEX);
  }
}
