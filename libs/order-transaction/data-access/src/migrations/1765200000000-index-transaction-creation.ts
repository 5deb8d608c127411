import { ConcurrentIndex, createIndexConcurrently, dropIndexConcurrently } from '@gateway/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

const TRANSACTION_CREATION_INDEX: ConcurrentIndex = {
  name: 'transactions_created_at_brin_idx',
  table: 'order_transaction.transactions',
  keys: 'USING brin (created_at) WITH (autosummarize = on)',
};

/**
 * The transactions by creation time, for the sweep that finds card reservations abandoned
 * PENDING by a process that died (docs/decisions/unknown-resolution.md, amendment "abandoned
 * reservations nobody reads"): it reads the few minutes of the ledger created since its last
 * window. A BRIN, on a column no write changes after the insert: a completion stays a HOT update
 * (an index on `result` or `updated_at` would make every completion a non-HOT one, measured in
 * the note), and the index is a few summaries per 128 pages, the rows being inserted in creation
 * order. `autosummarize`: autovacuum summarises each range of pages as soon as the inserts move
 * past it, rather than at the table's next VACUUM; pages not summarised yet are read by every
 * sweep (on a large ledger, the millions of rows inserted between two VACUUMs). Built
 * CONCURRENTLY: every card operation writes the table while this runs.
 */
export class IndexTransactionCreation1765200000000 implements MigrationInterface {
  name = 'IndexTransactionCreation1765200000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexConcurrently(queryRunner, TRANSACTION_CREATION_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexConcurrently(queryRunner, TRANSACTION_CREATION_INDEX);
  }
}
