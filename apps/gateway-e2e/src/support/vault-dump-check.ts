import { databaseUrl, dumpSchema, findInDump, TEST_CARD_NUMBERS } from '@gateway/testing';

/**
 * The security codes the e2e tier sends (the test acquirer's magic values, docs/test-acquirer.md):
 * none may be stored anywhere in the vault, not even for a moment.
 */
const SECURITY_CODES = ['100', '101', '102', '1000', '1010', '1020'];

/**
 * Issue 5: after a full e2e run, the token_vault schema (what a stolen backup would hold) shows
 * none of the test card numbers and no security code in clear. Run by the teardown of the
 * distributed profile, whose services use the machine's Postgres; the standalone profile's
 * embedded Postgres is newer than the machine's pg_dump (the integration tier dumps the same
 * schema written by the same code).
 */
export async function vaultDumpFindings(database: string): Promise<string[]> {
  const dump = await dumpSchema(databaseUrl(database), 'token_vault');
  if (!dump.includes('COPY token_vault.tokens')) {
    return ['the dump holds no token_vault.tokens table'];
  }
  return findInDump(dump, [
    ...TEST_CARD_NUMBERS.map((number) => ({ what: `a test card number ending ${number.slice(-4)}`, text: number })),
    // Sealed values are random bytes: a stored code would be a clear column or JSON value.
    ...SECURITY_CODES.map((code) => ({ what: `security code ${code}`, text: code, wholeField: true, textOnly: true })),
  ]);
}
