import { defaultMerchantSettings, SUBJECTS } from '@gateway/contracts';
import { MessageBus, NotDeliveredError } from '@gateway/platform';
import { DispatchOrderRetrieval } from './dispatch-order-retrieval.use-case';

const DEADLINE = 1_800_000_000_000;
const context = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST' as const, settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD' as const,
  apiVersion: 100,
  requestId: 'req-1',
};

describe('DispatchOrderRetrieval', () => {
  it("stamps the edge's deadline on the read of an order and of a transaction, not on the envelope", async () => {
    const request = jest.fn(async () => ({ body: { result: 'SUCCESS' } }));
    const retrieval = new DispatchOrderRetrieval({ request, deadline: () => DEADLINE } as unknown as MessageBus);

    await retrieval.execute({ ...context, orderId: 'o-1' });
    await retrieval.execute({ ...context, orderId: 'o-1', transactionId: 't-1' });

    const calls = request.mock.calls as unknown as [string, { deadline?: number; envelope: object }][];
    expect(calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveOrder, SUBJECTS.orderTransaction.retrieveTransaction]);
    for (const [, message] of calls) {
      expect(message.deadline).toBe(DEADLINE);
      expect(message.envelope).not.toHaveProperty('deadline');
    }
  });

  it('answers a read the ledger refused past its deadline as any read it could not make: SERVER_BUSY, the plain explanation', async () => {
    const request = jest.fn(async (subject: string) => Promise.reject(new NotDeliveredError(subject)));
    const retrieval = new DispatchOrderRetrieval({ request, deadline: () => DEADLINE } as unknown as MessageBus);
    await expect(retrieval.execute({ ...context, orderId: 'o-1' })).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      explanation: 'The gateway is busy. Please retry the request.',
      retryAfterSeconds: 1,
    });
  });
});
