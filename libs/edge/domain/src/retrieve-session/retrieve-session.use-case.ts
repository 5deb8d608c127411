import { Inject, Injectable } from '@nestjs/common';
import { JsonObject, MerchantContext } from '@gateway/contracts';
import { SESSION_STORE, SessionStore } from '@gateway/edge/data-access';
import { noSuchSession, sessionExpired } from '../sessions/session-errors';
import { sessionView } from '../sessions/session-view';

/** `GET .../session/{sessionid}`: the session's values, its card masked. */
@Injectable()
export class RetrieveSession {
  constructor(@Inject(SESSION_STORE) private readonly store: SessionStore) {}

  async execute(merchant: MerchantContext, sessionId: string): Promise<JsonObject> {
    const found = await this.store.find(merchant.id, sessionId);
    if (found.state === 'UNKNOWN') {
      throw noSuchSession('sessionid', sessionId);
    }
    if (found.state === 'EXPIRED') {
      throw sessionExpired('sessionid', sessionId);
    }
    return sessionView(found.session);
  }
}
