import { createHmac } from 'node:crypto';
import { Secret } from './secret';
import { decodeKeyMaterial } from './envelope';

/**
 * Keyed fingerprints of account identifiers for uniqueness rules ("is this card already stored
 * in the repository?"): HMAC-SHA256 under a fingerprint key that is separate from the
 * encryption keys. A plain hash of a card number can be reversed by enumerating the few
 * billion numbers behind a BIN; without the key, a database dump cannot test guesses.
 * Fingerprints are scoped (the token repository) so one card does not link across repositories.
 */
export class Fingerprinter {
  private readonly key: Secret<Buffer>;

  constructor(key: Secret<Buffer>) {
    if (key.reveal().length < 32) {
      throw new Error('a fingerprint key is at least 32 bytes');
    }
    this.key = key;
  }

  static fromConfig(text: string, what = 'VAULT_FINGERPRINT_KEY'): Fingerprinter {
    return new Fingerprinter(new Secret(decodeKeyMaterial(text, what)));
  }

  /** 32 bytes; `kind` separates identifier types (a card number and an agreement id never collide). */
  fingerprint(scope: string, kind: string, identifier: string): Buffer {
    return createHmac('sha256', this.key.reveal())
      .update(`fp1\u0000${scope}\u0000${kind}\u0000`, 'utf8')
      .update(identifier, 'utf8')
      .digest();
  }
}
