import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, validateSessionRequest } from '@gateway/contracts';
import { SESSION_STORE, SessionLifetime, sessionState, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { RequestContext } from '../api/request-envelope';
import { assertNotificationUrlAllowed } from '../order-operation/notification-url';
import { SESSION_LIFETIME, SessionEditor } from '../sessions/session-editor';
import { noSuchSession, sessionExpired, staleSessionVersion } from '../sessions/session-errors';
import { sessionChangeOf } from '../sessions/session-fields';
import { sessionView } from '../sessions/session-view';

export interface UpdateSessionCommand extends RequestContext {
  sessionId: string;
  body: JsonObject;
}

/** Concurrent updates of one session (payer's page and merchant's server) retry on the newer session. */
const ATTEMPTS = 3;

/**
 * `PUT .../session/{sessionid}`: adds or changes the session's values (a patch: what is not
 * given is kept), seals card details with the vault, and gives the session a new version. A
 * `session.version` in the body must be the session's current one (optimistic locking).
 */
@Injectable()
export class UpdateSession {
  constructor(
    private readonly editor: SessionEditor,
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    @Inject(SESSION_LIFETIME) private readonly lifetime: SessionLifetime,
  ) {}

  async execute(command: UpdateSessionCommand): Promise<JsonObject> {
    const request = validateSessionRequest(command.body);
    assertNotificationUrlAllowed(command.body, command.merchant);
    const change = sessionChangeOf(command.body);
    // One budget for every attempt's seal: the retries on a newer session do not lengthen the request.
    const deadline = this.editor.deadline();
    for (let attempt = 1; ; attempt++) {
      const current = await this.current(command);
      if (request.session?.version !== undefined && request.session.version !== current.version) {
        throw staleSessionVersion(request.session.version);
      }
      const next = await this.editor.applied(command, current, change, new Date(), deadline);
      const outcome = await this.store.replace(next, sessionState(current), this.lifetime);
      if (outcome === 'REPLACED') {
        return sessionView(next);
      }
      if (outcome === 'GONE') {
        throw sessionExpired('sessionid', command.sessionId);
      }
      if (attempt === ATTEMPTS) {
        throw new GatewayError('SERVER_BUSY', { explanation: 'The session is being updated by another request. Please retry.', retryAfterSeconds: 1 });
      }
    }
  }

  private async current(command: UpdateSessionCommand): Promise<StoredSession> {
    const found = await this.store.find(command.merchant.id, command.sessionId);
    if (found.state === 'UNKNOWN') {
      throw noSuchSession('sessionid', command.sessionId);
    }
    if (found.state === 'EXPIRED') {
      throw sessionExpired('sessionid', command.sessionId);
    }
    return found.session;
  }
}
