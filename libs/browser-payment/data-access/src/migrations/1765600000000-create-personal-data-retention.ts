import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cursor of the payer personal-data retention in browser-payment
 * (docs/decisions/payer-personal-data.md, item 2, amendment 2026-11-27): one row, the last payment
 * (by last step, then id) up to which the payments over and idle past PERSONAL_DATA_RETENTION_DAYS
 * have had their orders stripped. A new table; its one row is written here, at the start of time.
 */
export class CreatePersonalDataRetention1765600000000 implements MigrationInterface {
  name = 'CreatePersonalDataRetention1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE browser_payment.personal_data_retention (
        id boolean NOT NULL DEFAULT true,
        retained_to timestamptz NOT NULL,
        payment_id uuid NOT NULL,
        CONSTRAINT personal_data_retention_pkey PRIMARY KEY (id),
        CONSTRAINT personal_data_retention_one_row_check CHECK (id)
      )
    `);
    await queryRunner.query(
      `INSERT INTO browser_payment.personal_data_retention (id, retained_to, payment_id) VALUES (true, '-infinity', '00000000-0000-0000-0000-000000000000')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE browser_payment.personal_data_retention');
  }
}
