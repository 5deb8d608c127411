import { Secret } from '../secret';
import { decodeKeyMaterial } from './aes-gcm';

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface ParsedKeyRing {
  /** The first entry's id: the key new values are sealed (or wrapped) under. */
  currentId: string;
  keys: Map<string, Secret<Buffer>>;
}

/**
 * A ring of AES-256 keys as configuration holds it: `id:base64key` entries separated by commas
 * or newlines, the first one current, the others only for opening what older keys sealed.
 * Errors name the setting and the entry, never key material.
 */
export function parseKeyRing(text: string, what: string, noun = 'key'): ParsedKeyRing {
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) {
    throw new Error(`${what} holds no key`);
  }
  const keys = new Map<string, Secret<Buffer>>();
  entries.forEach((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : '';
    if (!KEY_ID.test(id)) {
      throw new Error(`${what} entry ${index + 1} must be <id>:<base64 key> with an id of 1 to 32 characters A-Z a-z 0-9 _ -`);
    }
    if (keys.has(id)) {
      throw new Error(`${what} names ${noun} ${id} twice`);
    }
    keys.set(id, new Secret(decodeKeyMaterial(entry.slice(separator + 1), `${what} key ${id}`)));
  });
  return { currentId: entries[0].slice(0, entries[0].indexOf(':')), keys };
}
