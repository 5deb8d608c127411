import { Inject, Injectable } from '@nestjs/common';
import { GroupField, RequestClass } from '@gateway/api-fields';
import { GatewayError, jsonObjectAt, JsonObject, MerchantContext, OperationSession, SessionReference, validateRequest } from '@gateway/contracts';
import { SESSION_STORE, SessionStore } from '@gateway/edge/data-access';
import { noSuchSession, sessionExpired, staleSessionVersion } from '../sessions/session-errors';
import { acceptsPath, mergeValues, valuesFor } from '../sessions/session-fields';
import type { SecurityCodeInUse } from '../sessions/used-security-codes';

/** Just the `session` group of a request, checked before the session is looked up. */
class SessionReferenceOnly {
  @GroupField(() => SessionReference)
  session?: SessionReference;
}

export interface FilledRequest {
  body: JsonObject;
  /** For the service: the session, with its sealed card when the operation takes card details. */
  session?: OperationSession;
  /** The session's card goes with its security code: to be taken out of the session just before the operation is sent (UsedSecurityCodes). */
  securityCode?: SecurityCodeInUse;
  /** The body as the merchant sent it, when the session filled `body`: the services hash it (requestHashBasis). */
  asSent?: JsonObject;
}

/** The request named a session that is unknown or expired: `gone` is how it is answered, unless it is a replay. */
export interface GoneSession {
  gone: GatewayError;
}

/**
 * An operation that names `session.id` (spec session rules): the session's values that the
 * operation accepts fill the request, the request's own values win; a `session.version` must
 * be the session's current one. Card details stay sealed: they go to the service as the
 * session's sealed card, which only the vault opens, and the request's card fields stay
 * explicit (explicit > session > token, decided by the vault). The filled body is then
 * validated as a whole with the operation's request class, like any request.
 */
@Injectable()
export class ApplySession {
  constructor(@Inject(SESSION_STORE) private readonly store: SessionStore) {}

  async fill(merchant: MerchantContext, target: RequestClass, body: JsonObject): Promise<FilledRequest> {
    const filled = await this.fillUnlessGone(merchant, target, body);
    if ('gone' in filled) {
      throw filled.gone;
    }
    return filled;
  }

  /**
   * fill, but a session that is unknown or expired is answered, not thrown: an order operation
   * naming it may be the retry of one that succeeded while it lived, which the ledger answers from
   * its stored response (DispatchOrderOperation; docs/decisions/payment-sessions.md, amendment
   * 2026-11-27). A stale `session.version` still throws: that session lives.
   */
  async fillUnlessGone(merchant: MerchantContext, target: RequestClass, body: JsonObject): Promise<FilledRequest | GoneSession> {
    const reference = body.session;
    if (reference === undefined) {
      return { body };
    }
    const session = validateRequest(SessionReferenceOnly, { session: reference }).session;
    if (!session?.id) {
      // A version alone locks nothing: the operation's own validation decides about it.
      return { body };
    }
    const found = await this.store.find(merchant.id, session.id);
    if (found.state === 'UNKNOWN') {
      return { gone: noSuchSession('session.id', session.id) };
    }
    if (found.state === 'EXPIRED') {
      return { gone: sessionExpired('session.id', session.id) };
    }
    const stored = found.session;
    if (session.version !== undefined && session.version !== stored.version) {
      throw staleSessionVersion(session.version);
    }
    const card = stored.card && acceptsPath(target, 'sourceOfFunds.provided.card') ? stored.card : undefined;
    // The request's own security code wins over the session's, which then goes unused and stays.
    const sessionCodeUsable = card?.securityCodePresent === true && jsonObjectAt(body, 'sourceOfFunds', 'provided', 'card')?.securityCode === undefined;
    return {
      body: mergeValues(valuesFor(target, stored.fields), body),
      session: { id: stored.id, ...(card ? { sealedCard: card.sealed } : {}) },
      ...(sessionCodeUsable ? { securityCode: { session: { ...stored, card } } } : {}),
      asSent: body,
    };
  }
}
