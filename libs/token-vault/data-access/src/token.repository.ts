import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { inTransaction as inStatementsTransaction, onConnection, PreparedStatement } from '@gateway/platform';
import { DataSource, EntityManager } from 'typeorm';
import { isPgError } from './pg-errors';
import type { TokenEntity } from './token.entity';

/** A token row as the domain reads and writes it. */
export type TokenRecord = Omit<TokenEntity, 'dataKey'>;

/** The columns a write sets; times and version are the database's. */
export type TokenWrite = Omit<TokenRecord, 'createdAt' | 'updatedAt' | 'version' | 'lastUsedAt'>;

/** The sealed columns, re-sealed together under one data key by key rotation. */
export type SealedColumns = Pick<TokenRecord, 'dataKeyId' | 'accountIdentifier' | 'providerADetails' | 'schemeToken'>;

/** A write hit a uniqueness rule: the token id is taken, or the account is already stored. */
export class TokenConflictError extends Error {
  override name = 'TokenConflictError';

  constructor(readonly conflict: 'TOKEN' | 'ACCOUNT') {
    super(`token conflict: ${conflict}`);
  }
}

/**
 * Every column of a token row (TokenRow, which `toRecord` maps by name). Selected and returned by
 * name (never `*`), so a column added later is not read by accident.
 */
const TOKEN_COLUMNS = `id, repository_id, token, status, source_type, verification_strategy, data_key_id,
  account_identifier, fingerprint, unique_account, card_number_masked, card_expiry, card_brand, card_scheme,
  card_funding_method, provider_a_agreement, provider_a_details, scheme_token_outcome, scheme_token_reference,
  scheme_token, created_by, updated_by, created_at, updated_at, last_used_at, version`;

/** The columns a save writes besides id and created_by: `contentValues` gives them as $3..$22. */
const CONTENT_COLUMNS = `repository_id, token, status, source_type, verification_strategy, data_key_id,
  account_identifier, fingerprint, unique_account, card_number_masked, card_expiry, card_brand, card_scheme,
  card_funding_method, provider_a_agreement, provider_a_details, scheme_token_outcome, scheme_token_reference,
  scheme_token, updated_by`;

/**
 * What an INSERT returns: the columns the database fills (created_at, updated_at, version and
 * last_used_at, from their defaults) or gives back in its own form (id as uuid, the agreement as
 * jsonb); every other column is the value the insert sent, which `insert` takes from the row it
 * wrote. Returning all 26 cost node-pg a 26-field RowDescription and row to parse on every new
 * token, for values the vault already holds. (No trigger or rule on token_vault.tokens changes a
 * row as it is written.)
 */
const INSERT_RETURNED_COLUMNS = 'id, provider_a_agreement, created_at, updated_at, last_used_at, version';

/**
 * A new row: created_at and updated_at are the database's now(), version its default 1,
 * last_used_at null. $1 id, $2 created_by, $3..$22 as CONTENT_COLUMNS.
 */
const INSERT_TOKEN = new PreparedStatement(
  `INSERT INTO token_vault.tokens (id, created_by, ${CONTENT_COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18, $19, $20, $21, $22)
  RETURNING ${INSERT_RETURNED_COLUMNS}`,
);

/**
 * The row at version $2 gets the save's content ($3..$22), the next version and updated_at now()
 * (as the entity's @UpdateDateColumn did: the transaction's time). id, created_by, created_at and
 * last_used_at stay.
 */
const UPDATE_TOKEN = new PreparedStatement(
  `UPDATE token_vault.tokens
  SET (${CONTENT_COLUMNS}) = ($3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18, $19, $20, $21, $22),
      version = version + 1, updated_at = now()
  WHERE id = $1 AND version = $2
  RETURNING ${TOKEN_COLUMNS}`,
);

const FIND_BY_TOKEN = new PreparedStatement(
  `SELECT ${TOKEN_COLUMNS} FROM token_vault.tokens WHERE repository_id = $1 AND token = $2`,
);

/** As FIND_BY_TOKEN, locking the row until the transaction ends. */
const LOCK_BY_TOKEN = new PreparedStatement(
  `SELECT ${TOKEN_COLUMNS} FROM token_vault.tokens WHERE repository_id = $1 AND token = $2 FOR UPDATE`,
);

/** Only rows under the uniqueness rule (tokens_unique_account_idx). */
const FIND_BY_FINGERPRINT = new PreparedStatement(
  `SELECT ${TOKEN_COLUMNS} FROM token_vault.tokens WHERE repository_id = $1 AND fingerprint = $2 AND unique_account`,
);

const DELETE_BY_TOKEN = new PreparedStatement('DELETE FROM token_vault.tokens WHERE repository_id = $1 AND token = $2');

/** Neither version nor updated_at moves: the token's content did not change. */
const MARK_USED = new PreparedStatement('UPDATE token_vault.tokens SET last_used_at = now() WHERE id = $1');

/** Any one token: the vault checks its fingerprint key against it at start. */
const ANY_TOKEN = new PreparedStatement(`SELECT ${TOKEN_COLUMNS} FROM token_vault.tokens LIMIT 1`);

const COUNT_NOT_UNDER_KEY = new PreparedStatement(
  'SELECT count(*)::int AS count FROM token_vault.tokens WHERE data_key_id <> $1',
);

/** Key rotation's batch: up to $2 rows not under data key $1, skipping rows a save holds. */
const LOCK_ROTATION_BATCH = new PreparedStatement(
  `SELECT ${TOKEN_COLUMNS} FROM token_vault.tokens WHERE data_key_id <> $1
    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
);

/** A row's sealed columns under another data key. Not a content change: neither version nor updated_at moves. */
const RESEAL_TOKEN = new PreparedStatement(
  `UPDATE token_vault.tokens
      SET data_key_id = $2, account_identifier = $3, provider_a_details = $4, scheme_token = $5
    WHERE id = $1`,
);

/** A row as node-pg returns it: bytea as Buffer, timestamptz as Date, integer as number, jsonb parsed. */
interface TokenRow {
  id: string;
  repository_id: string;
  token: string;
  status: TokenRecord['status'];
  source_type: TokenRecord['sourceType'];
  verification_strategy: TokenRecord['verificationStrategy'];
  data_key_id: number;
  account_identifier: Buffer;
  fingerprint: Buffer;
  unique_account: boolean;
  card_number_masked: string | null;
  card_expiry: string | null;
  card_brand: string | null;
  card_scheme: string | null;
  card_funding_method: string | null;
  provider_a_agreement: Record<string, string> | null;
  provider_a_details: Buffer | null;
  scheme_token_outcome: string | null;
  scheme_token_reference: string | null;
  scheme_token: Buffer | null;
  created_by: string;
  updated_by: string;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  version: number;
}

/** INSERT_RETURNED_COLUMNS as node-pg returns them. */
type InsertedRow = Pick<TokenRow, 'id' | 'provider_a_agreement' | 'created_at' | 'updated_at' | 'last_used_at' | 'version'>;

/** What a save does inside its database transaction, on rows it has locked. */
export class TokenTransaction {
  constructor(private readonly manager: EntityManager) {}

  /** The row, locked until the transaction ends (FOR UPDATE). */
  lockByToken(repositoryId: string, token: string): Promise<TokenRecord | null> {
    return selectOne(this.manager, LOCK_BY_TOKEN, [repositoryId, token]);
  }

  findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null> {
    return findByFingerprint(this.manager, repositoryId, fingerprint);
  }

  /**
   * Writes the row if it is still at `expectedVersion`, in one statement that returns the row
   * written; the caller holds its lock. Null when the row is at another version (or gone).
   */
  async update(row: TokenWrite, expectedVersion: number): Promise<TokenRecord | null> {
    const rows = await translateConflicts(() =>
      UPDATE_TOKEN.rows<TokenRow>(this.manager, [row.id, expectedVersion, ...contentValues(row)]),
    );
    return rows.length === 1 ? toRecord(rows[0]) : null;
  }
}

/**
 * Tokens in `token_vault.tokens`. The statements of saving and reading a token are hand-written:
 * each is one round trip, and none goes through TypeORM's query building (a measurable share of
 * the vault's CPU per request). A read is one SELECT; a new token one INSERT ... RETURNING with
 * no transaction around it; an update START TRANSACTION, the row lock, one UPDATE ... RETURNING
 * and COMMIT. Every statement is a named prepared statement, parsed and planned once per
 * connection instead of on every execution. Key rotation's statements are hand-written too, so
 * no statement here depends on TokenEntity, which remains the schema's declaration for the
 * drift check.
 */
@Injectable()
export class TokenRepository {
  constructor(@InjectDataSource('token_vault') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): TokenRepository {
    return new TokenRepository(dataSource);
  }

  findByToken(repositoryId: string, token: string): Promise<TokenRecord | null> {
    return selectOne(this.dataSource.manager, FIND_BY_TOKEN, [repositoryId, token]);
  }

  findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null> {
    return findByFingerprint(this.dataSource.manager, repositoryId, fingerprint);
  }

  /**
   * A new token in one statement, in autocommit: the INSERT is atomic and committed when it
   * returns, so opening and committing a transaction around it would only add two round trips.
   */
  async insert(row: TokenWrite, beforeWrite?: () => void): Promise<TokenRecord> {
    const rows = await this.autocommit(beforeWrite, (manager) =>
      translateConflicts(() => INSERT_TOKEN.rows<InsertedRow>(manager, [row.id, row.createdBy, ...contentValues(row)])),
    );
    const inserted = rows[0];
    return {
      ...row,
      id: inserted.id,
      providerAAgreement: inserted.provider_a_agreement,
      createdAt: inserted.created_at,
      updatedAt: inserted.updated_at,
      lastUsedAt: inserted.last_used_at,
      version: inserted.version,
    };
  }

  /**
   * READ COMMITTED plus row locks: writers of one token queue on its row, others do not wait.
   * Run once more if a statement's plan had gone stale under a migration (inTransaction).
   */
  inTransaction<T>(work: (tx: TokenTransaction) => Promise<T>): Promise<T> {
    return inStatementsTransaction(this.dataSource, (manager) => work(new TokenTransaction(manager)));
  }

  async deleteByToken(repositoryId: string, token: string, beforeWrite?: () => void): Promise<boolean> {
    return (await this.autocommit(beforeWrite, (manager) => DELETE_BY_TOKEN.rowCount(manager, [repositoryId, token]))) > 0;
  }

  /**
   * A one-statement write in autocommit: on a connection of its own, or, when it may be refused
   * before it is sent (`beforeWrite`), on one held from that check to the statement.
   */
  private autocommit<T>(beforeWrite: (() => void) | undefined, write: (manager: EntityManager) => Promise<T>): Promise<T> {
    return beforeWrite ? onConnection(this.dataSource, beforeWrite, write) : write(this.dataSource.manager);
  }

  async markUsed(id: string): Promise<void> {
    await MARK_USED.rowCount(this.dataSource.manager, [id]);
  }

  anyToken(): Promise<TokenRecord | null> {
    return selectOne(this.dataSource.manager, ANY_TOKEN, []);
  }

  async countNotUnderKey(dataKeyId: number): Promise<number> {
    const [{ count }] = await COUNT_NOT_UNDER_KEY.rows<{ count: number }>(this.dataSource.manager, [dataKeyId]);
    return count;
  }

  /**
   * One batch of key rotation, in its own short transaction: locks up to `limit` rows not yet
   * sealed under `dataKeyId` (skipping rows a save holds right now, so serving never waits on
   * rotation), lets `reseal` compute their new sealed columns, and writes them. Returns how
   * many rows were re-sealed: 0 when none are left, or when all that are left are locked.
   */
  reencryptBatch(
    dataKeyId: number,
    limit: number,
    reseal: (row: TokenRecord) => Promise<SealedColumns>,
  ): Promise<number> {
    return inStatementsTransaction(this.dataSource, async (manager) => {
      const rows = await LOCK_ROTATION_BATCH.rows<TokenRow>(manager, [dataKeyId, limit]);
      for (const row of rows.map(toRecord)) {
        const sealed = await reseal(row);
        await RESEAL_TOKEN.rowCount(manager, [
          row.id,
          sealed.dataKeyId,
          sealed.accountIdentifier,
          sealed.providerADetails,
          sealed.schemeToken,
        ]);
      }
      return rows.length;
    });
  }
}

async function selectOne(manager: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<TokenRecord | null> {
  const rows = await statement.rows<TokenRow>(manager, values);
  return rows.length > 0 ? toRecord(rows[0]) : null;
}

/** The token holding this account, among rows under a uniqueness rule (tokens_unique_account_idx). */
function findByFingerprint(manager: EntityManager, repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null> {
  return selectOne(manager, FIND_BY_FINGERPRINT, [repositoryId, fingerprint]);
}

/** $3..$22 of INSERT_TOKEN and UPDATE_TOKEN, in CONTENT_COLUMNS order. */
function contentValues(row: TokenWrite): unknown[] {
  return [
    row.repositoryId,
    row.token,
    row.status,
    row.sourceType,
    row.verificationStrategy,
    row.dataKeyId,
    row.accountIdentifier,
    row.fingerprint,
    row.uniqueAccount,
    row.cardNumberMasked,
    row.cardExpiry,
    row.cardBrand,
    row.cardScheme,
    row.cardFundingMethod,
    // SQL NULL, not the JSON null: tokens_provider_a_check tells the two apart.
    row.providerAAgreement === null ? null : JSON.stringify(row.providerAAgreement),
    row.providerADetails,
    row.schemeTokenOutcome,
    row.schemeTokenReference,
    row.schemeToken,
    row.updatedBy,
  ];
}

function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    repositoryId: row.repository_id,
    token: row.token,
    status: row.status,
    sourceType: row.source_type,
    verificationStrategy: row.verification_strategy,
    dataKeyId: row.data_key_id,
    accountIdentifier: row.account_identifier,
    fingerprint: row.fingerprint,
    uniqueAccount: row.unique_account,
    cardNumberMasked: row.card_number_masked,
    cardExpiry: row.card_expiry,
    cardBrand: row.card_brand,
    cardScheme: row.card_scheme,
    cardFundingMethod: row.card_funding_method,
    providerAAgreement: row.provider_a_agreement,
    providerADetails: row.provider_a_details,
    schemeTokenOutcome: row.scheme_token_outcome,
    schemeTokenReference: row.scheme_token_reference,
    schemeToken: row.scheme_token,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
    version: row.version,
  };
}

/** node-pg's unique violations on the two uniqueness rules, as TokenConflictError. */
async function translateConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isPgError(err, '23505', 'tokens_repository_token_key')) {
      throw new TokenConflictError('TOKEN');
    }
    if (isPgError(err, '23505', 'tokens_unique_account_idx')) {
      throw new TokenConflictError('ACCOUNT');
    }
    throw err;
  }
}
