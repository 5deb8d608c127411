import { Inject, Injectable } from '@nestjs/common';
import { JsonObject, RevealCardMessage, RevealCardReply, SUBJECTS } from '@gateway/contracts';
import { SESSION_STORE, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { MessageBus } from '@gateway/platform';
import { envelopeOf, RequestContext } from '../api/request-envelope';
import { noSuchSession, sessionExpired } from '../sessions/session-errors';
import { sessionView } from '../sessions/session-view';

/**
 * `GET .../session/{sessionid}`: the session's values, its card masked; with an authorised
 * UNMASK (checked by the caller, and again by the vault) the card number the vault opens from
 * the session's sealed card (docs/decisions/unmasking.md).
 */
@Injectable()
export class RetrieveSession {
  constructor(
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    private readonly bus: MessageBus,
  ) {}

  async execute(context: RequestContext, sessionId: string, unmask = false): Promise<JsonObject> {
    const found = await this.store.find(context.merchant.id, sessionId);
    if (found.state === 'UNKNOWN') {
      throw noSuchSession('sessionid', sessionId);
    }
    if (found.state === 'EXPIRED') {
      throw sessionExpired('sessionid', sessionId);
    }
    const view = sessionView(found.session);
    return unmask ? this.unmasked(context, found.session, view) : view;
  }

  private async unmasked(context: RequestContext, session: StoredSession, view: JsonObject): Promise<JsonObject> {
    if (!session.card?.masked.number) {
      return view;
    }
    const message: RevealCardMessage = {
      envelope: envelopeOf(context),
      bindingId: session.id,
      sealed: session.card.sealed,
      // Refused unprocessed past it, as the other reads: nobody waits for the number any more.
      deadline: this.bus.deadline(),
    };
    const { number } = await this.bus.request<RevealCardReply>(SUBJECTS.tokenVault.revealCard, message);
    if (number === undefined) {
      return view;
    }
    const sourceOfFunds = view.sourceOfFunds as { provided: { card: JsonObject } };
    return {
      ...view,
      sourceOfFunds: { ...sourceOfFunds, provided: { ...sourceOfFunds.provided, card: { ...sourceOfFunds.provided.card, number } } },
    };
  }
}
