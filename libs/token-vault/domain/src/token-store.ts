import type { SealedColumns, TokenRecord, TokenWrite } from '@gateway/token-vault/data-access';

/** The update of a saved token, on its row locked in one database transaction. */
export interface TokenStoreTransaction {
  lockByToken(repositoryId: string, token: string): Promise<TokenRecord | null>;
  /** As TokenStore.findByFingerprint, on the transaction's connection. */
  findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null>;
  /** Null when the row is no longer at `expectedVersion`. */
  update(row: TokenWrite, expectedVersion: number): Promise<TokenRecord | null>;
}

/**
 * The vault's token persistence as the use cases need it (TokenRepository in data-access;
 * an in-memory twin for unit tests). Writes that break a uniqueness rule throw
 * TokenConflictError.
 */
export interface TokenStore {
  findByToken(repositoryId: string, token: string): Promise<TokenRecord | null>;
  /** The token holding this account, among rows under a uniqueness rule. */
  findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null>;
  /**
   * A new token, as one statement of its own: no transaction to open or commit, since a single
   * statement is atomic and committed when it returns. Returns the row as stored. `beforeWrite`
   * runs once the statement's connection is held, before it is sent, and may refuse by throwing:
   * then nothing is written (an operation's deadline, checked after the pool's queue).
   */
  insert(row: TokenWrite, beforeWrite?: () => void): Promise<TokenRecord>;
  inTransaction<T>(work: (tx: TokenStoreTransaction) => Promise<T>): Promise<T>;
  /** `beforeWrite` as for insert. */
  deleteByToken(repositoryId: string, token: string, beforeWrite?: () => void): Promise<boolean>;
  /** `usage.lastUsed`: the token's card was used in an acquirer call. Not a content change. */
  markUsed(id: string): Promise<void>;
  /** Any one stored token (null on an empty vault). */
  anyToken(): Promise<TokenRecord | null>;
  countNotUnderKey(dataKeyId: number): Promise<number>;
  reencryptBatch(dataKeyId: number, limit: number, reseal: (row: TokenRecord) => Promise<SealedColumns>): Promise<number>;
}

export const TOKEN_STORE = Symbol('TOKEN_STORE');
