import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';

/**
 * AES-256-GCM sealing shared by the data ciphertexts and the wrapped data keys. A sealed blob is
 * `header | iv (12) | ciphertext | tag (16)`; the header (format version and key id) and a
 * caller-given context (what the value is and which record it belongs to) are authenticated as
 * additional data, so neither the key id nor the blob's place in the database can be changed
 * without the tag failing.
 *
 * Synchronous on purpose: sealing a card number is a few microseconds of CPU (AES-NI), far
 * less than the cost of handing the work to libuv's thread pool and back (the async
 * webcrypto API), so it does not block the event loop in any way that matters.
 *
 * IVs are random (96 bits). NIST SP 800-38D caps random-IV GCM at 2^32 messages per key;
 * data keys are rotated long before that (docs/decisions/token-vault-envelope-encryption.md).
 * They are cut from a pool of CSPRNG bytes (as Node's randomUUID does), each byte used once:
 * asking OpenSSL for 12 bytes at a time was most of a seal's CPU.
 */
export const AES_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type DecryptionFailure = 'MALFORMED' | 'UNKNOWN_KEY' | 'AUTHENTICATION_FAILED';

/** Never carries key material or plaintext: only what kind of failure it was. */
export class DecryptionError extends Error {
  override name = 'DecryptionError';

  constructor(
    readonly reason: DecryptionFailure,
    detail: string,
  ) {
    super(`cannot decrypt: ${detail}`);
  }
}

export function gcmSeal(key: Buffer, header: Buffer, plaintext: Buffer, context: string): Buffer {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(header, context));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, iv, body, cipher.getAuthTag()]);
}

export function gcmOpen(key: Buffer, headerLength: number, sealed: Buffer, context: string): Buffer {
  if (sealed.length < headerLength + IV_BYTES + TAG_BYTES) {
    throw new DecryptionError('MALFORMED', 'too short');
  }
  const header = sealed.subarray(0, headerLength);
  const iv = sealed.subarray(headerLength, headerLength + IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const body = sealed.subarray(headerLength + IV_BYTES, sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(header, context));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new DecryptionError('AUTHENTICATION_FAILED', 'the authentication tag does not match (tampered, wrong key or wrong context)');
  }
}

/** IVs handed out per refill of the pool: one CSPRNG call per 256 seals. */
const IVS_PER_POOL = 256;
const ivPool = Buffer.alloc(IV_BYTES * IVS_PER_POOL);
let ivOffset = ivPool.length;

/**
 * The next 12 unused random bytes. A view into the pool: it is read (by createCipheriv, and
 * copied into the sealed blob) before any later call can refill the pool, since sealing is
 * synchronous.
 */
function nextIv(): Buffer {
  if (ivOffset === ivPool.length) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

function additionalData(header: Buffer, context: string): Buffer {
  return Buffer.concat([header, Buffer.from(context, 'utf8')]);
}

/**
 * Key material from configuration: base64 (standard or URL-safe) of exactly 32 bytes. Errors
 * name the setting, never the value.
 */
export function decodeKeyMaterial(text: string, what: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new Error(`${what} is not base64`);
  }
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== AES_KEY_BYTES) {
    throw new Error(`${what} must be ${AES_KEY_BYTES} bytes (base64), not ${key.length}`);
  }
  return key;
}
