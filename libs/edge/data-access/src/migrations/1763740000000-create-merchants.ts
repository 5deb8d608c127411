import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateMerchants1763740000000 implements MigrationInterface {
  name = 'CreateMerchants1763740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE edge.merchants (
        id varchar(40) PRIMARY KEY CHECK (id ~ '^[0-9A-Za-z_-]{1,40}$'),
        name varchar(100) NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('TEST', 'LIVE')),
        status varchar(8) NOT NULL CHECK (status IN ('ENABLED', 'DISABLED')),
        settings jsonb NOT NULL,
        password_hash text,
        previous_password_hash text,
        previous_password_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE edge.merchants');
  }
}
