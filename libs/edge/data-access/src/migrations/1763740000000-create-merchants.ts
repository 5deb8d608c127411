import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateMerchants1763740000000 implements MigrationInterface {
  name = 'CreateMerchants1763740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE edge.merchants (
        id varchar(40) PRIMARY KEY,
        name varchar(100) NOT NULL,
        mode varchar(4) NOT NULL,
        status varchar(8) NOT NULL,
        settings jsonb NOT NULL,
        password_hash text,
        previous_password_hash text,
        previous_password_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT merchants_id_check CHECK (id ~ '^[0-9A-Za-z_-]{1,40}$'),
        CONSTRAINT merchants_mode_check CHECK (mode IN ('TEST', 'LIVE')),
        CONSTRAINT merchants_status_check CHECK (status IN ('ENABLED', 'DISABLED'))
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE edge.merchants');
  }
}
