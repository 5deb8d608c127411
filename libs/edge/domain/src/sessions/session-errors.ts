import { CUSTOM_FIELDS_MAX, invalidValue } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';

/**
 * How sessions are refused. An unknown session and another merchant's are the same answer: a
 * session of another merchant does not exist for you. An expired one says so (for a day after,
 * SESSION_EXPIRED_NOTICE_MS), so an integration can tell a slow payer from a wrong id.
 */
export function noSuchSession(field: 'session.id' | 'sessionid', id: string): GatewayError {
  if (field === 'sessionid') {
    return new GatewayError('NOT_FOUND', { explanation: 'No session with this id was found for this merchant.' });
  }
  return fieldProblem(field, id, 'must name a session of this merchant');
}

export function sessionExpired(field: 'session.id' | 'sessionid', id: string): GatewayError {
  return fieldProblem(field, id, 'names a session that has expired; create a new session');
}

export function staleSessionVersion(given: string): GatewayError {
  return fieldProblem('session.version', given, 'differs from the session\'s current version (the session was updated since)');
}

/**
 * An update whose custom fields, with those the session holds, pass the limit of one request:
 * updates merge `order.custom` name by name, so without it a session given new names update
 * after update would grow without end (kept whole in Redis, read and written whole on every
 * update), and no operation could use it anyway (its filled request holds them all).
 */
export function tooManySessionCustomFields(): GatewayError {
  const reason = `must hold at most ${CUSTOM_FIELDS_MAX} custom fields, those the session holds already included (reuse their names, or create a new session)`;
  const problem = invalidValue('order.custom', undefined, reason, { sensitive: true });
  return GatewayError.invalidField(problem.field, problem.validationType, problem.explanation);
}

function fieldProblem(field: string, value: string, reason: string): GatewayError {
  const problem = invalidValue(field, value, reason, { label: field === 'session.version' ? 'The version' : 'The session id' });
  return GatewayError.invalidField(problem.field, problem.validationType, problem.explanation);
}
