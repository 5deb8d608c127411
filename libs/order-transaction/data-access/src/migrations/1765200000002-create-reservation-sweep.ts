import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sweep's cursor (docs/decisions/unknown-resolution.md, amendment "abandoned reservations
 * nobody reads"): one row, the creation time up to which the ledger has been swept for card
 * reservations abandoned PENDING. A new table; its one row is written here.
 *
 * It starts at the oldest card reservation still PENDING, so one abandoned before this release
 * is swept too, ten minutes earlier still (ABANDONED_RESERVATION_MS: the longest a live
 * operation holds its reservation), so one being written while this runs, its creation time
 * taken before this statement's snapshot and committed after it, is not passed; without one, at
 * now() less those ten minutes. The condition is CARD_RESERVATION_SQL as this release writes it.
 * Finding the oldest reads the whole table once (no index has `result`), as `transactions
 * unresolved` does; it takes no lock that holds a write back.
 */
export class CreateReservationSweep1765200000002 implements MigrationInterface {
  name = 'CreateReservationSweep1765200000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE order_transaction.reservation_sweep (
        id boolean NOT NULL DEFAULT true,
        swept_to timestamptz NOT NULL,
        CONSTRAINT reservation_sweep_pkey PRIMARY KEY (id),
        CONSTRAINT reservation_sweep_one_row_check CHECK (id)
      )
    `);
    await queryRunner.query(`
      INSERT INTO order_transaction.reservation_sweep (id, swept_to)
      SELECT true, COALESCE(min(created_at), now()) - interval '10 minutes'
        FROM order_transaction.transactions
       WHERE result = 'PENDING' AND gateway_code = 'PENDING' AND type <> 'REFUND_REQUEST' AND funding_type = 'CARD'
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_transaction.reservation_sweep');
  }
}
