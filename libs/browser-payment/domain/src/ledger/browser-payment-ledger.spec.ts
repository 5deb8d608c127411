import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import { GatewayError, SUBJECTS } from '@gateway/contracts';
import type { MessageBus } from '@gateway/platform';
import { authorizeBody, browserPaymentTestBed, envelopeFor, initiateBody, initiatedPayment, testMerchant } from '../testing/browser-payment-test-bed';
import { BrowserPaymentLedger } from './browser-payment-ledger';

const payment = { id: 'payment-1', orderId: 'order-1', transactionId: 'bp-1' } as BrowserPaymentRow;
const envelope = envelopeFor(testMerchant());

function ledgerAnswering(reply: () => Promise<unknown>) {
  const request = jest.fn(reply);
  return { ledger: new BrowserPaymentLedger({ request } as unknown as MessageBus), request };
}

describe('BrowserPaymentLedger.readRecord', () => {
  it('reads the stored response of the payment\'s transaction as the merchant\'s retrieval does', async () => {
    const { ledger, request } = ledgerAnswering(async () => ({ body: { result: 'SUCCESS' } }));
    expect(await ledger.readRecord(envelope, payment)).toEqual({ result: 'SUCCESS' });
    expect(request).toHaveBeenCalledWith(SUBJECTS.orderTransaction.retrieveTransaction, { envelope, orderId: 'order-1', transactionId: 'bp-1' });
  });

  it('is null when the ledger holds no such transaction', async () => {
    const { ledger } = ledgerAnswering(() => Promise.reject(new GatewayError('NOT_FOUND', { explanation: 'no transaction' })));
    expect(await ledger.readRecord(envelope, payment)).toBeNull();
  });

  it('fails when the ledger does not answer: an unreadable record is no missing one', async () => {
    const { ledger } = ledgerAnswering(() => Promise.reject(GatewayError.serverBusy()));
    await expect(ledger.readRecord(envelope, payment)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
  });
});

describe('BrowserPaymentLedger.record', () => {
  // The test bed's ledger takes the type from the same table, so only the real one's message proves it.
  it.each([
    ['AUTHORIZE', authorizeBody(), 'AUTHORIZATION'],
    ['PAY', initiateBody(), 'PAYMENT'],
  ])('records a %s payment as a transaction of type %s (the order AUTHORIZED or CAPTURED)', async (_operation, body, type) => {
    const bed = browserPaymentTestBed();
    await initiatedPayment(bed, body);
    const { ledger, request } = ledgerAnswering(async () => ({ body: {} }));
    await ledger.record({
      envelope,
      payment: bed.payments.only(),
      apiOperation: 'BROWSER_PAYMENT_COMPLETED',
      requestHash: 'hash',
      mode: 'UPDATE',
      response: {},
      orderChanged: false,
    });
    const [subject, message] = request.mock.calls[0] as unknown[];
    expect(subject).toBe(SUBJECTS.orderTransaction.ledgerRecord);
    expect(message).toMatchObject({ transaction: { type } });
  });
});
