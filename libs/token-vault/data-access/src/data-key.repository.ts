import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DataKeyStore, StoredDataKey, WrappedDataKey } from '@gateway/crypto';
import { DataKeyEntity } from './data-key.entity';
import { isPgError } from './pg-errors';

/** The vault's data keys in `token_vault.data_keys` (see VaultKeys for the protocol). */
@Injectable()
export class DataKeyRepository implements DataKeyStore {
  constructor(@InjectDataSource('token_vault') private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): DataKeyRepository {
    return new DataKeyRepository(dataSource);
  }

  async list(): Promise<StoredDataKey[]> {
    const rows = await this.dataSource.getRepository(DataKeyEntity).find({ order: { id: 'ASC' } });
    return rows.map(toStored);
  }

  addActive(wrap: (id: number) => WrappedDataKey): Promise<StoredDataKey> {
    return this.dataSource.transaction(async (manager) => {
      // Rotations are rare and short: a table lock makes "next id" and "one ACTIVE" trivially safe.
      await manager.query('LOCK TABLE token_vault.data_keys IN SHARE ROW EXCLUSIVE MODE');
      const [{ next }] = await manager.query('SELECT coalesce(max(id), 0) + 1 AS next FROM token_vault.data_keys');
      const id = Number(next);
      const wrapped = wrap(id);
      await manager.query(
        `UPDATE token_vault.data_keys SET state = 'DECRYPT_ONLY', retired_at = now() WHERE state = 'ACTIVE'`,
      );
      const row = manager.getRepository(DataKeyEntity).create({
        id,
        state: 'ACTIVE',
        masterKeyId: wrapped.masterKeyId,
        wrappedKey: wrapped.wrappedKey,
        retiredAt: null,
      });
      return toStored(await manager.getRepository(DataKeyEntity).save(row));
    });
  }

  async rewrap(id: number, fromMasterKeyId: string, to: WrappedDataKey): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(DataKeyEntity)
      .update({ id, masterKeyId: fromMasterKeyId }, { masterKeyId: to.masterKeyId, wrappedKey: to.wrappedKey });
    return (result.affected ?? 0) > 0;
  }

  async destroy(id: number): Promise<'DESTROYED' | 'IN_USE' | 'ABSENT'> {
    try {
      const result = await this.dataSource.getRepository(DataKeyEntity).delete({ id, state: 'DECRYPT_ONLY' });
      return (result.affected ?? 0) > 0 ? 'DESTROYED' : 'ABSENT';
    } catch (err) {
      // tokens_data_key_fk: some token is still sealed under this key.
      if (isPgError(err, '23503')) {
        return 'IN_USE';
      }
      throw err;
    }
  }
}

function toStored(row: DataKeyEntity): StoredDataKey {
  return {
    id: row.id,
    state: row.state,
    masterKeyId: row.masterKeyId,
    wrappedKey: row.wrappedKey,
    retiredAt: row.retiredAt,
  };
}
