import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A TRUNCATE of edge.merchants fires no row trigger, so NotifyMerchantChanges1765000000000 told
 * no replica: each kept serving the profiles it had cached, every merchant gone included, until
 * their TTL. A statement trigger notifies the same channel once per TRUNCATE with the payload
 * MERCHANT_CHANGES_ALL (`*`, never a merchant id), and each replica drops its whole cache
 * (docs/decisions/merchant-cache-invalidation.md). Like the row trigger's, the notification is
 * sent at commit only. Creating a trigger takes a SHARE ROW EXCLUSIVE lock on the table for an
 * instant (no scan, reads go on); the migration's lock_timeout bounds its wait behind writers.
 * The function is replaced if present and the trigger dropped first, so a rerun ends the same.
 */
export class NotifyMerchantsTruncated1765100000000 implements MigrationInterface {
  name = 'NotifyMerchantsTruncated1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION edge.notify_merchants_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('edge_merchant_changed', '*');
        RETURN NULL;
      END
      $$
    `);
    await queryRunner.query('DROP TRIGGER IF EXISTS merchants_notify_truncated ON edge.merchants');
    await queryRunner.query(`
      CREATE TRIGGER merchants_notify_truncated
        AFTER TRUNCATE ON edge.merchants
        FOR EACH STATEMENT EXECUTE FUNCTION edge.notify_merchants_truncated()
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER merchants_notify_truncated ON edge.merchants');
    await queryRunner.query('DROP FUNCTION edge.notify_merchants_truncated()');
  }
}
