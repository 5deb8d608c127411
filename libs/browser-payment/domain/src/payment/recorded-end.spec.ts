import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import type { JsonObject } from '@gateway/contracts';
import { recordedEnd } from './recorded-end';

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

describe('recordedEnd', () => {
  it('reads the completion the ledger recorded: result, code, amount in the currency\'s minor units, time', () => {
    expect(recordedEnd(stored(), payment())).toEqual({
      interactionStatus: 'COMPLETED',
      result: 'SUCCESS',
      gatewayCode: 'APPROVED',
      amount: '22.50',
      timeCompleted: new Date('2031-05-04T10:00:05.000Z'),
    });
    expect(recordedEnd(stored({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' } }), payment())).toMatchObject({
      result: 'FAILURE',
      gatewayCode: 'DECLINED',
    });
  });

  it("reads a journey that ended before its completion where it stopped: the payer's cancellation, a time-out", () => {
    const cancelled = stored(
      { result: 'FAILURE', response: { gatewayCode: 'CANCELLED' } },
      { status: 'RETURNED_TO_MERCHANT', timeReturned: '2031-05-04T10:00:03.000Z' },
    );
    expect(recordedEnd(cancelled, payment())).toEqual({
      interactionStatus: 'RETURNED_TO_MERCHANT',
      result: 'FAILURE',
      gatewayCode: 'CANCELLED',
      payerOutcome: 'CANCELLED',
      amount: '22.50',
      timeReturned: new Date('2031-05-04T10:00:03.000Z'),
    });
    const timedOut = stored({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' } }, { status: 'REDIRECTED_TO_PROVIDER' });
    expect(recordedEnd(timedOut, payment())).toEqual({
      interactionStatus: 'REDIRECTED_TO_PROVIDER',
      result: 'FAILURE',
      gatewayCode: 'TIMED_OUT',
      amount: '22.50',
    });
    expect(recordedEnd(stored({}, { status: 'SOMEWHERE' }), payment())).toBeNull();
  });

  it('keeps every amount the API accepts exact, whatever the currency\'s minor units', () => {
    const jpy = stored({ transaction: { id: 'bp-1', amount: 1500, currency: 'JPY' } });
    expect(recordedEnd(jpy, payment('JPY'))).toMatchObject({ amount: '1500' });
    const bhd = stored({ transaction: { id: 'bp-1', amount: 999999999999.999, currency: 'BHD' } });
    expect(recordedEnd(bhd, payment('BHD'))).toMatchObject({ amount: '999999999999.999' });
  });

  it('finds no completion in a journey still under way, a pending result, or nothing recorded', () => {
    expect(recordedEnd(null, payment())).toBeNull();
    expect(recordedEnd(stored({ result: 'PENDING' }, { status: 'RETURNED_TO_MERCHANT' }), payment())).toBeNull();
    expect(recordedEnd(stored({ result: 'PENDING' }), payment())).toBeNull();
    expect(recordedEnd(stored({ result: 'UNKNOWN' }), payment())).toBeNull();
  });

  it('takes nothing from a body of another transaction, in another currency, or without an amount', () => {
    expect(recordedEnd(stored({ transaction: { id: 'bp-2', amount: 22.5, currency: 'EUR' } }), payment())).toBeNull();
    expect(recordedEnd(stored({ transaction: { id: 'bp-1', amount: 22.5, currency: 'USD' } }), payment())).toBeNull();
    expect(recordedEnd(stored({ transaction: { id: 'bp-1', amount: '22.50', currency: 'EUR' } }), payment())).toBeNull();
    expect(recordedEnd(stored({ browserPayment: 'COMPLETED' }), payment())).toBeNull();
  });

  it('refuses an amount with more decimals than the currency has', () => {
    expect(() => recordedEnd(stored({ transaction: { id: 'bp-1', amount: 22.505, currency: 'EUR' } }), payment())).toThrow();
  });
});
