import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Validates the check WidenSchemeTokenOutcome1764100000000 added NOT VALID. Its own migration,
 * so its own transaction: VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets
 * the vault read and write meanwhile, but would not help behind the exclusive lock the ALTERs
 * that widened the column and added the check hold until their transaction ends. On a
 * database where the check is valid already, a no-op.
 */
export class ValidateSchemeTokenOutcome1764100000001 implements MigrationInterface {
  name = 'ValidateSchemeTokenOutcome1764100000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE token_vault.tokens VALIDATE CONSTRAINT tokens_scheme_token_outcome_check',
    );
  }

  async down(): Promise<void> {
    // Nothing to undo: the previous migration's down drops the check.
  }
}
