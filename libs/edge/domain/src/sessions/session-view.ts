import type { JsonObject } from '@gateway/contracts';
import type { StoredSession } from '@gateway/edge/data-access';
import { mergeValues } from './session-fields';

/**
 * A session as its responses show it: the values it holds, the card as the vault masked it
 * (never more: the edge has nothing more), and `session.{id, updateStatus, version}`.
 */
export function sessionView(session: StoredSession): JsonObject {
  const card: JsonObject = session.card ? { sourceOfFunds: { provided: { card: session.card.masked } } } : {};
  return {
    ...mergeValues(session.fields, card),
    result: 'SUCCESS',
    session: { id: session.id, updateStatus: session.updateStatus, version: session.version },
  };
}
