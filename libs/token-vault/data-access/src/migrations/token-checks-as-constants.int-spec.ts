import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { migrateSchema } from '@gateway/platform';
import { migrationTestDatabase } from '@gateway/testing';
import { STORED_VERIFICATION_STRATEGIES, TOKEN_SOURCE_TYPES, TOKEN_STATUSES } from '../token.entity';
import { TOKEN_VAULT_SCHEMA } from '../token-vault.schema';
import { TokenChecksAsConstants1765100000000 } from './1765100000000-token-checks-as-constants';

/**
 * TokenChecksAsConstants against a vault that holds a token from before it, as a live one does:
 * in a database of its own, migrated up to the migration before, given a token, then migrated
 * on. The checks it writes anew must refuse what the old ones refused and let through what they
 * let through, and be stored without what Postgres would fold again at every write statement.
 */
const database = migrationTestDatabase('tv_token_checks', TOKEN_VAULT_SCHEMA);

const REPLACED = ['tokens_status_check', 'tokens_source_type_check', 'tokens_verification_strategy_check'];

/** A card token, written as the release before this migration writes one (the sealed columns are placeholders). */
async function tokenBefore(dataSource: DataSource): Promise<string> {
  const id = randomUUID();
  await dataSource.query(
    `INSERT INTO token_vault.data_keys (id, state, master_key_id, wrapped_key) VALUES (1, 'ACTIVE', 'int-checks', '\\x00') ON CONFLICT DO NOTHING`,
  );
  await dataSource.query(
    `INSERT INTO token_vault.tokens (id, repository_id, token, status, source_type, verification_strategy, data_key_id,
       account_identifier, fingerprint, unique_account, card_number_masked, card_expiry, created_by, updated_by)
     VALUES ($1, 'INTCHECKS', $2, 'VALID', 'CARD', 'NONE', 1, '\\x00', $3, false, '512345xxxxxx0008', '0139', 'INTCHECKS', 'INTCHECKS')`,
    [id, `t${randomBytes(4).toString('hex')}`, randomBytes(32)],
  );
  return id;
}

it('replaces the token checks on a live vault, validated, stored as constants, refusing what they refused', async () => {
  const before = await database.upTo(TokenChecksAsConstants1765100000000);
  let id: string;
  try {
    await migrateSchema(before);
    id = await tokenBefore(before);
  } finally {
    await before.destroy();
  }

  const after = await database.withAll();
  try {
    expect(await migrateSchema(after)).toEqual(['TokenChecksAsConstants1765100000000', 'ValidateTokenChecks1765100000001']);
    expect(await migrateSchema(after)).toEqual([]);

    const checks: { name: string; validated: boolean; stored: string }[] = await after.query(
      `SELECT conname AS name, convalidated AS validated, conbin AS stored
         FROM pg_constraint WHERE contype = 'c' AND conrelid = 'token_vault.tokens'::regclass`,
    );
    expect(checks.filter((c) => REPLACED.includes(c.name)).map((c) => [c.name, c.validated]).sort()).toEqual(REPLACED.map((name) => [name, true]).sort());
    // What the change is for: no check of the table is stored as an array built at run time, or
    // with a cast Postgres evaluates again at every write statement (a FUNCEXPR whose funcformat
    // is 1 or 2, an explicit or implicit cast; octet_length is a call, funcformat 0).
    for (const check of checks) {
      expect([check.name, check.stored]).toEqual([check.name, expect.not.stringMatching(/\{(ARRAYEXPR|ARRAYCOERCEEXPR) |\{FUNCEXPR [^{]*:funcformat [12] /)]);
    }

    const token = (set: string, values: unknown[] = []) => after.query(`UPDATE token_vault.tokens SET ${set} WHERE id = $1`, [id, ...values]);

    // Every value the old checks let through still goes through.
    for (const status of TOKEN_STATUSES) await token('status = $2', [status]);
    for (const strategy of STORED_VERIFICATION_STRATEGIES) await token('verification_strategy = $2', [strategy]);
    for (const sourceType of TOKEN_SOURCE_TYPES) {
      const card = sourceType === 'CARD';
      await token('source_type = $2, card_number_masked = $3, provider_a_agreement = $4', [sourceType, card ? '512345xxxxxx0008' : null, card ? null : '{"id":"B-1"}']);
    }

    // And what they refused is refused, by the check of that name.
    await expect(token('status = $2', ['EXPIRED'])).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'tokens_status_check' } });
    await expect(token('status = $2', ['valid'])).rejects.toMatchObject({ driverError: { constraint: 'tokens_status_check' } });
    // Neither card nor agreement, so that only the source type's own check can refuse it.
    await expect(token('source_type = $2, card_number_masked = NULL, provider_a_agreement = NULL', ['PAYPAL'])).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'tokens_source_type_check' } });
    await expect(token('verification_strategy = $2', ['3DS'])).rejects.toMatchObject({ driverError: { code: '23514', constraint: 'tokens_verification_strategy_check' } });
    await expect(token('verification_strategy = $2', [''])).rejects.toMatchObject({ driverError: { constraint: 'tokens_verification_strategy_check' } });
  } finally {
    await after.destroy();
  }
});
