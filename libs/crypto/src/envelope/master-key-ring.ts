import { timingSafeEqual } from 'node:crypto';
import { Secret } from '../secret';
import { AES_KEY_BYTES, gcmOpen, gcmSeal } from './aes-gcm';
import { parseKeyRing } from './key-ring-text';

const WRAP_FORMAT = 1;

export interface WrappedDataKey {
  masterKeyId: string;
  wrappedKey: Buffer;
}

/**
 * The key-encryption keys: they wrap the data keys and never encrypt data themselves. They come
 * from configuration or a mounted secret file as `id:base64key` entries separated by commas or
 * newlines; the first entry is current (it wraps new and re-wrapped data keys), the others only
 * unwrap. Rotating the master key is therefore: put the new key first and keep the old one
 * after it, run `rotate-keys --rewrap-only`, then drop the old key from the configuration.
 */
export class MasterKeyRing {
  private readonly keys: ReadonlyMap<string, Secret<Buffer>>;

  private constructor(
    private readonly current: string,
    keys: Map<string, Secret<Buffer>>,
  ) {
    this.keys = keys;
  }

  static parse(text: string, what = 'VAULT_MASTER_KEYS'): MasterKeyRing {
    const ring = parseKeyRing(text, what, 'master key');
    return new MasterKeyRing(ring.currentId, ring.keys);
  }

  get currentId(): string {
    return this.current;
  }

  has(masterKeyId: string): boolean {
    return this.keys.has(masterKeyId);
  }

  /**
   * The id of a master key whose material is `key`, if any: a key meant for another purpose
   * (the fingerprint key) must not also be a master key. Answers an id, never material.
   */
  idOfKey(key: Buffer): string | undefined {
    for (const [id, material] of this.keys) {
      const candidate = material.reveal();
      if (candidate.length === key.length && timingSafeEqual(candidate, key)) {
        return id;
      }
    }
    return undefined;
  }

  /** Wraps a data key under the current master key, bound to the data key's id. */
  wrap(dataKeyId: number, dataKey: Secret<Buffer>): WrappedDataKey {
    const material = dataKey.reveal();
    if (material.length !== AES_KEY_BYTES) {
      throw new Error(`a data key is ${AES_KEY_BYTES} bytes`);
    }
    const header = wrapHeader(this.current);
    const wrappedKey = gcmSeal(this.keys.get(this.current)!.reveal(), header, material, wrapContext(dataKeyId));
    return { masterKeyId: this.current, wrappedKey };
  }

  unwrap(dataKeyId: number, wrapped: WrappedDataKey): Secret<Buffer> {
    const masterKey = this.keys.get(wrapped.masterKeyId);
    if (!masterKey) {
      throw new Error(
        `data key ${dataKeyId} is wrapped under master key ${wrapped.masterKeyId}, which is not configured`,
      );
    }
    const header = wrapHeader(wrapped.masterKeyId);
    if (!wrapped.wrappedKey.subarray(0, header.length).equals(header)) {
      throw new Error(`data key ${dataKeyId} is not wrapped in format ${WRAP_FORMAT} under ${wrapped.masterKeyId}`);
    }
    return new Secret(gcmOpen(masterKey.reveal(), header.length, wrapped.wrappedKey, wrapContext(dataKeyId)));
  }
}

function wrapHeader(masterKeyId: string): Buffer {
  const id = Buffer.from(masterKeyId, 'ascii');
  return Buffer.concat([Buffer.from([WRAP_FORMAT, id.length]), id]);
}

function wrapContext(dataKeyId: number): string {
  return `data-key:${dataKeyId}`;
}
