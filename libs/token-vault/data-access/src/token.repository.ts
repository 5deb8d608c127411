import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, Not } from 'typeorm';
import { isPgError } from './pg-errors';
import { TokenEntity } from './token.entity';

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

/** What a save does inside its database transaction, on rows it has locked. */
export class TokenTransaction {
  constructor(private readonly manager: EntityManager) {}

  lockByToken(repositoryId: string, token: string): Promise<TokenRecord | null> {
    return this.manager.getRepository(TokenEntity).findOne({
      where: { repositoryId, token },
      lock: { mode: 'pessimistic_write' },
    });
  }

  findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null> {
    return this.manager.getRepository(TokenEntity).findOneBy({ repositoryId, fingerprint, uniqueAccount: true });
  }

  async insert(row: TokenWrite): Promise<TokenRecord> {
    await translateConflicts(() => this.manager.getRepository(TokenEntity).insert(row));
    return (await this.manager.getRepository(TokenEntity).findOneByOrFail({ id: row.id })) as TokenRecord;
  }

  /** Writes the row if it is still at `expectedVersion`; the caller holds its lock. */
  async update(row: TokenWrite, expectedVersion: number): Promise<TokenRecord | null> {
    const { id, createdBy: _createdBy, ...changes } = row;
    const result = await translateConflicts(() =>
      this.manager
        .getRepository(TokenEntity)
        .update({ id, version: expectedVersion }, { ...changes, version: () => 'version + 1' }),
    );
    if ((result.affected ?? 0) === 0) {
      return null;
    }
    return (await this.manager.getRepository(TokenEntity).findOneByOrFail({ id })) as TokenRecord;
  }
}

/** Tokens in `token_vault.tokens`. */
@Injectable()
export class TokenRepository {
  constructor(@InjectDataSource('token_vault') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): TokenRepository {
    return new TokenRepository(dataSource);
  }

  findByToken(repositoryId: string, token: string): Promise<TokenRecord | null> {
    return this.dataSource.getRepository(TokenEntity).findOneBy({ repositoryId, token });
  }

  findByFingerprint(repositoryId: string, fingerprint: Buffer): Promise<TokenRecord | null> {
    return this.dataSource.getRepository(TokenEntity).findOneBy({ repositoryId, fingerprint, uniqueAccount: true });
  }

  /** READ COMMITTED plus row locks: writers of one token queue on its row, others do not wait. */
  inTransaction<T>(work: (tx: TokenTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new TokenTransaction(manager)));
  }

  async deleteByToken(repositoryId: string, token: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(TokenEntity).delete({ repositoryId, token });
    return (result.affected ?? 0) > 0;
  }

  async markUsed(id: string): Promise<void> {
    // Neither version nor updated_at moves: the token's content did not change.
    await this.dataSource
      .createQueryBuilder()
      .update(TokenEntity)
      .set({ lastUsedAt: () => 'now()', updatedAt: () => 'updated_at' })
      .where('id = :id', { id })
      .execute();
  }

  countNotUnderKey(dataKeyId: number): Promise<number> {
    return this.dataSource.getRepository(TokenEntity).countBy({ dataKeyId: Not(dataKeyId) });
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
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager
        .getRepository(TokenEntity)
        .createQueryBuilder('t')
        .where('t.data_key_id <> :dataKeyId', { dataKeyId })
        .orderBy('t.id')
        .limit(limit)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      for (const row of rows) {
        const sealed = await reseal(row);
        // Not a content change: neither version nor updated_at moves.
        await manager
          .createQueryBuilder()
          .update(TokenEntity)
          .set({ ...sealed, updatedAt: () => 'updated_at' })
          .where('id = :id', { id: row.id })
          .execute();
      }
      return rows.length;
    });
  }
}

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
