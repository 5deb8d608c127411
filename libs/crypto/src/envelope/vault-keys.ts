import { randomBytes } from 'node:crypto';
import { Secret } from '../secret';
import { AES_KEY_BYTES, DecryptionError, gcmOpen, gcmSeal } from './aes-gcm';
import { MasterKeyRing, WrappedDataKey } from './master-key-ring';

export const DATA_KEY_STATES = ['ACTIVE', 'DECRYPT_ONLY'] as const;
/** ACTIVE: encrypts new values (exactly one). DECRYPT_ONLY: retired, still decrypts what it sealed. */
export type DataKeyState = (typeof DATA_KEY_STATES)[number];

export interface StoredDataKey extends WrappedDataKey {
  id: number;
  state: DataKeyState;
  retiredAt: Date | null;
}

/** Where wrapped data keys live (the vault's `data_keys` table). */
export interface DataKeyStore {
  list(): Promise<StoredDataKey[]>;
  /**
   * In one transaction: picks the next key id, wraps the new key bound to it, retires the
   * ACTIVE key (DECRYPT_ONLY) and stores the new one as ACTIVE. Fails if another process
   * added an ACTIVE key at the same moment.
   */
  addActive(wrap: (id: number) => WrappedDataKey): Promise<StoredDataKey>;
  /** Replaces a key's wrapping if it is still wrapped under `fromMasterKeyId`. */
  rewrap(id: number, fromMasterKeyId: string, to: WrappedDataKey): Promise<boolean>;
  /** Deletes a DECRYPT_ONLY key unless some ciphertext still uses it. */
  destroy(id: number): Promise<'DESTROYED' | 'IN_USE' | 'ABSENT'>;
}

const FORMAT = 1;
const HEADER_BYTES = 5;

interface LoadedKey {
  key: Secret<Buffer>;
  state: DataKeyState;
  retiredAt: Date | null;
  /** The stored wrapping the key was unwrapped from, to notice when the store holds another. */
  wrapped: WrappedDataKey;
  /** Its sealer, once it has been ACTIVE in this process. */
  sealer?: Sealer;
}

/** Seals values under one data key: every column of a record is sealed under the same key. */
export interface Sealer {
  readonly keyId: number;
  seal(plaintext: Buffer | string, context: string): Buffer;
}

export interface VaultKeysOptions {
  /** How often each process re-reads the data keys, so a rotation reaches every replica. */
  refreshIntervalMs: number;
}

/**
 * Envelope encryption for the vault: values are sealed with AES-256-GCM under data keys; data
 * keys are random, stored only wrapped by a master key, and unwrapped into memory at start.
 * Every ciphertext starts with a format byte and its data key's id, so any known key decrypts
 * while only the ACTIVE one encrypts; that is what lets keys rotate without downtime. A
 * ciphertext naming a key this process has not seen yet (another replica rotated) triggers a
 * reload from the store before it is treated as an error.
 */
export class VaultKeys {
  private keys = new Map<number, LoadedKey>();
  private activeId: number | null = null;
  private reloading: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: DataKeyStore,
    private readonly masterKeys: MasterKeyRing,
    private readonly options: VaultKeysOptions,
  ) {}

  /** Loads the keys (creating the first one on a fresh vault) and refreshes them periodically. */
  async start(): Promise<void> {
    await this.reload();
    if (this.activeId === null) {
      try {
        await this.store.addActive((id) => this.masterKeys.wrap(id, newDataKey()));
      } catch (err) {
        // Another replica created the first key at the same moment: use that one.
        await this.reload();
        if (this.activeId === null) {
          throw err;
        }
      }
      await this.reload();
    }
    if (this.options.refreshIntervalMs > 0 && !this.timer) {
      this.timer = setInterval(() => void this.reload().catch(() => undefined), this.options.refreshIntervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  get ready(): boolean {
    return this.activeId !== null;
  }

  get activeKeyId(): number {
    if (this.activeId === null) {
      throw new Error('vault keys are not loaded');
    }
    return this.activeId;
  }

  /**
   * A sealer bound to the ACTIVE key as of now. Built once per loaded key (it holds nothing but
   * the key and its header, which gcmSeal only reads), not on every seal.
   */
  sealer(): Sealer {
    const keyId = this.activeKeyId;
    const loaded = this.keys.get(keyId)!;
    loaded.sealer ??= sealerFor(keyId, loaded.key);
    return loaded.sealer;
  }

  /** Decrypts with whichever known key sealed the value; the context must be the sealing one. */
  async open(sealed: Buffer, context: string): Promise<Buffer> {
    const keyId = keyIdOf(sealed);
    if (!this.keys.has(keyId)) {
      await this.reload();
    }
    const loaded = this.keys.get(keyId);
    if (!loaded) {
      throw new DecryptionError('UNKNOWN_KEY', `data key ${keyId} is unknown`);
    }
    return gcmOpen(loaded.key.reveal(), HEADER_BYTES, sealed, context);
  }

  /** Makes a new data key ACTIVE; the previous one is kept to decrypt until re-encryption is done. */
  async rotateDataKey(): Promise<number> {
    const added = await this.store.addActive((id) => this.masterKeys.wrap(id, newDataKey()));
    await this.reload();
    return added.id;
  }

  /** Re-wraps every data key not wrapped under the current master key; returns their ids. */
  async rewrapDataKeys(): Promise<number[]> {
    const rewrapped: number[] = [];
    for (const stored of await this.store.list()) {
      if (stored.masterKeyId === this.masterKeys.currentId) {
        continue;
      }
      const key = this.masterKeys.unwrap(stored.id, stored);
      if (await this.store.rewrap(stored.id, stored.masterKeyId, this.masterKeys.wrap(stored.id, key))) {
        rewrapped.push(stored.id);
      }
    }
    return rewrapped;
  }

  /**
   * Destroys retired keys no ciphertext uses any more (the store refuses a key still in use).
   * Only keys retired at least `minRetiredMs` ago: by then every replica has refreshed and
   * stopped sealing with them.
   */
  async destroyRetiredKeys(minRetiredMs: number, now = new Date()): Promise<{ destroyed: number[]; inUse: number[] }> {
    const destroyed: number[] = [];
    const inUse: number[] = [];
    for (const stored of await this.store.list()) {
      if (stored.state !== 'DECRYPT_ONLY' || !stored.retiredAt || now.getTime() - stored.retiredAt.getTime() < minRetiredMs) {
        continue;
      }
      const outcome = await this.store.destroy(stored.id);
      if (outcome === 'DESTROYED') {
        destroyed.push(stored.id);
      } else if (outcome === 'IN_USE') {
        inUse.push(stored.id);
      }
    }
    await this.reload();
    return { destroyed, inUse };
  }

  /** Ids of the keys this process knows, with their state (no key material). */
  describe(): { id: number; state: DataKeyState }[] {
    return [...this.keys.entries()].map(([id, loaded]) => ({ id, state: loaded.state }));
  }

  /** Re-reads the store; concurrent callers share one read. */
  reload(): Promise<void> {
    this.reloading ??= this.load().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async load(): Promise<void> {
    const stored = await this.store.list();
    const keys = new Map<number, LoadedKey>();
    let activeId: number | null = null;
    for (const entry of stored) {
      const known = this.keys.get(entry.id);
      const reuse = known && this.mayKeep(known, entry);
      const key = reuse ? known.key : this.masterKeys.unwrap(entry.id, entry);
      const wrapped = reuse ? known.wrapped : { masterKeyId: entry.masterKeyId, wrappedKey: Buffer.from(entry.wrappedKey) };
      keys.set(entry.id, { key, state: entry.state, retiredAt: entry.retiredAt, wrapped });
      if (entry.state === 'ACTIVE') {
        activeId = entry.id;
      }
    }
    this.keys = keys;
    this.activeId = activeId;
  }

  /**
   * Whether a key this process holds still is the stored key of that id. Unwrapping again is
   * needed only when the stored wrapping changed: a re-wrap (the same key under another master
   * key), or another key under a known id. Ids come from max(id) + 1, so a database restored from
   * a backup taken before a rotation gives the next rotation's key an id this process may still
   * hold a lost key under; sealing with that one would write values no other process can open
   * (docs/decisions/backup-and-restore.md). A re-wrap under a master key this process was not
   * given yet (its rollout unfinished) keeps the key it holds, as before, rather than fail.
   */
  private mayKeep(known: LoadedKey, entry: StoredDataKey): boolean {
    if (sameWrapping(known.wrapped, entry)) {
      return true;
    }
    return !this.masterKeys.has(entry.masterKeyId);
  }
}

function sameWrapping(a: WrappedDataKey, b: WrappedDataKey): boolean {
  return a.masterKeyId === b.masterKeyId && a.wrappedKey.equals(b.wrappedKey);
}

function sealerFor(keyId: number, key: Secret<Buffer>): Sealer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(FORMAT, 0);
  header.writeUInt32BE(keyId, 1);
  return {
    keyId,
    seal: (plaintext, context) =>
      gcmSeal(key.reveal(), header, typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext, context),
  };
}

/** The data key id a ciphertext was sealed under. */
export function keyIdOf(sealed: Buffer): number {
  if (sealed.length < HEADER_BYTES || sealed.readUInt8(0) !== FORMAT) {
    throw new DecryptionError('MALFORMED', 'unknown ciphertext format');
  }
  return sealed.readUInt32BE(1);
}

function newDataKey(): Secret<Buffer> {
  return new Secret(randomBytes(AES_KEY_BYTES));
}
