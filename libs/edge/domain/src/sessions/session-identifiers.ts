import { randomBytes, randomInt } from 'node:crypto';
import { safeText } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';

const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ID_PREFIX = 'SESSION0002';
/** The spec's session.id: ASCII, 31 to 35 characters. */
const SESSION_ID = /^[\x21-\x7e]{31,35}$/;

/**
 * A new session id in the real gateway's form (`SESSION0002` and 21 random characters, 32 in
 * all): 108 random bits, so ids cannot be guessed; they are also bound to their merchant.
 */
export function newSessionId(): string {
  let id = ID_PREFIX;
  for (let i = 0; i < 21; i++) {
    id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  }
  return id;
}

/** A session's version: 10 hex characters, never the previous one (it must change on every update). */
export function newSessionVersion(previous?: string): string {
  for (;;) {
    const version = randomBytes(5).toString('hex');
    if (version !== previous) {
      return version;
    }
  }
}

/** `{sessionid}` in a path. */
export function checkSessionId(raw: string): string {
  if (!SESSION_ID.test(raw)) {
    throw GatewayError.invalidField('sessionid', 'INVALID', `Value '${safeText(raw)}' is invalid. A session id is 31 to 35 ASCII characters.`);
  }
  return raw;
}
