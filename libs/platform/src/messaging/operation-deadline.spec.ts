import { GatewayError } from '@gateway/contracts';
import { PastDeadlineAfterCallsError, PastDeadlineError, refuseIfPastDeadline } from './operation-deadline';

describe('refuseIfPastDeadline', () => {
  const deadline = 1_700_000_000_000;

  it('lets an operation begin before its deadline', () => {
    expect(() => refuseIfPastDeadline(deadline, deadline - 1)).not.toThrow();
  });

  it('refuses it, as not acted on, from its deadline on', () => {
    expect(() => refuseIfPastDeadline(deadline, deadline)).toThrow(PastDeadlineError);
    let refused: unknown;
    try {
      refuseIfPastDeadline(deadline, deadline + 5_000);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1 });
    expect((refused as GatewayError).toWire()).toMatchObject({ gatewayError: true, code: 'SERVER_BUSY', notActedOn: true, retryAfterSeconds: 1 });
  });

  it('never refuses a message without a deadline (an edge of the release before, a service\'s own request)', () => {
    expect(() => refuseIfPastDeadline(undefined, Number.MAX_SAFE_INTEGER)).not.toThrow();
  });
});

describe('PastDeadlineAfterCallsError', () => {
  it('is a refusal past the deadline (counted as one) that crosses the wire as the plain SERVER_BUSY, without notActedOn', () => {
    const refused = new PastDeadlineAfterCallsError(1_700_000_000_000);
    expect(refused).toBeInstanceOf(PastDeadlineError);
    expect(refused).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1, deadline: 1_700_000_000_000 });
    // Exactly what a requester of any release reads as "busy, retry": the merchant sees the same 503 as for PastDeadlineError.
    expect(refused.toWire()).toEqual(GatewayError.serverBusy().toWire());
    expect(refused.toResponseBody()).toEqual(new PastDeadlineError(1).toResponseBody());
  });
});
