import type { BrowserPaymentPayerDataErasure } from '@gateway/browser-payment/domain';
import type { PayerDataErasure } from '@gateway/order-transaction/domain';
import { EraseOrderCommand, runPayerDataErase } from '@gateway/platform';
import { bothErasures, STANDALONE_PAYER_DATA_ERASE } from './standalone-payer-data';

/** How the standalone command puts the two erasures of an order together (the real ones: browser-payment-payer-data.int-spec). */
describe('standalone payer-data erase: both erasures on each order', () => {
  const ledger = (status: PayerDataErasure['status']) => ({
    calls: [] as string[],
    async execute({ merchantId, orderId }: EraseOrderCommand): Promise<PayerDataErasure> {
      this.calls.push(orderId);
      const found = status !== 'NOT_FOUND';
      return { merchantId, orderId, status, details: found, notificationUrl: found, responses: found ? 2 : 0, notifications: 0, agreements: found ? 1 : 0 };
    },
  });
  const payments = (status: BrowserPaymentPayerDataErasure['status']) => ({
    async execute({ merchantId, orderId }: EraseOrderCommand): Promise<BrowserPaymentPayerDataErasure> {
      return { merchantId, orderId, status, payments: status === 'ERASED' ? 1 : 0, unfinished: status === 'REFUSED' ? 1 : 0 };
    },
  });

  async function run(erasure: ReturnType<typeof bothErasures>) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runPayerDataErase(['erase', 'M1', 'o-1'], STANDALONE_PAYER_DATA_ERASE, erasure, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('a card order (no browser payment) is erased in the ledger, exit code 0', async () => {
    expect(await run(bothErasures(ledger('ERASED'), payments('NOT_FOUND')))).toEqual({
      code: 0,
      err: '',
      out: [
        'Erased:\tM1/o-1\torder details stripped, notification URL stripped, 2 stored responses, 0 notifications, 1 agreement, 0 browser payments',
        'Orders: 1 erased, 0 with nothing to erase, 0 not found, 0 refused. Changed: 1 order details, 1 notification URL, 2 stored responses, 0 notifications, 1 agreement, 0 browser payments.',
      ].join('\n'),
    });
  });

  it('an order whose journey is not over is refused whole: the ledger\'s erasure is not run', async () => {
    const theLedger = ledger('ERASED');
    const refused = await run(bothErasures(theLedger, payments('REFUSED')));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('error: M1/o-1: a browser payment of the order is not over yet');
    expect(theLedger.calls).toEqual([]);
  });

  it('not found only when neither has the order', async () => {
    expect((await run(bothErasures(ledger('NOT_FOUND'), payments('NOT_FOUND')))).err).toBe('error: M1/o-1: the merchant has no such order: nothing changed');
    expect((await run(bothErasures(ledger('UNCHANGED'), payments('ERASED')))).out).toContain('Orders: 1 erased');
  });
});
