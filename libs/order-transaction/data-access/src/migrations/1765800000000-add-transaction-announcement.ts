import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the notification of an open card transaction's outcome needs (the URL in force for its
 * operation, the merchant's mode, the notification secret sealed as the request's profile carried
 * it), written with a reservation (and kept on an UNKNOWN outcome) when the operation would be
 * announced, so that a resolution, which serves no request, announces the outcome as the
 * operation's completion would have (docs/decisions/unknown-resolution.md, amendment
 * 2026-11-27). NULL for every other transaction, and again once the outcome is recorded. A
 * nullable column without a default: a catalogue change, no rewrite of the table, under the
 * migration's lock_timeout (migrations-on-a-live-database.md). Older releases, which name their
 * columns, neither read nor write it.
 */
export class AddTransactionAnnouncement1765800000000 implements MigrationInterface {
  name = 'AddTransactionAnnouncement1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE order_transaction.transactions ADD COLUMN announcement jsonb');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE order_transaction.transactions DROP COLUMN announcement');
  }
}
