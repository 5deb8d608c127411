import { ExpiredPayment, GatewayError, SettleExpiredPaymentMessage, SUBJECTS } from '@gateway/contracts';
import { MemoryLockService } from '@gateway/locking';
import { createLogger, currentRequestContext, MessageBus, Metrics } from '@gateway/platform';
import { MerchantDirectory } from '../merchants/merchant-directory';
import { merchantEntity } from '../testing/merchant-entity';
import { OrderLocks } from '../order-operation/order-locks';
import { EXPIRED_PAYMENTS_BATCH, SweepExpiredPayments } from './sweep-expired-payments.use-case';

const merchant = merchantEntity();

const due = (n: number, from = 0): ExpiredPayment[] =>
  Array.from({ length: n }, (_, i) => ({
    paymentId: `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
    merchantId: 'SHOP1',
    orderId: `order-${from + i}`,
    tokenExpiresAt: new Date(Date.UTC(2031, 0, 1, 0, 0, from + i)).toISOString(),
  }));

/** browser-payment as the sweep sees it: the due lists it is given, one after the other, and a settlement answer. */
function sweepOver(lists: ExpiredPayment[][], settle: (message: SettleExpiredPaymentMessage) => Promise<unknown> = async () => ({ outcome: 'TIMED_OUT' })) {
  const settled: SettleExpiredPaymentMessage[] = [];
  const request = jest.fn(async (subject: string, message: unknown) => {
    if (subject === SUBJECTS.browserPayment.expiredDue) return { payments: lists.shift() ?? [] };
    settled.push(message as SettleExpiredPaymentMessage);
    return settle(message as SettleExpiredPaymentMessage);
  });
  const lockService = new MemoryLockService();
  const logger = createLogger({ service: 'test', level: 'silent' });
  const metrics = new Metrics();
  const directory = { find: async (id: string) => (id === merchant.id ? merchant : null) } as unknown as MerchantDirectory;
  const sweeps = new SweepExpiredPayments(
    { request } as unknown as MessageBus,
    new OrderLocks(lockService, logger, metrics),
    directory,
    { waitMs: 2_000, ttlMs: 10_000, apiVersion: 100 },
    logger,
  );
  return { sweeps, settled, request, lockService, metrics };
}

describe('SweepExpiredPayments', () => {
  it('settles each due payment under its order lock, as the gateway, with the lock\'s fencing token, and lets the lock go', async () => {
    const { sweeps, settled, lockService } = sweepOver([due(2)]);
    expect(await sweeps.sweep()).toEqual({ COMPLETED: 0, RETURNED: 0, TIMED_OUT: 2, DISCARDED: 0, NOT_DUE: 0, BUSY: 0, FAILED: 0 });
    expect(settled.map((m) => m.paymentId)).toEqual(due(2).map((p) => p.paymentId));
    expect(settled[0].envelope).toMatchObject({ merchant: { id: 'SHOP1' }, authMethod: 'GATEWAY', apiVersion: 100, fencingToken: expect.stringMatching(/^\d+$/) });
    // Both locks were released: they can be taken at once.
    for (const order of ['order-0', 'order-1']) {
      expect(await lockService.acquire(`SHOP1:${order}`, { waitMs: 0, ttlMs: 1_000 })).not.toBeNull();
    }
  });

  it('leaves an order another operation holds for the next sweep, without waiting for it', async () => {
    const { sweeps, settled, lockService, metrics } = sweepOver([due(2)]);
    await lockService.acquire('SHOP1:order-0', { waitMs: 0, ttlMs: 10_000 });
    const started = Date.now();
    expect(await sweeps.sweep()).toMatchObject({ BUSY: 1, TIMED_OUT: 1 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(settled.map((m) => m.paymentId)).toEqual([due(2)[1].paymentId]);
    // Not a merchant's LOCK_FAILURE.
    expect((await metrics.lockFailures.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(0);
  });

  it('counts what browser-payment answers, and a failed settlement does not stop the others', async () => {
    const outcomes = ['COMPLETED', 'RETURNED', 'NOT_DUE', 'DISCARDED'];
    const { sweeps } = sweepOver([due(5)], async (message) => {
      const i = Number(message.paymentId.slice(-1));
      if (i === 4) throw new GatewayError('SERVER_BUSY');
      return { outcome: outcomes[i] };
    });
    expect(await sweeps.sweep()).toEqual({ COMPLETED: 1, RETURNED: 1, TIMED_OUT: 0, DISCARDED: 1, NOT_DUE: 1, BUSY: 0, FAILED: 1 });
  });

  it("settles each payment in a request context of its own, so the edge's lines about it (a support code too) carry the id browser-payment gets", async () => {
    const contexts: unknown[] = [];
    const { sweeps, settled } = sweepOver([due(2)], async () => {
      contexts.push(currentRequestContext());
      return { outcome: 'TIMED_OUT' };
    });
    await sweeps.sweep();
    expect(contexts).toEqual(settled.map((m) => ({ requestId: m.envelope.requestId, merchantId: 'SHOP1' })));
    expect(new Set(settled.map((m) => m.envelope.requestId)).size).toBe(2);
  });

  it('leaves a payment whose merchant is unknown as it is', async () => {
    const { sweeps, settled } = sweepOver([[{ ...due(1)[0], merchantId: 'GONE' }]]);
    expect(await sweeps.sweep()).toMatchObject({ FAILED: 1 });
    expect(settled).toEqual([]);
  });

  it('pages on from the last payment of a full page, and stops at a short one', async () => {
    const first = due(EXPIRED_PAYMENTS_BATCH);
    const { sweeps, request } = sweepOver([first, due(3, EXPIRED_PAYMENTS_BATCH), due(5, 500)]);
    expect(await sweeps.sweep()).toMatchObject({ TIMED_OUT: EXPIRED_PAYMENTS_BATCH + 3 });
    const queries = request.mock.calls.filter(([subject]) => subject === SUBJECTS.browserPayment.expiredDue).map(([, query]) => query);
    expect(queries).toEqual([
      { requestId: expect.any(String), limit: EXPIRED_PAYMENTS_BATCH },
      { requestId: expect.any(String), limit: EXPIRED_PAYMENTS_BATCH, after: { tokenExpiresAt: first.at(-1)!.tokenExpiresAt, paymentId: first.at(-1)!.paymentId } },
    ]);
  });

  it('pages on past payments it could not settle, so they never hold back the rest', async () => {
    const { sweeps, settled, lockService } = sweepOver([due(EXPIRED_PAYMENTS_BATCH), due(3, EXPIRED_PAYMENTS_BATCH)], async (message) => {
      if (message.paymentId === due(2)[1].paymentId) throw new GatewayError('SERVER_BUSY');
      return { outcome: 'TIMED_OUT' };
    });
    await lockService.acquire('SHOP1:order-0', { waitMs: 0, ttlMs: 10_000 });
    expect(await sweeps.sweep()).toMatchObject({ BUSY: 1, FAILED: 1, TIMED_OUT: EXPIRED_PAYMENTS_BATCH + 1 });
    expect(settled.map((m) => m.paymentId)).toContain(due(1, EXPIRED_PAYMENTS_BATCH + 2)[0].paymentId);
  });

  it('asks once when browser-payment does not page (a release before the cursor, during a roll): a full page left busy would come back for ever', async () => {
    // Such a browser-payment answers no tokenExpiresAt and ignores `after`: the same page each time.
    const unpaged = due(EXPIRED_PAYMENTS_BATCH).map(({ paymentId, merchantId, orderId }) => ({ paymentId, merchantId, orderId }) as ExpiredPayment);
    const { sweeps, request } = sweepOver([unpaged, unpaged, unpaged], async () => ({ outcome: 'NOT_DUE' }));
    expect(await sweeps.sweep()).toMatchObject({ NOT_DUE: EXPIRED_PAYMENTS_BATCH });
    expect(request.mock.calls.filter(([subject]) => subject === SUBJECTS.browserPayment.expiredDue)).toHaveLength(1);
  });

  it('stops between settlements when told to (shutdown)', async () => {
    let stop = false;
    const { sweeps, settled } = sweepOver([due(3)], async () => {
      stop = true;
      return { outcome: 'TIMED_OUT' };
    });
    expect(await sweeps.sweep(() => stop)).toMatchObject({ TIMED_OUT: 1 });
    expect(settled).toHaveLength(1);
  });
});
