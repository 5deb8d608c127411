import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The longest scheme tokenization outcome,
 * SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED, is 65 characters: the
 * 64-character column refused it and the save failed (500). Widened, and limited to the
 * SCHEME_TOKENIZATION_* codes it is meant to hold.
 *
 * The vault is in use when this runs. Widening a varchar neither rewrites nor scans the table;
 * the check is added NOT VALID, so Postgres skips the scan of every existing row it would make
 * under this migration's exclusive lock, and ValidateSchemeTokenOutcome1764100000001 validates
 * it in a transaction of its own. (Changed before any release; a database that applied the
 * one-step version has the same, already valid, constraint: migrations are identified by name.)
 */
export class WidenSchemeTokenOutcome1764100000000 implements MigrationInterface {
  name = 'WidenSchemeTokenOutcome1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE token_vault.tokens ALTER COLUMN scheme_token_outcome TYPE varchar(80)`);
    await queryRunner.query(
      `ALTER TABLE token_vault.tokens ADD CONSTRAINT tokens_scheme_token_outcome_check CHECK (scheme_token_outcome ~ '^SCHEME_TOKENIZATION_[A-Z_]+$') NOT VALID`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE token_vault.tokens DROP CONSTRAINT tokens_scheme_token_outcome_check`);
    await queryRunner.query(`ALTER TABLE token_vault.tokens ALTER COLUMN scheme_token_outcome TYPE varchar(64)`);
  }
}
