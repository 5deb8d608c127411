import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Validates the checks TokenChecksAsConstants1765100000000 added NOT VALID. Its own migration,
 * so its own transaction: VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets the
 * vault read and write meanwhile, but would not help behind the exclusive lock the ALTER that
 * added the checks holds until its transaction ends.
 */
export class ValidateTokenChecks1765100000001 implements MigrationInterface {
  name = 'ValidateTokenChecks1765100000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const check of ['tokens_status_check', 'tokens_source_type_check', 'tokens_verification_strategy_check']) {
      await queryRunner.query(`ALTER TABLE token_vault.tokens VALIDATE CONSTRAINT ${check}`);
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: the previous migration's down puts the checks it replaced back.
  }
}
