import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The queue of UNKNOWN card transactions to ask the acquirer about
 * (docs/decisions/unknown-resolution.md). A new table: its constraints and indexes are built
 * with it, so nothing here waits on a table in use. Transactions recorded UNKNOWN before this
 * release are not queued: `transactions unresolved` lists them, `transactions resolve` records
 * what the acquirer's records say.
 */
export class CreateUnknownInquiries1764800000001 implements MigrationInterface {
  name = 'CreateUnknownInquiries1764800000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE order_transaction.unknown_inquiries (
        merchant_id varchar(40) NOT NULL,
        order_id varchar(40) NOT NULL,
        transaction_id varchar(40) NOT NULL,
        merchant_mode varchar(4) NOT NULL,
        recorded_at timestamptz NOT NULL,
        next_attempt_at timestamptz NOT NULL,
        attempts integer NOT NULL,
        last_result varchar(200),
        CONSTRAINT unknown_inquiries_pkey PRIMARY KEY (merchant_id, order_id, transaction_id),
        CONSTRAINT unknown_inquiries_merchant_mode_check CHECK (merchant_mode IN ('TEST', 'LIVE')),
        CONSTRAINT unknown_inquiries_attempts_check CHECK (attempts >= 0)
      )
    `);
    await queryRunner.query('CREATE INDEX unknown_inquiries_due_idx ON order_transaction.unknown_inquiries (next_attempt_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_transaction.unknown_inquiries');
  }
}
