import { createCipheriv } from 'node:crypto';
import { DecryptionError, gcmOpen, gcmSeal } from './aes-gcm';

/** A fixed key (bytes 3, 10, 17, ...), so a ciphertext sealed by earlier code can be kept below. */
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 7 + 3) & 0xff));
const HEADER = Buffer.from([1, 0, 0, 0, 7]);
// TEST_CARD of @gateway/testing, written out: testing imports crypto (its vault keys), and an
// import of it here is the circular dependency the module boundaries refuse (crypto -> testing -> crypto).
const CARD = '5123450000000008';
const CONTEXT = 'token_vault.tokens:00000000-0000-4000-8000-000000000001:account_identifier';
/** Sealed by gcmSeal as of 97a7e54 (an IV from randomBytes on every seal) with KEY, HEADER, CARD and CONTEXT. */
const SEALED_BEFORE_IV_POOL = 'AQAAAAfQGKb9CP+qsmpWP9Ah90euf+h+1U41eUkdLxLEPxZ4ketnVV29KUW1YLknEQ==';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM straight from node:crypto with the IV the blob carries: what gcmSeal must have written. */
function referenceSeal(key: Buffer, header: Buffer, iv: Buffer, plaintext: Buffer, context: string): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.concat([header, Buffer.from(context, 'utf8')]));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, iv, body, cipher.getAuthTag()]);
}

const ivOf = (sealed: Buffer) => sealed.subarray(HEADER.length, HEADER.length + IV_BYTES);

describe('gcmSeal and gcmOpen', () => {
  it('open a ciphertext sealed before the IV pool', () => {
    const sealed = Buffer.from(SEALED_BEFORE_IV_POOL, 'base64');
    expect(gcmOpen(KEY, HEADER.length, sealed, CONTEXT).toString('utf8')).toBe(CARD);
    expect(() => gcmOpen(KEY, HEADER.length, sealed, CONTEXT.replace('account_identifier', 'scheme_token'))).toThrow(DecryptionError);
  });

  it('write header | iv | AES-256-GCM ciphertext | tag, byte for byte as node:crypto does with that IV', () => {
    for (const plaintext of [Buffer.from(CARD), Buffer.alloc(0), Buffer.from(JSON.stringify({ number: CARD, expiry: '0539' }))]) {
      const sealed = gcmSeal(KEY, HEADER, plaintext, CONTEXT);
      expect(sealed).toHaveLength(HEADER.length + IV_BYTES + plaintext.length + TAG_BYTES);
      expect(sealed.equals(referenceSeal(KEY, HEADER, Buffer.from(ivOf(sealed)), plaintext, CONTEXT))).toBe(true);
      expect(gcmOpen(KEY, HEADER.length, sealed, CONTEXT).equals(plaintext)).toBe(true);
    }
  });

  it('never give two seals the same IV, across refills of the pool', () => {
    const sealed = Array.from({ length: 2_000 }, () => gcmSeal(KEY, HEADER, Buffer.from(CARD), CONTEXT));
    expect(new Set(sealed.map((blob) => ivOf(blob).toString('hex'))).size).toBe(sealed.length);
    // Each blob keeps its own IV: a later refill does not change what an earlier seal returned.
    for (const blob of sealed) {
      expect(gcmOpen(KEY, HEADER.length, blob, CONTEXT).toString('utf8')).toBe(CARD);
    }
  });
});
