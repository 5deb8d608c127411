import { GatewayError } from '@gateway/contracts';
import { PastDeadlineError, refuseIfPastDeadline } from './operation-deadline';

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
