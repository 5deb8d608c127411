import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import { completionDue, confirmAwaited, confirmWindowPassed, expiryDue } from './journey';

const WINDOW = 72 * 3_600_000;
const RETURNED_AT = new Date('2031-05-04T10:00:00.000Z');
const at = (ms: number) => new Date(RETURNED_AT.getTime() + ms);

/** A CONFIRM_AT_MERCHANT payment the payer approved and came back from; its token long expired. */
function awaitingConfirm(changes: Partial<BrowserPaymentRow> = {}): BrowserPaymentRow {
  return {
    confirmation: 'CONFIRM_AT_MERCHANT',
    interactionStatus: 'RETURNED_TO_MERCHANT',
    payerOutcome: 'APPROVED',
    result: 'PENDING',
    gatewayCode: 'SUBMITTED',
    tokenExpiresAt: at(-60_000),
    timeReturned: RETURNED_AT,
    ...changes,
  } as BrowserPaymentRow;
}

describe("expiryDue with the merchant's confirm window", () => {
  it('leaves a payment waiting for the confirm alone within the window, and makes it due once the window passed', () => {
    expect(confirmAwaited(awaitingConfirm())).toBe(true);
    expect(expiryDue(awaitingConfirm(), at(0), WINDOW)).toBe(false);
    expect(expiryDue(awaitingConfirm(), at(WINDOW - 1), WINDOW)).toBe(false);
    expect(expiryDue(awaitingConfirm(), at(WINDOW), WINDOW)).toBe(true);
    expect(expiryDue(awaitingConfirm(), at(WINDOW + 3_600_000), WINDOW)).toBe(true);
  });

  it("counts the window from the payer's return, stored as it was read (a Date or the text of one)", () => {
    const returnedLater = awaitingConfirm({ timeReturned: at(10_000) });
    expect(confirmWindowPassed(returnedLater, at(WINDOW), WINDOW)).toBe(false);
    expect(confirmWindowPassed(returnedLater, at(WINDOW + 10_000), WINDOW)).toBe(true);
    const asText = awaitingConfirm({ timeReturned: RETURNED_AT.toISOString() as unknown as Date });
    expect(expiryDue(asText, at(WINDOW), WINDOW)).toBe(true);
  });

  it("still waits for the token's expiry, whatever the window", () => {
    const tokenLive = awaitingConfirm({ tokenExpiresAt: at(WINDOW + 1) });
    expect(expiryDue(tokenLive, at(WINDOW), WINDOW)).toBe(false);
    expect(expiryDue(tokenLive, at(WINDOW + 1), WINDOW)).toBe(true);
  });

  it('never makes an ended payment due, nor counts a window for a payment nobody waits on', () => {
    for (const ended of [
      awaitingConfirm({ result: 'SUCCESS', interactionStatus: 'COMPLETED' }),
      awaitingConfirm({ result: 'FAILURE', gatewayCode: 'TIMED_OUT' }),
      awaitingConfirm({ result: 'FAILURE', payerOutcome: 'CANCELLED', gatewayCode: 'CANCELLED' }),
    ]) {
      expect(expiryDue(ended, at(WINDOW * 10), WINDOW)).toBe(false);
    }
    // Not waiting for the confirm: due once the token expired, the window plays no part.
    for (const open of [
      awaitingConfirm({ interactionStatus: 'INITIATED', timeReturned: null }),
      awaitingConfirm({ interactionStatus: 'REDIRECTED_TO_PROVIDER', timeReturned: null }),
      awaitingConfirm({ confirmation: 'CONFIRM_AT_PROVIDER' }),
    ]) {
      expect(confirmAwaited(open)).toBe(false);
      expect(expiryDue(open, at(0), WINDOW)).toBe(true);
    }
  });
});

describe('completionDue', () => {
  it('is due only for a CONFIRM_AT_PROVIDER payment back, approved and still pending: a final result is never executed again', () => {
    const back = awaitingConfirm({ confirmation: 'CONFIRM_AT_PROVIDER' });
    expect(completionDue(back)).toBe(true);
    expect(completionDue(awaitingConfirm())).toBe(false);
    expect(completionDue({ ...back, result: 'FAILURE', gatewayCode: 'TIMED_OUT' })).toBe(false);
    expect(completionDue({ ...back, result: 'SUCCESS', gatewayCode: 'APPROVED' })).toBe(false);
    expect(completionDue({ ...back, interactionStatus: 'REDIRECTED_TO_PROVIDER' })).toBe(false);
    expect(completionDue({ ...back, payerOutcome: 'CANCELLED' })).toBe(false);
  });
});
