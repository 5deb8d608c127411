import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every committed change of a merchant row notifies the edge replicas, which drop that
 * merchant's cached profile (docs/decisions/merchant-cache-invalidation.md). A trigger rather
 * than a call in each writer: the admin CLI, the edge's own re-hash and an operator's psql
 * session all notify, and none can forget to. NOTIFY is sent at commit, and not at all on
 * rollback. The payload is the merchant id only, never a column of the profile: every session of
 * the database may LISTEN. The channel is MERCHANT_CHANGES_CHANNEL (written out: a migration's SQL
 * never changes).
 */
export class NotifyMerchantChanges1765000000000 implements MigrationInterface {
  name = 'NotifyMerchantChanges1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION edge.notify_merchant_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM pg_notify('edge_merchant_changed', OLD.id);
        END IF;
        -- The same id twice in one transaction is delivered once.
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM pg_notify('edge_merchant_changed', NEW.id);
        END IF;
        RETURN NULL;
      END
      $$
    `);
    await queryRunner.query(`
      CREATE TRIGGER merchants_notify_changed
        AFTER INSERT OR UPDATE OR DELETE ON edge.merchants
        FOR EACH ROW EXECUTE FUNCTION edge.notify_merchant_changed()
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER merchants_notify_changed ON edge.merchants');
    await queryRunner.query('DROP FUNCTION edge.notify_merchant_changed()');
  }
}
