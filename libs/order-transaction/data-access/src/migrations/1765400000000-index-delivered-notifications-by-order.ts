import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

const DELIVERED_BY_ORDER_INDEX: ConcurrentIndex = {
  name: 'notification_outbox_delivered_order_idx',
  table: 'order_transaction.notification_outbox',
  keys: `(merchant_id, order_id) WHERE status = 'DELIVERED'`,
};

/**
 * The delivered notifications of an order, for a payer's erasure request (`payer-data erase`,
 * docs/decisions/payer-personal-data.md, amendment 2026-11-27): their payloads keep the payer's
 * data until the webhook purge, and without this the erasure would read every delivered row.
 * Partial: a notification enters it only when its delivery is recorded, an UPDATE that already
 * writes new index entries (status is in the outbox's partial indexes' conditions, so it is
 * never a HOT update); the INSERT of each notification, in every ledger record, pays nothing
 * for it. PENDING and FAILED rows are found by the indexes the dispatcher and `notifications`
 * use. Built CONCURRENTLY: the outbox is written by every ledger record and every delivery
 * while this runs.
 */
export class IndexDeliveredNotificationsByOrder1765400000000 implements MigrationInterface {
  name = 'IndexDeliveredNotificationsByOrder1765400000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, DELIVERED_BY_ORDER_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, DELIVERED_BY_ORDER_INDEX);
  }
}
