import { defaultMerchantSettings, JsonObject } from '@gateway/contracts';
import type { ConfirmBrowserPayment, InitiateBrowserPayment } from '@gateway/browser-payment/domain';
import { BrowserPaymentsNatsController } from './browser-payments.nats-controller';

const envelope = {
  merchant: { id: 'SHOP1', mode: 'TEST', name: 'Book shop', settings: defaultMerchantSettings() },
  apiVersion: 100,
  requestId: 'req-1',
  authMethod: 'PASSWORD',
  fencingToken: '7',
};

const INITIATE: JsonObject = {
  apiOperation: 'INITIATE_BROWSER_PAYMENT',
  browserPayment: { returnUrl: 'https://shop.example/return' },
  order: { amount: '20.00', currency: 'EUR' },
  sourceOfFunds: { type: 'PROVIDER_A' },
};

const CONFIRM: JsonObject = { apiOperation: 'CONFIRM_BROWSER_PAYMENT' };

function controller() {
  const initiate = { execute: jest.fn(async () => ({ result: 'PENDING' })) };
  const confirm = { execute: jest.fn(async () => ({ result: 'SUCCESS' })) };
  const handlers = new BrowserPaymentsNatsController(initiate as unknown as InitiateBrowserPayment, confirm as unknown as ConfirmBrowserPayment);
  return { handlers, initiate, confirm };
}

function message(body: JsonObject, deadline?: number) {
  return { envelope, apiOperation: body.apiOperation, orderId: 'order-1', transactionId: 'bp-1', body, ...(deadline !== undefined ? { deadline } : {}) };
}

/** docs/decisions/operation-deadline.md: the use cases refuse an operation past the edge's deadline, so they must be given it. */
describe('BrowserPaymentsNatsController', () => {
  it("hands INITIATE_BROWSER_PAYMENT and CONFIRM_BROWSER_PAYMENT the edge's deadline", async () => {
    const { handlers, initiate, confirm } = controller();
    await handlers.initiate(message(INITIATE, 1_800_000_000_000));
    await handlers.confirm(message(CONFIRM, 1_800_000_000_001));
    expect(initiate.execute).toHaveBeenCalledWith(expect.objectContaining({ deadline: 1_800_000_000_000 }));
    expect(confirm.execute).toHaveBeenCalledWith(expect.objectContaining({ deadline: 1_800_000_000_001 }));
  });

  it('gives none for a message without one (an edge of the release before)', async () => {
    const { handlers, initiate, confirm } = controller();
    await handlers.initiate(message(INITIATE));
    await handlers.confirm(message(CONFIRM));
    expect(initiate.execute.mock.calls[0]).not.toHaveProperty('0.deadline');
    expect(confirm.execute.mock.calls[0]).not.toHaveProperty('0.deadline');
  });
});
