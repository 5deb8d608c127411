import { Inject, Injectable } from '@nestjs/common';
import { JsonObject, validateSessionRequest } from '@gateway/contracts';
import { SESSION_STORE, SessionLifetime, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { RequestContext } from '../api/request-envelope';
import { assertNotificationUrlAllowed } from '../order-operation/notification-url';
import { SESSION_LIFETIME, SessionEditor } from '../sessions/session-editor';
import { sessionChangeOf } from '../sessions/session-fields';
import { newSessionId, newSessionVersion } from '../sessions/session-identifiers';
import { sessionView } from '../sessions/session-view';

export interface CreateSessionCommand extends RequestContext {
  /** Empty, or the same fields as an update (applied at once). */
  body: JsonObject;
}

/** `POST .../session`: a new payment session of the merchant, empty or with the values given. */
@Injectable()
export class CreateSession {
  constructor(
    private readonly editor: SessionEditor,
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    @Inject(SESSION_LIFETIME) private readonly lifetime: SessionLifetime,
  ) {}

  async execute(command: CreateSessionCommand): Promise<JsonObject> {
    validateSessionRequest(command.body);
    assertNotificationUrlAllowed(command.body, command.merchant);
    const now = new Date();
    const empty: StoredSession = {
      id: newSessionId(),
      merchantId: command.merchant.id,
      version: newSessionVersion(),
      updateStatus: 'NO_UPDATE',
      fields: {},
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    const change = sessionChangeOf(command.body);
    const session = Object.keys(change.fields).length > 0 || change.card ? await this.editor.applied(command, empty, change, now, this.editor.deadline()) : empty;
    await this.store.create(session, this.lifetime);
    return sessionView(session);
  }
}
