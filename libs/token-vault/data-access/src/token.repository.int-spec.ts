import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import { migrateSchema, serviceDataSourceOptions } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan, SentStatement, sentStatements } from '@gateway/testing';
import { TOKEN_VAULT_SCHEMA } from './token-vault.schema';
import { SealedColumns, TokenConflictError, TokenRecord, TokenRepository, TokenWrite } from './token.repository';

/**
 * The vault's hand-written token SQL against the real Postgres: what each statement writes and
 * returns (types as the domain reads them), the version check, the uniqueness rules as
 * TokenConflictError, and how many statements a save costs.
 *
 * A database of its own: the rows here are under a data key this file makes up, which the
 * vaults of the other test files (sharing the run's database and its keys) must not see.
 */
const database = `${process.env.TEST_DATABASE}_token_repository`;
let url: string;
let dataSource: DataSource;
let tokens: TokenRepository;

/** The first two words of each statement `work` sends. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  return (await sentStatements(work)).map(firstWords);
}

function firstWords({ text }: SentStatement): string {
  return text.trim().split(/\s+/).slice(0, 2).join(' ');
}

beforeAll(async () => {
  url = await createDatabase(database);
  const options = serviceDataSourceOptions(TOKEN_VAULT_SCHEMA, { url, poolSize: 4, statementTimeoutMs: 30_000, applicationName: 'int-token-repository' });
  dataSource = await new DataSource(options).initialize();
  await migrateSchema(dataSource);
  // Two made-up data keys (the rows' data_key_id must name one); nothing here opens a sealed column.
  await dataSource.query(
    `INSERT INTO token_vault.data_keys (id, state, master_key_id, wrapped_key, retired_at)
     VALUES (1, 'ACTIVE', 'int-repository', $1, NULL), (2, 'DECRYPT_ONLY', 'int-repository', $1, now())`,
    [randomBytes(60)],
  );
  tokens = TokenRepository.over(dataSource);
}, 60_000);

afterAll(async () => {
  await dataSource?.destroy();
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

const newRepository = () => `TestR${randomBytes(5).toString('hex')}`;
const newToken = () => `t${randomBytes(8).toString('hex')}`;

/** A card token's row; the sealed columns are random bytes (nothing here is ever opened). */
function cardWrite(changes: Partial<TokenWrite> = {}): TokenWrite {
  return {
    id: randomUUID(),
    repositoryId: newRepository(),
    token: newToken(),
    status: 'VALID',
    sourceType: 'CARD',
    verificationStrategy: 'NONE',
    dataKeyId: 1,
    accountIdentifier: randomBytes(48),
    fingerprint: randomBytes(32),
    uniqueAccount: true,
    cardNumberMasked: '512345xxxxxx0008',
    cardExpiry: '0139',
    cardBrand: 'MASTERCARD',
    cardScheme: 'MASTERCARD',
    cardFundingMethod: 'CREDIT',
    providerAAgreement: null,
    providerADetails: null,
    schemeTokenOutcome: 'SCHEME_TOKENIZATION_SUCCESSFUL',
    schemeTokenReference: 'TSPREF0001',
    schemeToken: randomBytes(40),
    createdBy: 'INTREPOSITORY',
    updatedBy: 'INTREPOSITORY',
    ...changes,
  };
}

function providerAWrite(changes: Partial<TokenWrite> = {}): TokenWrite {
  return cardWrite({
    sourceType: 'PROVIDER_A',
    cardNumberMasked: null,
    cardExpiry: null,
    cardBrand: null,
    cardScheme: null,
    cardFundingMethod: null,
    providerAAgreement: { cardinality: 'MULTIPLE', name: 'Monthly box', description: 'Billed monthly' },
    providerADetails: randomBytes(64),
    schemeTokenOutcome: null,
    schemeTokenReference: null,
    schemeToken: null,
    ...changes,
  });
}

function insert(row: TokenWrite): Promise<TokenRecord> {
  return tokens.insert(row);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the write to fail');
}

describe('insert', () => {
  it.each([
    ['card', cardWrite],
    ['provider_a', providerAWrite],
  ])('returns the whole %s row as written, equal to reading it again', async (_kind, write) => {
    const row = write();
    const inserted = await insert(row);

    expect(inserted).toEqual({ ...row, createdAt: inserted.createdAt, updatedAt: inserted.createdAt, lastUsedAt: null, version: 1 });
    expect(inserted.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(inserted.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(Buffer.isBuffer(inserted.accountIdentifier) && Buffer.isBuffer(inserted.fingerprint)).toBe(true);
    expect(typeof inserted.version).toBe('number');
    expect(typeof inserted.dataKeyId).toBe('number');
    expect(await tokens.findByToken(row.repositoryId, row.token)).toEqual(inserted);
    expect(await tokens.findByFingerprint(row.repositoryId, row.fingerprint)).toEqual(inserted);
  });

  it('keeps each column apart that the usual row fills alike: brand and scheme, creator and updater', async () => {
    const row = cardWrite({ cardBrand: 'MAESTRO', cardScheme: 'MASTERCARD', cardFundingMethod: 'DEBIT', createdBy: 'INTCREATOR', updatedBy: 'INTUPDATER' });
    const inserted = await insert(row);
    expect(inserted).toMatchObject({ cardBrand: 'MAESTRO', cardScheme: 'MASTERCARD', cardFundingMethod: 'DEBIT', createdBy: 'INTCREATOR', updatedBy: 'INTUPDATER' });
    expect(await tokens.findByToken(row.repositoryId, row.token)).toEqual(inserted);
  });

  it('stores no agreement as SQL NULL, not as the JSON null', async () => {
    const row = await insert(cardWrite());
    const [stored] = await dataSource.query('SELECT provider_a_agreement IS NULL AS "isNull" FROM token_vault.tokens WHERE id = $1', [row.id]);
    expect(stored.isNull).toBe(true);
  });

  it('translates the uniqueness rules into TokenConflictError and writes nothing', async () => {
    const first = await insert(cardWrite());
    const sameToken = cardWrite({ repositoryId: first.repositoryId, token: first.token });
    const sameAccount = cardWrite({ repositoryId: first.repositoryId, fingerprint: first.fingerprint });

    expect(await rejection(insert(sameToken))).toEqual(new TokenConflictError('TOKEN'));
    expect(await rejection(insert(sameAccount))).toEqual(new TokenConflictError('ACCOUNT'));
    const [{ count }] = await dataSource.query('SELECT count(*)::int AS count FROM token_vault.tokens WHERE repository_id = $1', [first.repositoryId]);
    expect(count).toBe(1);
  });

  it('lets rows outside the uniqueness rule share an account', async () => {
    const first = await insert(cardWrite({ uniqueAccount: false }));
    const second = await insert(cardWrite({ repositoryId: first.repositoryId, fingerprint: first.fingerprint, uniqueAccount: false }));
    expect(second.fingerprint.equals(first.fingerprint)).toBe(true);
    expect(await tokens.findByFingerprint(first.repositoryId, first.fingerprint)).toBeNull();
  });

  it('fails other constraint violations as they are (a check, not a conflict)', async () => {
    const err = await rejection(insert(cardWrite({ cardNumberMasked: '5123450000000000' })));
    expect(err).not.toBeInstanceOf(TokenConflictError);
    // node-pg's own error: the statement does not go through TypeORM, which would wrap it.
    expect(err).toBeInstanceOf(DatabaseError);
    expect(err).toMatchObject({ code: '23514', constraint: 'tokens_card_number_masked_check' });
  });
});

describe('update', () => {
  it('writes the content at the expected version: version and updated_at move, created_at, created_by and last use stay', async () => {
    const before = await insert(cardWrite());
    await tokens.markUsed(before.id);
    const used = (await tokens.findByToken(before.repositoryId, before.token))!;
    await sleep(10);
    const changes = providerAWrite({ id: before.id, repositoryId: before.repositoryId, token: before.token, createdBy: 'SOMEONEELSE', updatedBy: 'INTUPDATER', dataKeyId: 2 });

    const updated = await tokens.inTransaction(async (tx) => {
      const locked = (await tx.lockByToken(before.repositoryId, before.token))!;
      return tx.update(changes, locked.version);
    });

    expect(updated).toEqual({
      ...changes,
      createdBy: 'INTREPOSITORY',
      createdAt: before.createdAt,
      updatedAt: updated!.updatedAt,
      lastUsedAt: used.lastUsedAt,
      version: 2,
    });
    expect(updated!.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    expect(await tokens.findByToken(before.repositoryId, before.token)).toEqual(updated);
  });

  it('returns null and writes nothing when the row is no longer at the expected version', async () => {
    const before = await insert(cardWrite());
    await tokens.inTransaction((tx) => tx.update({ ...before, cardExpiry: '0540' }, 1));

    const stale = await tokens.inTransaction((tx) => tx.update({ ...before, cardExpiry: '0541' }, 1));

    expect(stale).toBeNull();
    expect(await tokens.findByToken(before.repositoryId, before.token)).toMatchObject({ cardExpiry: '0540', version: 2 });
  });

  it("translates taking another token's account into TokenConflictError", async () => {
    const holder = await insert(cardWrite());
    const other = await insert(cardWrite({ repositoryId: holder.repositoryId }));
    const err = await rejection(tokens.inTransaction((tx) => tx.update({ ...other, fingerprint: holder.fingerprint }, other.version)));
    expect(err).toEqual(new TokenConflictError('ACCOUNT'));
    expect((await tokens.findByToken(other.repositoryId, other.token))!.version).toBe(1);
  });
});

describe('reads and small writes', () => {
  it('finds nothing for another repository, another token or another account', async () => {
    const row = await insert(cardWrite());
    expect(await tokens.findByToken(newRepository(), row.token)).toBeNull();
    expect(await tokens.findByToken(row.repositoryId, newToken())).toBeNull();
    expect(await tokens.findByFingerprint(row.repositoryId, randomBytes(32))).toBeNull();
    expect(await tokens.findByFingerprint(newRepository(), row.fingerprint)).toBeNull();
    expect(await tokens.inTransaction((tx) => tx.findByFingerprint(newRepository(), row.fingerprint))).toBeNull();
    expect(await tokens.inTransaction((tx) => tx.lockByToken(row.repositoryId, newToken()))).toBeNull();
    expect(await tokens.inTransaction((tx) => tx.lockByToken(newRepository(), row.token))).toBeNull();
  });

  it('marks a token used without moving its version or updated_at', async () => {
    const row = await insert(cardWrite());
    await tokens.markUsed(row.id);
    const used = (await tokens.findByToken(row.repositoryId, row.token))!;
    expect(used.lastUsedAt).toBeInstanceOf(Date);
    expect(used).toEqual({ ...row, lastUsedAt: used.lastUsedAt });
  });

  it('deletes a token once', async () => {
    const row = await insert(cardWrite());
    expect(await tokens.deleteByToken(row.repositoryId, row.token)).toBe(true);
    expect(await tokens.deleteByToken(row.repositoryId, row.token)).toBe(false);
    expect(await tokens.findByToken(row.repositoryId, row.token)).toBeNull();
  });

  it("deletes only its own repository's token, not another repository's token of the same name", async () => {
    const mine = await insert(cardWrite());
    const theirs = await insert(cardWrite({ token: mine.token }));
    expect(await tokens.deleteByToken(newRepository(), mine.token)).toBe(false);
    expect(await tokens.deleteByToken(mine.repositoryId, mine.token)).toBe(true);
    expect(await tokens.findByToken(theirs.repositoryId, theirs.token)).toEqual(theirs);
  });
});

describe('key rotation', () => {
  const resealUnder = (dataKeyId: number) => async (row: TokenRecord) => ({
    dataKeyId,
    accountIdentifier: randomBytes(48),
    providerADetails: row.providerADetails === null ? null : randomBytes(64),
    schemeToken: row.schemeToken === null ? null : randomBytes(40),
  });

  it('re-seals rows under another key in batches, skipping rows a save holds, without moving version or updated_at', async () => {
    const card = await insert(cardWrite({ dataKeyId: 2 }));
    const agreement = await insert(providerAWrite({ dataKeyId: 2 }));
    const held = await insert(cardWrite({ dataKeyId: 2 }));
    const pending = await tokens.countNotUnderKey(1);
    expect(pending).toBeGreaterThanOrEqual(3);

    // A save holds `held` locked while the rotation runs.
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query('SELECT id FROM token_vault.tokens WHERE id = $1 FOR UPDATE', [held.id]);
      let resealed = 0;
      for (let batch = await tokens.reencryptBatch(1, 2, resealUnder(1)); batch > 0; batch = await tokens.reencryptBatch(1, 2, resealUnder(1))) {
        expect(batch).toBeLessThanOrEqual(2);
        resealed += batch;
      }
      expect(resealed).toBe(pending - 1);
      expect(await tokens.countNotUnderKey(1)).toBe(1);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }

    for (const before of [card, agreement]) {
      const after = (await tokens.findByToken(before.repositoryId, before.token))!;
      expect(after).toEqual({
        ...before,
        dataKeyId: 1,
        accountIdentifier: after.accountIdentifier,
        providerADetails: after.providerADetails,
        schemeToken: after.schemeToken,
      });
      expect(after.accountIdentifier.equals(before.accountIdentifier)).toBe(false);
      expect(after.providerADetails === null).toBe(before.providerADetails === null);
      expect(after.schemeToken === null).toBe(before.schemeToken === null);
    }
    expect(await tokens.reencryptBatch(1, 2, resealUnder(1))).toBe(1);
    expect(await tokens.countNotUnderKey(1)).toBe(0);
  });

  it('writes every sealed column reseal gives: the scheme token and provider_a details too', async () => {
    const rows = [await insert(cardWrite({ dataKeyId: 2 })), await insert(providerAWrite({ dataKeyId: 2 }))];
    const resealed = new Map<string, SealedColumns>();
    const reseal = async (row: TokenRecord) => {
      const sealed = await resealUnder(1)(row);
      resealed.set(row.id, sealed);
      return sealed;
    };
    while ((await tokens.reencryptBatch(1, 10, reseal)) > 0) {
      // until no row is left under another key
    }
    for (const before of rows) {
      const { dataKeyId, accountIdentifier, providerADetails, schemeToken } = (await tokens.findByToken(before.repositoryId, before.token))!;
      expect({ dataKeyId, accountIdentifier, providerADetails, schemeToken }).toEqual(resealed.get(before.id));
    }
  });
});

describe('round trips', () => {
  it('writes a new token in one statement, no transaction around it, and it is committed when it returns', async () => {
    const row = cardWrite();
    const sent = await sentStatements(() => tokens.insert(row));
    expect(sent.map(firstWords)).toEqual(['INSERT INTO']);
    // As a named prepared statement: Postgres parses and plans it once per connection.
    expect(sent[0].name).toEqual(expect.stringMatching(/^\S+$/));
    // A connection outside the pool sees it at once: nothing was left to commit.
    const other = new Client({ connectionString: url });
    await other.connect();
    try {
      expect((await other.query('SELECT token FROM token_vault.tokens WHERE id = $1', [row.id])).rows).toEqual([{ token: row.token }]);
    } finally {
      await other.end();
    }
  });

  it('has a new token returned with only the columns the database fills, the rest taken from the row written', async () => {
    const row = providerAWrite();
    const sent = await sentStatements(() => tokens.insert(row));
    const returning = sent[0].text.slice(sent[0].text.lastIndexOf('RETURNING') + 'RETURNING'.length);
    expect(returning.split(',').map((column) => column.trim())).toEqual(['id', 'provider_a_agreement', 'created_at', 'updated_at', 'last_used_at', 'version']);
  });

  it('translates a conflict of the autocommitted insert as in a transaction, and leaves no transaction open', async () => {
    const first = await insert(cardWrite());
    const sent = await statementsOf(async () => {
      expect(await rejection(insert(cardWrite({ repositoryId: first.repositoryId, token: first.token })))).toEqual(new TokenConflictError('TOKEN'));
    });
    expect(sent).toEqual(['INSERT INTO']);
    const [{ open }] = await dataSource.query(
      `SELECT count(*)::int AS open FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'int-token-repository' AND state LIKE 'idle in transaction%'`,
    );
    expect(open).toBe(0);
  });

  it('reads a token in one statement', async () => {
    const row = await insert(cardWrite());
    expect(await statementsOf(() => tokens.findByToken(row.repositoryId, row.token))).toEqual(['SELECT id,']);
  });

  it('updates a token with the row lock and one statement in its transaction', async () => {
    const row = await insert(cardWrite());
    const sent = await statementsOf(() =>
      tokens.inTransaction(async (tx) => tx.update(row, (await tx.lockByToken(row.repositoryId, row.token))!.version)),
    );
    expect(sent).toEqual(['START TRANSACTION', 'SELECT id,', 'UPDATE token_vault.tokens', 'COMMIT']);
  });
});
