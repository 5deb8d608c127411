import { defaultMerchantSettings, GatewayError } from '@gateway/contracts';
import { MemoryLockService } from '@gateway/locking';
import { createLogger, MessageBus, Metrics } from '@gateway/platform';
import { TEST_CARD } from '@gateway/testing';
import { MemorySessionStore } from '@gateway/edge/data-access';
import { ApplySession } from '../apply-session/apply-session.use-case';
import { DispatchOrderOperation, OrderOperationCommand } from './dispatch-order-operation.use-case';

const command: OrderOperationCommand = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD',
  apiVersion: 100,
  requestId: 'req-1',
  orderId: 'order-1',
  transactionId: 'txn-1',
  body: {
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
  },
};

function dispatcherAnswering(reply: () => Promise<unknown>) {
  const bus = { request: jest.fn(reply) } as unknown as MessageBus;
  const metrics = new Metrics();
  const dispatch = new DispatchOrderOperation(
    bus,
    new MemoryLockService(),
    { waitMs: 0, ttlMs: 1_000 },
    createLogger({ service: 'test', level: 'silent' }),
    metrics,
    new ApplySession(new MemorySessionStore()),
  );
  return { dispatch, metrics };
}

describe('DispatchOrderOperation', () => {
  it('answers LOCK_FAILURE (201 body) when the ledger refuses a stale fencing token', async () => {
    const { dispatch, metrics } = dispatcherAnswering(() =>
      Promise.reject(new GatewayError('ORDER_LOCK_LOST', { explanation: 'lost' })),
    );
    const result = await dispatch.execute(command);
    expect(result.body).toMatchObject({
      order: { id: 'order-1' },
      response: { gatewayCode: 'LOCK_FAILURE' },
      result: 'FAILURE',
      transaction: { id: 'txn-1' },
    });
    expect((await metrics.lockFailures.get()).values[0].value).toBe(1);
  });

  it('passes other service errors through unchanged', async () => {
    const { dispatch } = dispatcherAnswering(() => Promise.reject(GatewayError.invalidRequest('no')));
    await expect(dispatch.execute(command)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
