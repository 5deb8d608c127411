import { ApiPasswordPeppers } from '@gateway/crypto';
import { ValidateBy } from 'class-validator';

/** The two variables api-edge and the admin CLI read their API password peppers from. */
export interface ApiPasswordPepperConfig {
  /** The legacy pepper: the one of `h1$` hashes, which name none. */
  API_PASSWORD_PEPPER?: string;
  /** `<id>:<pepper>` entries, the first current. */
  API_PASSWORD_PEPPERS?: string;
}

/**
 * API_PASSWORD_PEPPERS well-formed (ids unique, each pepper long enough) and consistent with
 * API_PASSWORD_PEPPER; the message names the entry, never a pepper. A missing or short
 * API_PASSWORD_PEPPER is reported on its own variable.
 */
export function IsApiPasswordPeppers(): PropertyDecorator {
  return ValidateBy({
    name: 'isApiPasswordPeppers',
    validator: {
      validate: (value, args) => pepperListProblem(value, args!.object as ApiPasswordPepperConfig) === undefined,
      defaultMessage: (args) => pepperListProblem(args!.value, args!.object as ApiPasswordPepperConfig) ?? 'is invalid',
    },
  });
}

function pepperListProblem(value: unknown, config: ApiPasswordPepperConfig): string | undefined {
  if (typeof value !== 'string') {
    return 'must be text';
  }
  const legacy = config.API_PASSWORD_PEPPER;
  if (value.trim() === '') {
    // Unset: API_PASSWORD_PEPPER is then required, and reported on its own variable.
    return undefined;
  }
  try {
    // A legacy pepper too short is API_PASSWORD_PEPPER's own problem; it is still checked for a `legacy` entry twice.
    ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: value, API_PASSWORD_PEPPER: legacy ? legacy.padEnd(32, '-') : undefined });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** How many merchants hold hashes under each pepper: what `admin password-peppers` reports. */
export interface PepperCensus {
  /** The pepper new hashes are made under. */
  currentId: string;
  /** Every configured pepper id, and any a stored hash names, with the merchants whose hashes name it. */
  peppers: PepperHolders[];
  /** Merchants holding a usable hash under a pepper other than the current one (not yet re-hashed). */
  notRehashed: string[];
}

export interface PepperHolders {
  id: string;
  configured: boolean;
  current: boolean;
  /** Merchants whose current password hash names this pepper. */
  passwords: string[];
  /** Merchants whose previous password (still in its keep-previous window) names this pepper. */
  previousPasswords: string[];
}

export interface StoredPasswordHashes {
  id: string;
  passwordHash: string | null;
  previousPasswordHash: string | null;
  previousPasswordExpiresAt: Date | null;
}

/**
 * Which pepper each merchant's hashes name. A pepper can be dropped from the configuration once
 * no merchant holds a hash under it: those merchants could no longer authenticate. Expired
 * previous passwords are not counted: they no longer authenticate anyway.
 */
export function pepperCensus(peppers: ApiPasswordPeppers, merchants: StoredPasswordHashes[], now = Date.now()): PepperCensus {
  const holders = new Map<string, PepperHolders>();
  const holdersOf = (id: string): PepperHolders => {
    let entry = holders.get(id);
    if (!entry) {
      entry = { id, configured: peppers.ids.includes(id), current: id === peppers.currentId, passwords: [], previousPasswords: [] };
      holders.set(id, entry);
    }
    return entry;
  };
  peppers.ids.forEach(holdersOf);
  const notRehashed = new Set<string>();
  for (const merchant of merchants) {
    const current = merchant.passwordHash ? ApiPasswordPeppers.pepperIdOf(merchant.passwordHash) : null;
    const previousUsable = merchant.previousPasswordHash && merchant.previousPasswordExpiresAt && merchant.previousPasswordExpiresAt.getTime() > now;
    const previous = previousUsable ? ApiPasswordPeppers.pepperIdOf(merchant.previousPasswordHash!) : null;
    if (current !== null) {
      holdersOf(current).passwords.push(merchant.id);
    }
    if (previous !== null) {
      holdersOf(previous).previousPasswords.push(merchant.id);
    }
    if ((current !== null && current !== peppers.currentId) || (previous !== null && previous !== peppers.currentId)) {
      notRehashed.add(merchant.id);
    }
  }
  return { currentId: peppers.currentId, peppers: [...holders.values()], notRehashed: [...notRehashed] };
}
