import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret } from './secret';

/**
 * API passwords are random secrets we generate (128 bits), so a keyed hash is the right
 * store: HMAC-SHA256 under a server-side pepper (a mounted secret, never in the database)
 * with a per-password salt. A database dump alone cannot be used to test guesses, and
 * verification costs microseconds on the request path (a slow KDF is for human passwords).
 *
 * Two formats (docs/decisions/api-passwords-as-keyed-hashes.md, amendment 2026-11-26 (2)):
 * `h1$<salt>$<mac>` names no pepper: it was made under the legacy pepper (API_PASSWORD_PEPPER,
 * the ring's `legacy` entry); `h2$<pepperId>$<salt>$<mac>` names the pepper it was made under,
 * so peppers can be rotated.
 */
const VERSION = 'h1';
const NAMED_VERSION = 'h2';

/** The id of the pepper `h1$` hashes were made under: API_PASSWORD_PEPPER. */
export const LEGACY_PEPPER_ID = 'legacy';
export const MIN_PEPPER_LENGTH = 32;
const PEPPER_ID = /^[A-Za-z0-9_-]{1,32}$/;

export function generateApiPassword(): string {
  return randomBytes(16).toString('hex');
}

/** An `h1$` hash (no pepper named) under a single pepper. */
export function hashApiPassword(password: string, pepper: string): string {
  const salt = randomBytes(16);
  return `${VERSION}$${salt.toString('base64url')}$${mac(password, salt, pepper).toString('base64url')}`;
}

interface StoredHash {
  pepperId: string;
  salt: string;
  expected: string;
}

/** What a stored hash says, or null if it is not one. */
function parseStoredHash(stored: string): StoredHash | null {
  const parts = stored.split('$');
  if (parts[0] === VERSION && parts.length === 3) {
    const [, salt, expected] = parts;
    return salt && expected ? { pepperId: LEGACY_PEPPER_ID, salt, expected } : null;
  }
  if (parts[0] === NAMED_VERSION && parts.length === 4) {
    const [, pepperId, salt, expected] = parts;
    // `legacy` is never written as h2: its hashes are h1.
    return PEPPER_ID.test(pepperId) && pepperId !== LEGACY_PEPPER_ID && salt && expected ? { pepperId, salt, expected } : null;
  }
  return null;
}

function macMatches(password: string, stored: StoredHash, pepper: string): boolean {
  const actual = mac(password, Buffer.from(stored.salt, 'base64url'), pepper);
  const wanted = Buffer.from(stored.expected, 'base64url');
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

/** How a verification went: `rehash` when it matched under a pepper that is no longer current. */
export interface ApiPasswordCheck {
  matches: boolean;
  rehash: boolean;
}

/**
 * The API password peppers, as configured: `<id>:<pepper>` entries (API_PASSWORD_PEPPERS), the
 * first one current (new hashes, and re-hashes of old ones), the others only verify; plus the
 * legacy pepper (API_PASSWORD_PEPPER), whose hashes name no pepper (`h1$`). Configured alone,
 * the legacy pepper is current and new hashes stay `h1$`, as before peppers had ids.
 */
export class ApiPasswordPeppers {
  private readonly peppers: ReadonlyMap<string, Secret<string>>;
  /** An unknown merchant is checked against this: the same HMAC as a wrong password. */
  private readonly dummyHash: string;

  private constructor(
    readonly currentId: string,
    peppers: Map<string, Secret<string>>,
  ) {
    this.peppers = peppers;
    this.dummyHash = this.hash(generateApiPassword());
  }

  /** The legacy pepper alone (tests, the standalone profile's generated pepper). */
  static single(pepper: string): ApiPasswordPeppers {
    return ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPER: pepper });
  }

  /**
   * From configuration; errors name the variable and the entry, never a pepper. The legacy
   * pepper comes from API_PASSWORD_PEPPER or from a `legacy:` entry of the list, not both.
   */
  static fromConfig(config: { API_PASSWORD_PEPPER?: string; API_PASSWORD_PEPPERS?: string }): ApiPasswordPeppers {
    const peppers = parsePepperList(config.API_PASSWORD_PEPPERS ?? '');
    const legacy = config.API_PASSWORD_PEPPER;
    if (legacy) {
      if (peppers.has(LEGACY_PEPPER_ID)) {
        throw new Error(`API_PASSWORD_PEPPERS names ${LEGACY_PEPPER_ID}, the pepper API_PASSWORD_PEPPER also sets: set it in one place`);
      }
      if (legacy.length < MIN_PEPPER_LENGTH) {
        throw new Error(`API_PASSWORD_PEPPER must be at least ${MIN_PEPPER_LENGTH} characters`);
      }
      peppers.set(LEGACY_PEPPER_ID, new Secret(legacy));
    }
    const [currentId] = peppers.keys();
    if (currentId === undefined) {
      throw new Error('API_PASSWORD_PEPPER or API_PASSWORD_PEPPERS is required');
    }
    return new ApiPasswordPeppers(currentId, peppers);
  }

  /** The configured pepper ids, the current one first. */
  get ids(): string[] {
    return [...this.peppers.keys()];
  }

  /** A new hash under the current pepper. */
  hash(password: string): string {
    const pepper = this.peppers.get(this.currentId)!.reveal();
    if (this.currentId === LEGACY_PEPPER_ID) {
      return hashApiPassword(password, pepper);
    }
    const salt = randomBytes(16);
    return `${NAMED_VERSION}$${this.currentId}$${salt.toString('base64url')}$${mac(password, salt, pepper).toString('base64url')}`;
  }

  /**
   * Checks the password under the pepper the hash names. Constant-time in the password; a
   * malformed hash, or one under a pepper no longer configured, costs the same HMAC and fails.
   */
  check(password: string, stored: string): ApiPasswordCheck {
    const parsed = parseStoredHash(stored);
    const pepper = parsed ? this.peppers.get(parsed.pepperId) : undefined;
    if (!parsed || !pepper) {
      this.checkAgainstDummy(password);
      return { matches: false, rehash: false };
    }
    const matches = macMatches(password, parsed, pepper.reveal());
    return { matches, rehash: matches && parsed.pepperId !== this.currentId };
  }

  verify(password: string, stored: string): boolean {
    return this.check(password, stored).matches;
  }

  /** For a merchant that does not exist: the HMAC a wrong password costs, so timing tells neither apart. */
  checkAgainstDummy(password: string): void {
    const parsed = parseStoredHash(this.dummyHash)!;
    macMatches(password, parsed, this.peppers.get(parsed.pepperId)!.reveal());
  }

  /** The id of the pepper a stored hash names (`legacy` for `h1$`), configured or not; null if it is not a hash. */
  static pepperIdOf(stored: string): string | null {
    return parseStoredHash(stored)?.pepperId ?? null;
  }
}

function parsePepperList(text: string): Map<string, Secret<string>> {
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  const peppers = new Map<string, Secret<string>>();
  entries.forEach((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : '';
    if (!PEPPER_ID.test(id)) {
      throw new Error(`API_PASSWORD_PEPPERS entry ${index + 1} must be <id>:<pepper> with an id of 1 to 32 characters A-Z a-z 0-9 _ -`);
    }
    if (peppers.has(id)) {
      throw new Error(`API_PASSWORD_PEPPERS names pepper ${id} twice`);
    }
    if (entry.length - separator - 1 < MIN_PEPPER_LENGTH) {
      throw new Error(`API_PASSWORD_PEPPERS pepper ${id} must be at least ${MIN_PEPPER_LENGTH} characters`);
    }
    peppers.set(id, new Secret(entry.slice(separator + 1)));
  });
  return peppers;
}

function mac(password: string, salt: Buffer, pepper: string): Buffer {
  return createHmac('sha256', pepper).update(salt).update(password, 'utf8').digest();
}
