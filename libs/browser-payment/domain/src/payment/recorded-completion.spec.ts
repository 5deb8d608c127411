import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import type { JsonObject } from '@gateway/contracts';
import { recordedCompletion } from './recorded-completion';

const payment = (currency = 'EUR') => ({ transactionId: 'bp-1', currency }) as BrowserPaymentRow;

/** A stored response as the ledger keeps a browser payment's step. */
function stored(overrides: JsonObject = {}, interaction: JsonObject = { status: 'COMPLETED', timeCompleted: '2031-05-04T10:00:05.000Z' }): JsonObject {
  return {
    browserPayment: { interaction: { timeInitiated: '2031-05-04T10:00:00.000Z', ...interaction } },
    result: 'SUCCESS',
    response: { gatewayCode: 'APPROVED' },
    transaction: { id: 'bp-1', type: 'PAYMENT', amount: 22.5, currency: 'EUR' },
    ...overrides,
  };
}

describe('recordedCompletion', () => {
  it('reads the completion the ledger recorded: result, code, amount in the currency\'s minor units, time', () => {
    expect(recordedCompletion(stored(), payment())).toEqual({
      interactionStatus: 'COMPLETED',
      result: 'SUCCESS',
      gatewayCode: 'APPROVED',
      amount: '22.50',
      timeCompleted: new Date('2031-05-04T10:00:05.000Z'),
    });
    expect(recordedCompletion(stored({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' } }), payment())).toMatchObject({
      result: 'FAILURE',
      gatewayCode: 'DECLINED',
    });
  });

  it("reads a journey that ended before its completion where it stopped: the payer's cancellation, a time-out", () => {
    const cancelled = stored(
      { result: 'FAILURE', response: { gatewayCode: 'CANCELLED' } },
      { status: 'RETURNED_TO_MERCHANT', timeReturned: '2031-05-04T10:00:03.000Z' },
    );
    expect(recordedCompletion(cancelled, payment())).toEqual({
      interactionStatus: 'RETURNED_TO_MERCHANT',
      result: 'FAILURE',
      gatewayCode: 'CANCELLED',
      payerOutcome: 'CANCELLED',
      amount: '22.50',
      timeReturned: new Date('2031-05-04T10:00:03.000Z'),
    });
    const timedOut = stored({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' } }, { status: 'REDIRECTED_TO_PROVIDER' });
    expect(recordedCompletion(timedOut, payment())).toEqual({
      interactionStatus: 'REDIRECTED_TO_PROVIDER',
      result: 'FAILURE',
      gatewayCode: 'TIMED_OUT',
      amount: '22.50',
    });
    expect(recordedCompletion(stored({}, { status: 'SOMEWHERE' }), payment())).toBeNull();
  });

  it('keeps every amount the API accepts exact, whatever the currency\'s minor units', () => {
    const jpy = stored({ transaction: { id: 'bp-1', amount: 1500, currency: 'JPY' } });
    expect(recordedCompletion(jpy, payment('JPY'))).toMatchObject({ amount: '1500' });
    const bhd = stored({ transaction: { id: 'bp-1', amount: 999999999999.999, currency: 'BHD' } });
    expect(recordedCompletion(bhd, payment('BHD'))).toMatchObject({ amount: '999999999999.999' });
  });

  it('finds no completion in a journey still under way, a pending result, or nothing recorded', () => {
    expect(recordedCompletion(null, payment())).toBeNull();
    expect(recordedCompletion(stored({ result: 'PENDING' }, { status: 'RETURNED_TO_MERCHANT' }), payment())).toBeNull();
    expect(recordedCompletion(stored({ result: 'PENDING' }), payment())).toBeNull();
    expect(recordedCompletion(stored({ result: 'UNKNOWN' }), payment())).toBeNull();
  });

  it('takes nothing from a body of another transaction, in another currency, or without an amount', () => {
    expect(recordedCompletion(stored({ transaction: { id: 'bp-2', amount: 22.5, currency: 'EUR' } }), payment())).toBeNull();
    expect(recordedCompletion(stored({ transaction: { id: 'bp-1', amount: 22.5, currency: 'USD' } }), payment())).toBeNull();
    expect(recordedCompletion(stored({ transaction: { id: 'bp-1', amount: '22.50', currency: 'EUR' } }), payment())).toBeNull();
    expect(recordedCompletion(stored({ browserPayment: 'COMPLETED' }), payment())).toBeNull();
  });

  it('refuses an amount with more decimals than the currency has', () => {
    expect(() => recordedCompletion(stored({ transaction: { id: 'bp-1', amount: 22.505, currency: 'EUR' } }), payment())).toThrow();
  });
});
