import { GatewayError, PayerStepMessage, SUBJECTS } from '@gateway/contracts';
import { MemoryLockService } from '@gateway/locking';
import { createLogger, MessageBus, Metrics } from '@gateway/platform';
import { MerchantDirectory } from '../merchants/merchant-directory';
import { merchantEntity } from '../testing/merchant-entity';
import { OrderLocks } from '../order-operation/order-locks';
import { DispatchPayerJourney } from './dispatch-payer-journey.use-case';

const enabled = merchantEntity();

const TOKEN = 'BP-token';

/** browser-payment as the edge sees it: the token resolves to SHOP1's order-1, and the step gets `answer`. */
function journeyAnswering(answer: () => Promise<unknown>, merchant = enabled) {
  const request = jest.fn(async (subject: string, _message: unknown) =>
    subject === SUBJECTS.browserPayment.payerResolve ? { kind: 'order', merchantId: 'SHOP1', orderId: 'order-1' } : answer(),
  );
  const lockService = new MemoryLockService();
  const logger = createLogger({ service: 'test', level: 'silent' });
  const directory = { find: async (id: string) => (id === merchant.id ? merchant : null) } as unknown as MerchantDirectory;
  const metrics = new Metrics();
  const journey = new DispatchPayerJourney(
    { request } as unknown as MessageBus,
    new OrderLocks(lockService, logger, metrics),
    directory,
    { waitMs: 0, ttlMs: 10_000, apiVersion: 100 },
  );
  /** Whether the order's lock is free now (taken and given back at once). */
  const lockFree = async () => {
    const lease = await lockService.acquire('SHOP1:order-1', { waitMs: 0, ttlMs: 1_000 });
    await lease?.release();
    return lease !== null;
  };
  return { journey, request, lockService, lockFree, metrics };
}

describe('DispatchPayerJourney', () => {
  it("forwards the step under the order's lock, as PAYER, with the lock's fencing token, and lets the lock go", async () => {
    const { journey, request, lockFree } = journeyAnswering(async () => ({ kind: 'redirect', location: 'https://shop.example/done' }));
    expect(await journey.step('return', 'provider_a', TOKEN, 'req-1')).toEqual({ kind: 'redirect', location: 'https://shop.example/done' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.browserPayment.payerResolve, SUBJECTS.browserPayment.payerReturn]);
    const sent = request.mock.calls[1][1] as PayerStepMessage;
    expect(sent).toMatchObject({ provider: 'provider_a', token: TOKEN });
    expect(sent.envelope).toMatchObject({ merchant: { id: 'SHOP1' }, authMethod: 'PAYER', apiVersion: 100, fencingToken: expect.stringMatching(/^\d+$/) });
    expect(await lockFree()).toBe(true);
  });

  it('answers a lapsed lock (ORDER_LOCK_LOST) with the retry page, and lets the lock go', async () => {
    const { journey, lockFree } = journeyAnswering(() => Promise.reject(new GatewayError('ORDER_LOCK_LOST')));
    expect(await journey.step('redirect', 'provider_a', TOKEN, 'req-1')).toEqual({ kind: 'unavailable' });
    expect(await lockFree()).toBe(true);
  });

  it('answers a busy order with the retry page, and forwards nothing', async () => {
    const { journey, request, lockService } = journeyAnswering(async () => ({ kind: 'redirect', location: 'https://shop.example/done' }));
    await lockService.acquire('SHOP1:order-1', { waitMs: 0, ttlMs: 10_000 });
    expect(await journey.step('return', 'provider_a', TOKEN, 'req-1')).toEqual({ kind: 'unavailable' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.browserPayment.payerResolve]);
  });

  it("does not count a busy order as a merchant's LOCK_FAILURE: the payer got the retry page, and GatewayLockContention is about order operations", async () => {
    const { journey, lockService, metrics } = journeyAnswering(async () => ({ kind: 'redirect', location: 'https://shop.example/done' }));
    await lockService.acquire('SHOP1:order-1', { waitMs: 0, ttlMs: 10_000 });
    expect(await journey.step('return', 'provider_a', TOKEN, 'req-1')).toEqual({ kind: 'unavailable' });
    expect((await metrics.lockFailures.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(0);
    // Its wait is still in the lock wait histogram, as a timeout.
    expect((await metrics.lockWait.get()).values.find((v) => v.metricName === 'gateway_order_lock_wait_seconds_count')?.labels.outcome).toBe('timeout');
  });

  it("refuses a disabled merchant's payer before the provider, forwarding nothing and leaving the order unlocked", async () => {
    const { journey, request, lockFree } = journeyAnswering(
      async () => ({ kind: 'redirect', location: 'https://provider.example/pay' }),
      merchantEntity({ status: 'DISABLED' }),
    );
    expect(await journey.step('redirect', 'provider_a', TOKEN, 'req-1')).toEqual({ kind: 'merchant-disabled' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.browserPayment.payerResolve]);
    expect(await lockFree()).toBe(true);
  });

  it('lets a payer already at the provider come back to a disabled merchant: what the provider holds is recorded', async () => {
    const { journey, request } = journeyAnswering(
      async () => ({ kind: 'redirect', location: 'https://shop.example/done' }),
      merchantEntity({ status: 'DISABLED' }),
    );
    expect(await journey.step('return', 'provider_a', TOKEN, 'req-1')).toEqual({ kind: 'redirect', location: 'https://shop.example/done' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.browserPayment.payerResolve, SUBJECTS.browserPayment.payerReturn]);
  });

  it('passes other service errors through unchanged, and lets the lock go', async () => {
    const { journey, lockFree } = journeyAnswering(() => Promise.reject(GatewayError.invalidRequest('no')));
    await expect(journey.step('return', 'provider_a', TOKEN, 'req-1')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await lockFree()).toBe(true);
  });
});
