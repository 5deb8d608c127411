import { Inject, Injectable } from '@nestjs/common';
import type { OperationSession } from '@gateway/contracts';
import { SESSION_STORE, SessionCard, sessionState, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { SessionEditor } from './session-editor';
import { sessionExpired } from './session-errors';

/** A session card with a security code that an operation took: the session as the operation read it. */
export interface SecurityCodeInUse {
  session: StoredSession & { card: SessionCard };
}

const ATTEMPTS = 3;

/**
 * A session's security code reaches an acquirer once (PCI DSS: no sensitive authentication data
 * after the authorisation; ARCHITECTURE "Security"; docs/decisions/security-code-used-once.md).
 * An operation that took the session's card with its code takes the code out of the session
 * just before it is sent: the card is sealed again without the code and the session amended
 * (the same version and expiry: it is the gateway's change, not the merchant's update, so a
 * version the merchant holds stays good) by a compare-and-set on the state the operation read.
 * Of operations that read the session together (on other orders, or on one order while another
 * held it), one wins the compare-and-set and sends the code; the others find the code gone and
 * send the card they read without it. Only the code the operation took goes, wherever an update
 * has carried it since (an update giving a new expiry keeps the card's code): a code the payer
 * entered after it is left for the next operation.
 */
@Injectable()
export class UsedSecurityCodes {
  constructor(
    private readonly editor: SessionEditor,
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * Takes the code for one operation, to be sent right after: the session it sends, its sealed
   * card with the code when this operation took it out of the session, else without. Nothing is
   * given back once taken: the operation is sent next, and once sent the acquirer may have had
   * the code, whatever the answer. Throws when the code could not be taken (the vault or the
   * store failed: the operation is not sent), or when the session expired meanwhile (the
   * merchant is told so, as a moment later it would be; a code never outlives its session).
   */
  async take(context: RequestContext, used: SecurityCodeInUse): Promise<OperationSession> {
    const read = used.session;
    const givenIn = read.card.securityCodeGivenIn;
    const withoutCode = await this.editor.withoutSecurityCode(context, read);
    let session: StoredSession = read;
    let card = withoutCode;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.store.amend({ ...session, card }, sessionState(session));
      if (outcome === 'REPLACED') {
        return { id: read.id, sealedCard: read.card.sealed };
      }
      if (outcome === 'CONFLICT' && attempt === ATTEMPTS) {
        this.logger.warn({ sessionId: read.id }, 'session security code not taken: the session kept changing; the operation goes without it');
        return { id: read.id, sealedCard: withoutCode.sealed };
      }
      const found = outcome === 'GONE' ? null : await this.store.find(context.merchant.id, read.id);
      if (found?.state !== 'ACTIVE') {
        throw sessionExpired('session.id', read.id);
      }
      session = found.session;
      if (!session.card?.securityCodePresent || session.card.securityCodeGivenIn !== givenIn) {
        // Another operation took it first, or the payer entered a new code since this one read the session.
        return { id: read.id, sealedCard: withoutCode.sealed };
      }
      card = await this.editor.withoutSecurityCode(context, session);
    }
  }
}
