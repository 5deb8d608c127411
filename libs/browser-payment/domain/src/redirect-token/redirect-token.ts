import { createHash, randomBytes } from 'node:crypto';
import { REDIRECT_TOKEN } from '@gateway/contracts';

/**
 * A payment's redirect token: `BP-` and 32 hex digits from 16 bytes of the OS's CSPRNG, so
 * 128 bits nobody can guess or enumerate. It is the payer's only credential, so it is stored
 * only as its SHA-256 and looked up by that hash: the lookup compares hashes, never the secret,
 * so its timing tells a guesser nothing about the token.
 */
export function newRedirectToken(): string {
  return `BP-${randomBytes(16).toString('hex')}`;
}

export function isRedirectToken(value: string): boolean {
  return REDIRECT_TOKEN.test(value);
}

export function redirectTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
