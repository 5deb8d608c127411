import { GatewayError, WireError } from '@gateway/contracts';
import { notActedOnReply } from './message-bus';

/**
 * A service's refusal of an operation whose requester had stopped waiting before the service
 * began it (the message's `deadline` had passed): nothing was done. It crosses the wire in the
 * form of the in-flight cap's refusal (notActedOnReply), so a requester of this release reads it
 * as never delivered (NotDeliveredError) and one of the release before as a plain SERVER_BUSY.
 * docs/decisions/operation-deadline.md.
 */
export class PastDeadlineError extends GatewayError {
  constructor(readonly deadline: number) {
    const busy = GatewayError.serverBusy();
    super('SERVER_BUSY', { explanation: busy.explanation, retryAfterSeconds: busy.retryAfterSeconds });
  }

  override toWire(): WireError {
    return notActedOnReply();
  }
}

/**
 * PastDeadlineError for an operation refused at a later step, after it had already asked someone
 * outside the gateway (a token save's ACQUIRER verification, with the card's security code; a
 * token service provider): what it refuses is not done, but it was not unprocessed. Counted as
 * past its deadline, it crosses the wire as a plain SERVER_BUSY, without `notActedOn`, so the
 * requester does not read it as never delivered (the edge would give a session's security code
 * back for reuse although an acquirer has had it).
 */
export class PastDeadlineAfterCallsError extends PastDeadlineError {
  override toWire(): WireError {
    return new GatewayError('SERVER_BUSY', { explanation: this.explanation, retryAfterSeconds: this.retryAfterSeconds }).toWire();
  }
}

/**
 * Refuses (PastDeadlineError) an operation whose deadline has passed: called once, right before
 * the operation's first step that changes anything (a reservation, an acquirer call, a record),
 * after every wait that comes before it (the database pool's queue above all). Never for a step
 * that completes what was begun. No deadline (an older edge, a service's own request): no check.
 */
export function refuseIfPastDeadline(deadline: number | undefined, now: number = Date.now()): void {
  if (deadline !== undefined && now >= deadline) {
    throw new PastDeadlineError(deadline);
  }
}

/**
 * The deadline's check for a read's steps (before it starts, once each statement holds its
 * connection): none without a deadline (a service's own read, an older edge), so such a read
 * keeps the plain pooled path.
 */
export function pastDeadlineCheck(deadline: number | undefined): (() => void) | undefined {
  return deadline === undefined ? undefined : () => refuseIfPastDeadline(deadline);
}
