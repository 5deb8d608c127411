import type {
  BrowserPaymentPayerDataRecords,
  BrowserPaymentPayerDataRepository,
  PaymentPayerData,
} from '@gateway/browser-payment/data-access';
import { createLogger } from '@gateway/platform';
import { EraseBrowserPaymentPayerData } from './erase-payer-data.use-case';

/**
 * EraseBrowserPaymentPayerData over a fake order of two payments: what the retention's check
 * under the lock decides. What the erasure strips, with the real database and journeys, is
 * apps/gateway's browser-payment-payer-data.int-spec.ts and personal-data-retention.int-spec.ts.
 */
describe('EraseBrowserPaymentPayerData, run by the retention', () => {
  const idleBefore = new Date('2025-04-01T00:00:00Z');

  function order(updatedAt: Date[]) {
    const payments: PaymentPayerData[] = updatedAt.map((at, i) => ({
      id: `00000000-0000-0000-0000-00000000000${i + 1}`,
      transactionId: `bp-${i + 1}`,
      result: 'SUCCESS',
      returnUrl: 'https://shop.example/checkout/return?cart=7',
      request: { customer: { email: 'zelda@example.org' }, order: { amount: '30.00', currency: 'USD' } },
      providerDetails: null,
      updatedAt: at,
    }));
    const written: Pick<PaymentPayerData, 'id' | 'returnUrl' | 'request' | 'providerDetails'>[] = [];
    let marks = 0;
    const records: Pick<BrowserPaymentPayerDataRecords, 'payments' | 'write' | 'markStripped'> = {
      payments: async () => payments,
      write: async (payment) => {
        written.push(payment);
      },
      markStripped: async () => {
        marks += 1;
      },
    };
    const repository = {
      transaction: <T>(work: (r: BrowserPaymentPayerDataRecords) => Promise<T>) =>
        work(records as BrowserPaymentPayerDataRecords),
    };
    const erasure = new EraseBrowserPaymentPayerData(
      repository as unknown as BrowserPaymentPayerDataRepository,
      createLogger({ service: 'browser-payment', level: 'silent' }),
    );
    return { erasure, written, marks: () => marks };
  }

  it("strips and marks an order whose payments all had their last step before the retention's time", async () => {
    const { erasure, written, marks } = order([
      new Date('2025-01-01T00:00:00Z'),
      new Date('2025-02-01T00:00:00Z'),
    ]);
    expect(
      await erasure.execute({ merchantId: 'M1', orderId: 'o-1', dryRun: false, retention: { idleBefore } }),
    ).toMatchObject({ status: 'ERASED', payments: 2 });
    expect(JSON.stringify(written)).not.toMatch(/zelda|cart=7/);
    expect(marks()).toBe(1);
  });

  it('leaves an order whole, unmarked, when any one of its payments had a step since (a capture at the provider)', async () => {
    const { erasure, written, marks } = order([
      new Date('2025-01-01T00:00:00Z'),
      new Date('2025-06-01T00:00:00Z'),
    ]);
    expect(
      await erasure.execute({ merchantId: 'M1', orderId: 'o-1', dryRun: false, retention: { idleBefore } }),
    ).toEqual({
      merchantId: 'M1',
      orderId: 'o-1',
      status: 'UNCHANGED',
      payments: 0,
      unfinished: 0,
    });
    expect(written).toEqual([]);
    expect(marks()).toBe(0);
  });
});
