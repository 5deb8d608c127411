import { SealedColumns, TokenConflictError, TokenRecord, TokenWrite } from '@gateway/token-vault/data-access';
import type { TokenStore, TokenStoreTransaction } from '../token-store';

/**
 * The tokens table in memory for unit tests: the same uniqueness rules (token per repository,
 * account per repository where unique_account) and versioning as the real table. Transactions
 * apply writes immediately (no rollback); the use cases write once per transaction.
 */
export class InMemoryTokenStore implements TokenStore {
  readonly rows = new Map<string, TokenRecord>();
  /** Lets a test change the world between a use case's read and its write. */
  beforeWrite?: () => void | Promise<void>;
  /** How many transactions the use cases opened. */
  transactions = 0;
  private clock = Date.parse('2030-01-01T00:00:00.000Z');

  async findByToken(repositoryId: string, token: string): Promise<TokenRecord | null> {
    return copy([...this.rows.values()].find((r) => r.repositoryId === repositoryId && r.token === token));
  }

  async findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null> {
    return copy([...this.rows.values()].find((r) => r.repositoryId === repositoryId && r.uniqueAccount && r.fingerprint.equals(fingerprint)));
  }

  async insert(row: TokenWrite, connected?: () => void): Promise<TokenRecord> {
    await this.beforeWrite?.();
    connected?.();
    this.checkConflicts(row);
    const now = this.tick();
    this.rows.set(row.id, { ...row, createdAt: now, updatedAt: now, lastUsedAt: null, version: 1 });
    return copy(this.rows.get(row.id))!;
  }

  async inTransaction<T>(work: (tx: TokenStoreTransaction) => Promise<T>): Promise<T> {
    this.transactions += 1;
    await this.beforeWrite?.();
    const tx: TokenStoreTransaction = {
      lockByToken: (repositoryId, token) => this.findByToken(repositoryId, token),
      findByFingerprint: (repositoryId, fingerprint) => this.findByFingerprint(repositoryId, fingerprint),
      update: async (row, expectedVersion) => {
        const current = this.rows.get(row.id);
        if (!current || current.version !== expectedVersion) {
          return null;
        }
        this.checkConflicts(row);
        this.rows.set(row.id, { ...current, ...row, createdBy: current.createdBy, updatedAt: this.tick(), version: current.version + 1 });
        return copy(this.rows.get(row.id))!;
      },
    };
    return work(tx);
  }

  async deleteByToken(repositoryId: string, token: string, connected?: () => void): Promise<boolean> {
    await this.beforeWrite?.();
    connected?.();
    const row = [...this.rows.values()].find((r) => r.repositoryId === repositoryId && r.token === token);
    return row ? this.rows.delete(row.id) : false;
  }

  async markUsed(id: string): Promise<void> {
    const row = this.rows.get(id);
    if (row) {
      row.lastUsedAt = this.tick();
    }
  }

  async anyToken(): Promise<TokenRecord | null> {
    return [...this.rows.values()][0] ?? null;
  }

  async countNotUnderKey(dataKeyId: number): Promise<number> {
    return [...this.rows.values()].filter((r) => r.dataKeyId !== dataKeyId).length;
  }

  async reencryptBatch(dataKeyId: number, limit: number, reseal: (row: TokenRecord) => Promise<SealedColumns>): Promise<number> {
    const batch = [...this.rows.values()].filter((r) => r.dataKeyId !== dataKeyId).slice(0, limit);
    for (const row of batch) {
      Object.assign(row, await reseal(copy(row)!));
    }
    return batch.length;
  }

  private checkConflicts(row: TokenWrite): void {
    for (const other of this.rows.values()) {
      if (other.id === row.id || other.repositoryId !== row.repositoryId) {
        continue;
      }
      if (other.token === row.token) {
        throw new TokenConflictError('TOKEN');
      }
      if (row.uniqueAccount && other.uniqueAccount && other.fingerprint.equals(row.fingerprint)) {
        throw new TokenConflictError('ACCOUNT');
      }
    }
  }

  private tick(): Date {
    this.clock += 1_000;
    return new Date(this.clock);
  }
}

function copy(row: TokenRecord | undefined): TokenRecord | null {
  return row ? { ...row } : null;
}
