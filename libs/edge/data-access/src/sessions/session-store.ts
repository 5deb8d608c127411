import type { JsonObject } from '@gateway/contracts';

export const SESSION_UPDATE_STATUSES = ['NO_UPDATE', 'SUCCESS'] as const;
export type SessionUpdateStatus = (typeof SESSION_UPDATE_STATUSES)[number];

/** The session's card as the vault sealed it: the edge never holds a card number, even encrypted. */
export interface SessionCard {
  /** Opaque to the edge; only the vault opens it, for this merchant and session. */
  sealed: string;
  /** What a session retrieval shows (number masked 6.4, expiry, brand...). */
  masked: JsonObject;
  securityCodePresent: boolean;
  /**
   * The version of the update that gave the security code: the code an operation used, told
   * from one the payer entered since (a card merged by a later update keeps its code's origin).
   */
  securityCodeGivenIn?: string;
}

/** A payment session as it is kept (Redis in the distributed profile, memory in standalone). */
export interface StoredSession {
  id: string;
  merchantId: string;
  /** 10 characters; a new one on every update (optimistic locking, spec session rules). */
  version: string;
  updateStatus: SessionUpdateStatus;
  /** The request fields the session holds, without card details. */
  fields: JsonObject;
  card?: SessionCard;
  /** YYYY-MM-DDThh:mm:ss.SSSZ */
  createdAt: string;
  updatedAt: string;
}

export type SessionLookup =
  | { state: 'ACTIVE'; session: StoredSession }
  /** The merchant's session existed but its lifetime is over (its data is gone). */
  | { state: 'EXPIRED' }
  /** Never existed, forgotten since, or another merchant's: all the same to the caller. */
  | { state: 'UNKNOWN' };

export type ReplaceOutcome = 'REPLACED' | 'CONFLICT' | 'GONE';

/**
 * What a write expects to find: the version it read and the sealed card it read. The card is
 * compared too because the gateway changes it without an update (a used security code is
 * removed, `amend`): a write computed from the card before that must not bring the code back.
 */
export interface SessionState {
  version: string;
  cardSealed: string | null;
}

export function sessionState(session: StoredSession): SessionState {
  return { version: session.version, cardSealed: session.card?.sealed ?? null };
}

export interface SessionLifetime {
  /** A session's data lives this long after its creation or last update. */
  ttlMs: number;
  /** After that, how long the merchant is still told "expired" rather than "no such session". */
  expiredNoticeMs: number;
}

/**
 * Where payment sessions live. Both implementations keep a session's data for its lifetime
 * only (card data included: nothing outlives the session) and a small marker for a while longer,
 * so an expired session is answered as expired.
 */
export interface SessionStore {
  create(session: StoredSession, lifetime: SessionLifetime): Promise<void>;
  find(merchantId: string, id: string): Promise<SessionLookup>;
  /**
   * An update: compare-and-set on the state it was computed from (CONFLICT when it changed since
   * it was read, GONE when expired); the session lives `lifetime` from now.
   */
  replace(next: StoredSession, expected: SessionState, lifetime: SessionLifetime): Promise<ReplaceOutcome>;
  /**
   * A change that is no update (the same version, `next` keeps it): the same compare-and-set,
   * and the session keeps the expiry it had.
   */
  amend(next: StoredSession, expected: SessionState): Promise<ReplaceOutcome>;
}

export const SESSION_STORE = Symbol('SESSION_STORE');
