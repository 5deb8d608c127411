import { WrappedDataKey } from './master-key-ring';
import { DataKeyStore, StoredDataKey } from './vault-keys';

/**
 * The vault's data key table in memory, for unit tests of code that encrypts (real keys and
 * real AES-GCM, only the storage differs) and as the executable description of what a store
 * must do. `inUse` plays the database's foreign key. Not for production: keys would not survive
 * a restart.
 */
export class InMemoryDataKeyStore implements DataKeyStore {
  readonly rows: StoredDataKey[] = [];
  inUse: (id: number) => boolean = () => false;

  async list(): Promise<StoredDataKey[]> {
    return this.rows.map((row) => ({ ...row, wrappedKey: Buffer.from(row.wrappedKey) }));
  }

  async addActive(wrap: (id: number) => WrappedDataKey): Promise<StoredDataKey> {
    const id = Math.max(0, ...this.rows.map((r) => r.id)) + 1;
    const wrapped = wrap(id);
    for (const row of this.rows) {
      if (row.state === 'ACTIVE') {
        row.state = 'DECRYPT_ONLY';
        row.retiredAt = new Date();
      }
    }
    const row: StoredDataKey = { id, state: 'ACTIVE', retiredAt: null, ...wrapped };
    this.rows.push(row);
    return { ...row };
  }

  async rewrap(id: number, fromMasterKeyId: string, to: WrappedDataKey): Promise<boolean> {
    const row = this.rows.find((r) => r.id === id && r.masterKeyId === fromMasterKeyId);
    if (!row) {
      return false;
    }
    Object.assign(row, to);
    return true;
  }

  async destroy(id: number): Promise<'DESTROYED' | 'IN_USE' | 'ABSENT'> {
    const index = this.rows.findIndex((r) => r.id === id && r.state === 'DECRYPT_ONLY');
    if (index < 0) {
      return 'ABSENT';
    }
    if (this.inUse(id)) {
      return 'IN_USE';
    }
    this.rows.splice(index, 1);
    return 'DESTROYED';
  }
}
