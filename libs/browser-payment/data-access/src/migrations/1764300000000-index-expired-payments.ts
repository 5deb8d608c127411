import { MigrationInterface, QueryRunner } from 'typeorm';
import { EXPIRY_DUE_PREDICATE } from '../payment-columns';

/**
 * The payments the gateway settles once their redirect token expired, by expiry (then id, the
 * sweep's page boundary): pending ones,
 * except those back and waiting for the merchant's confirm (the merchant settles those). The
 * index holds only open journeys, so it stays small however many payments end.
 */
export class IndexExpiredPayments1764300000000 implements MigrationInterface {
  name = 'IndexExpiredPayments1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX payments_expiry_due_idx ON browser_payment.payments (token_expires_at, id) WHERE ${EXPIRY_DUE_PREDICATE}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX browser_payment.payments_expiry_due_idx`);
  }
}
