import { causesOf } from './error-causes';

/**
 * SQLSTATEs with which Postgres aborts a transaction to resolve its conflict with a concurrent
 * one: chosen as the victim of a deadlock (40P01 deadlock_detected), or refused under
 * REPEATABLE READ / SERIALIZABLE because a row it would write was changed since its snapshot
 * (40001 serialization_failure). The whole transaction is rolled back, nothing of it written, so
 * running it again from its start is safe and usually goes through (the other transaction has
 * moved on). Not the rest of class 40 (40002 an integrity constraint at commit, 40003 the
 * statement's completion unknown): those are not a conflict that a new attempt resolves.
 */
const CONFLICT_CODES = new Set(['40P01', '40001']);

/** Postgres aborted the transaction as a deadlock victim or for a serialization failure: it may be run again as it is. */
export function isDeadlockOrSerializationFailure(err: unknown): boolean {
  return causesOf(err).some(({ code }) => typeof code === 'string' && CONFLICT_CODES.has(code));
}
