import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

export const ORDERS_TO_STRIP_INDEX: ConcurrentIndex = {
  name: 'orders_to_strip_idx',
  table: 'order_transaction.orders',
  keys: '(created_at, merchant_id, order_id) WHERE personal_data_stripped_at IS NULL',
};

/**
 * The orders the payer personal-data retention may still have to strip, by creation
 * (docs/decisions/payer-personal-data.md, amendment 2026-11-27): an order is idle past
 * PERSONAL_DATA_RETENTION_DAYS only if it was created before then, so a run reads this range up to
 * that time and checks each row's `updated_at`. A stripped order leaves the index, and enters it
 * again with its next operation. Neither key nor condition moves with an operation (an order's
 * creation never changes; the marker is NULL before and after an operation's write), so an
 * order's updates stay HOT updates: an index on `updated_at` would have made every operation write
 * a new entry here and in the primary key. Built CONCURRENTLY: every ledger operation writes the
 * table while this runs.
 */
export class IndexOrdersToStrip1765600000001 implements MigrationInterface {
  name = 'IndexOrdersToStrip1765600000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, ORDERS_TO_STRIP_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, ORDERS_TO_STRIP_INDEX);
  }
}
