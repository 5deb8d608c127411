import { Injectable } from '@nestjs/common';
import { CUSTOM_FIELDS_MAX } from '@gateway/api-fields';
import { ExplicitCardFields, GatewayError, jsonObjectAt, SealCardMessage, SealCardReply, SUBJECTS } from '@gateway/contracts';
import { SessionCard, SessionLifetime, StoredSession } from '@gateway/edge/data-access';
import { MessageBus } from '@gateway/platform';
import { envelopeOf, RequestContext } from '../api/request-envelope';
import { tooManySessionCustomFields } from './session-errors';
import { newSessionVersion } from './session-identifiers';
import { mergeValues, SessionChange } from './session-fields';

export const SESSION_LIFETIME = Symbol('SESSION_LIFETIME');
export type { SessionLifetime };

/**
 * A session with an update applied: values merged over the session's (objects key by key), card
 * details sealed by the vault together with the session's sealed card (fields given win), a new
 * version. The edge never sees a card number again once the request is read: the vault answers
 * an opaque sealed value and a masked card.
 */
@Injectable()
export class SessionEditor {
  constructor(private readonly bus: MessageBus) {}

  /**
   * When a request that edits sessions, started now, stops being waited for (`MessageBus.deadline()`):
   * the one budget its seals share, so a session update retried on a newer session (up to three
   * seals) waits NATS_REQUEST_TIMEOUT_MS at most, as a single seal did.
   */
  deadline(): number {
    return this.bus.deadline();
  }

  /** `deadline`: the request's (`deadline()`), shared by its seals. */
  async applied(context: RequestContext, session: StoredSession, change: SessionChange, at: Date, deadline: number): Promise<StoredSession> {
    const fields = mergeValues(session.fields, change.fields);
    // Refused before the vault seals the update's card: a session that could not be kept costs
    // no vault call, and is a 400 even while the vault is away.
    if (Object.keys(jsonObjectAt(fields, 'order', 'custom') ?? {}).length > CUSTOM_FIELDS_MAX) {
      throw tooManySessionCustomFields();
    }
    const version = newSessionVersion(session.version);
    let card = session.card;
    if (change.card) {
      // The code's origin: this update if it gave one, else the one the merged card carries on.
      const givenIn = change.card.securityCode !== undefined ? version : session.card?.securityCodeGivenIn;
      card = codeOrigin(await this.seal(context, session, change.card, deadline), givenIn);
    }
    return {
      ...session,
      version,
      updateStatus: 'SUCCESS',
      fields,
      ...(card ? { card } : {}),
      updatedAt: at.toISOString(),
    };
  }

  /**
   * The session's card sealed again without its security code (an operation used it). A vault
   * of a release before `withoutSecurityCode` (a rolling deploy) ignores the flag and seals the
   * code again: kept, it would go to the acquirer with every later operation on the session. So
   * such an answer is refused as the vault being unavailable: the operation is not sent, the
   * code stays where it was, and the merchant's retry reaches a vault that leaves it out
   * (docs/decisions/message-compatibility-across-a-roll.md). `deadline`: the operation's, which
   * its seals share with the operation itself.
   */
  async withoutSecurityCode(context: RequestContext, session: StoredSession, deadline: number): Promise<SessionCard> {
    const card = await this.seal(context, session, {}, deadline, true);
    if (card.securityCodePresent) {
      throw GatewayError.serverBusy();
    }
    return card;
  }

  /** Sent with the time left to `deadline`, and not sent once none is left (NotDeliveredError). */
  private async seal(context: RequestContext, session: StoredSession, card: ExplicitCardFields, deadline: number, withoutSecurityCode = false): Promise<SessionCard> {
    const message: SealCardMessage = {
      envelope: envelopeOf(context),
      bindingId: session.id,
      card,
      ...(session.card ? { previous: session.card.sealed } : {}),
      ...(withoutSecurityCode ? { withoutSecurityCode } : {}),
      // The vault refuses, unprocessed, a seal it could only make after this edge stopped
      // waiting: its answer would be kept nowhere (docs/decisions/operation-deadline.md, amendment on reads).
      deadline,
    };
    const reply = await this.bus.request<SealCardReply>(SUBJECTS.tokenVault.sealCard, message, { deadline });
    return { sealed: reply.sealed, masked: { ...reply.card }, securityCodePresent: reply.securityCodePresent };
  }
}

/** The card with where its security code came from, if it has one. */
function codeOrigin(card: SessionCard, givenIn: string | undefined): SessionCard {
  return card.securityCodePresent && givenIn !== undefined ? { ...card, securityCodeGivenIn: givenIn } : card;
}
