import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhook outbox (issue 8). Partial indexes keep the dispatcher's claim query and the
 * backlog gauge on the PENDING rows only, however many delivered rows the table keeps.
 */
export class CreateNotificationOutbox1764200000000 implements MigrationInterface {
  name = 'CreateNotificationOutbox1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE order_transaction.notification_outbox (
        id uuid NOT NULL,
        merchant_id varchar(40) NOT NULL,
        merchant_mode varchar(4) NOT NULL,
        order_id varchar(40) NOT NULL,
        transaction_id varchar(40) NOT NULL,
        api_operation varchar(40) NOT NULL,
        url varchar(2048) NOT NULL,
        payload jsonb NOT NULL,
        sealed_secret text NOT NULL,
        sealed_previous_secret text,
        status varchar(10) NOT NULL,
        attempts integer NOT NULL,
        next_attempt_at timestamptz NOT NULL,
        window_started_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        last_attempt_at timestamptz,
        last_result varchar(200),
        delivered_at timestamptz,
        CONSTRAINT notification_outbox_pkey PRIMARY KEY (id),
        CONSTRAINT notification_outbox_status_check CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
        CONSTRAINT notification_outbox_merchant_mode_check CHECK (merchant_mode IN ('TEST', 'LIVE')),
        CONSTRAINT notification_outbox_attempts_check CHECK (attempts >= 0),
        CONSTRAINT notification_outbox_url_check CHECK (url ~ '^https://')
      )
    `);
    await queryRunner.query(
      `CREATE INDEX notification_outbox_due_idx ON order_transaction.notification_outbox (next_attempt_at) WHERE status = 'PENDING'`,
    );
    await queryRunner.query(
      `CREATE INDEX notification_outbox_failed_idx ON order_transaction.notification_outbox (merchant_id, created_at) WHERE status = 'FAILED'`,
    );
    await queryRunner.query(
      `CREATE INDEX notification_outbox_delivered_idx ON order_transaction.notification_outbox (delivered_at) WHERE status = 'DELIVERED'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_transaction.notification_outbox');
  }
}
