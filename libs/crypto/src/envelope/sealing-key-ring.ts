import { Secret } from '../secret';
import { DecryptionError, gcmOpen, gcmSeal } from './aes-gcm';
import { parseKeyRing } from './key-ring-text';

const SEAL_FORMAT = 1;
const SEALED_TEXT = /^[A-Za-z0-9_-]+$/;

/**
 * Small secrets sealed directly under a ring of configured AES-256-GCM keys, without data keys:
 * for values so few and small that envelope encryption buys nothing (a merchant's webhook
 * notification secret). The sealed text is base64url of `format | key id length | key id | iv |
 * ciphertext | tag`; the key id and a caller-given context (what the value is and whose) are
 * authenticated, so a sealed value cannot be moved to another merchant or purpose.
 *
 * Key rotation: put the new key first and keep the old one after it; values sealed under the old
 * key still open, new ones are sealed under the new key. `keyIdOf` tells which values to re-seal.
 */
export class SealingKeyRing {
  private constructor(
    private readonly current: string,
    private readonly keys: ReadonlyMap<string, Secret<Buffer>>,
  ) {}

  static parse(text: string, what: string): SealingKeyRing {
    const ring = parseKeyRing(text, what);
    return new SealingKeyRing(ring.currentId, ring.keys);
  }

  get currentId(): string {
    return this.current;
  }

  seal(plaintext: Secret<string>, context: string): string {
    const header = sealHeader(this.current);
    const sealed = gcmSeal(this.keys.get(this.current)!.reveal(), header, Buffer.from(plaintext.reveal(), 'utf8'), context);
    return sealed.toString('base64url');
  }

  open(sealedText: string, context: string): Secret<string> {
    const keyId = SealingKeyRing.keyIdOf(sealedText);
    const key = this.keys.get(keyId);
    if (!key) {
      throw new DecryptionError('UNKNOWN_KEY', `sealed under key ${keyId}, which is not configured`);
    }
    const sealed = Buffer.from(sealedText, 'base64url');
    return new Secret(gcmOpen(key.reveal(), sealHeader(keyId).length, sealed, context).toString('utf8'));
  }

  /** The id of the key a sealed value was sealed under. */
  static keyIdOf(sealedText: string): string {
    if (!SEALED_TEXT.test(sealedText)) {
      throw new DecryptionError('MALFORMED', 'not base64url');
    }
    const sealed = Buffer.from(sealedText, 'base64url');
    if (sealed.length < 3 || sealed[0] !== SEAL_FORMAT || sealed.length < 2 + sealed[1]) {
      throw new DecryptionError('MALFORMED', `not a sealed value of format ${SEAL_FORMAT}`);
    }
    return sealed.subarray(2, 2 + sealed[1]).toString('ascii');
  }
}

function sealHeader(keyId: string): Buffer {
  const id = Buffer.from(keyId, 'ascii');
  return Buffer.concat([Buffer.from([SEAL_FORMAT, id.length]), id]);
}
