import { Inject, Injectable } from '@nestjs/common';
import { SESSION_STORE, sessionState, SessionStore } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { SessionEditor } from './session-editor';

/** A session card with a security code that an operation took: what must be forgotten after it. */
export interface SecurityCodeInUse {
  sessionId: string;
  /** Where the code came from (SessionCard.securityCodeGivenIn). */
  givenIn?: string;
}

const ATTEMPTS = 3;

/**
 * A session's security code is kept until an operation used it, not after (PCI DSS: no
 * sensitive authentication data after the authorisation; ARCHITECTURE "Security"). Once an
 * operation that took the session's card with its code has been sent to a service, whatever
 * its answer, the card is sealed again without the code and the session amended (the same
 * version and expiry: it is the gateway's change, not the merchant's update, so a version the
 * merchant holds stays good). Only the code the operation took goes, wherever an update has
 * carried it since (an update giving a new expiry keeps the card's code): a code the payer
 * entered after it is left as it is. The amendment is a compare-and-set on the card it read,
 * so an update computed from the card before it is refused and retried without the code.
 * A failure here never changes the operation's answer: it is logged, and the code goes with the
 * session at its expiry.
 */
@Injectable()
export class UsedSecurityCodes {
  constructor(
    private readonly editor: SessionEditor,
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async forget(context: RequestContext, used: SecurityCodeInUse): Promise<void> {
    try {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const found = await this.store.find(context.merchant.id, used.sessionId);
        const session = found.state === 'ACTIVE' ? found.session : null;
        if (!session?.card?.securityCodePresent || session.card.securityCodeGivenIn !== used.givenIn) {
          return;
        }
        const card = await this.editor.withoutSecurityCode(context, session);
        if ((await this.store.amend({ ...session, card }, sessionState(session))) !== 'CONFLICT') {
          return;
        }
      }
      this.logger.warn({ sessionId: used.sessionId }, 'used security code not removed from the session: it kept changing; it goes at the session\'s expiry');
    } catch (err) {
      this.logger.error({ err, sessionId: used.sessionId }, 'used security code not removed from the session; it goes at the session\'s expiry');
    }
  }
}
