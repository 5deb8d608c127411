import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import { GatewayError, SUBJECTS } from '@gateway/contracts';
import type { MessageBus } from '@gateway/platform';
import { envelopeFor, testMerchant } from '../testing/browser-payment-test-bed';
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
