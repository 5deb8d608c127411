import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API passwords are random secrets we generate (128 bits), so a keyed hash is the right
 * store: HMAC-SHA256 under a server-side pepper (a mounted secret, never in the database)
 * with a per-password salt. A database dump alone cannot be used to test guesses, and
 * verification costs microseconds on the request path (a slow KDF is for human passwords).
 */
const VERSION = 'h1';

export function generateApiPassword(): string {
  return randomBytes(16).toString('hex');
}

export function hashApiPassword(password: string, pepper: string): string {
  const salt = randomBytes(16);
  return `${VERSION}$${salt.toString('base64url')}$${mac(password, salt, pepper).toString('base64url')}`;
}

/** Constant-time in the password; false for any malformed stored hash. */
export function verifyApiPassword(password: string, stored: string, pepper: string): boolean {
  const [version, salt, expected] = stored.split('$');
  if (version !== VERSION || !salt || !expected) {
    return false;
  }
  const actual = mac(password, Buffer.from(salt, 'base64url'), pepper);
  const wanted = Buffer.from(expected, 'base64url');
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

function mac(password: string, salt: Buffer, pepper: string): Buffer {
  return createHmac('sha256', pepper).update(salt).update(password, 'utf8').digest();
}
