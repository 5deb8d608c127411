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
  /** Compare-and-set on the version: CONFLICT when it changed since it was read, GONE when expired. */
  replace(next: StoredSession, expectedVersion: string, lifetime: SessionLifetime): Promise<ReplaceOutcome>;
}

export const SESSION_STORE = Symbol('SESSION_STORE');
