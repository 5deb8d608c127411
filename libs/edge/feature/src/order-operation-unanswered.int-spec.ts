import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GatewayError, SUBJECTS } from '@gateway/contracts';
import { UNANSWERED_OPERATION_EXPLANATION } from '@gateway/edge/domain';
import { PastDeadlineError } from '@gateway/platform';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from './testing/edge-test-app';

/** What the fake ledger was sent, and the answers it holds back. */
const received: { transactionId: string; deadline?: number }[] = [];
const heldBack: (() => void)[] = [];

/**
 * A ledger that never answers transaction 'slow' (the edge times out; the operation may still be
 * carried out), and refuses 'late' unprocessed, as a service refuses an operation past its deadline.
 */
@Controller()
class FakeLedgerController {
  @MessagePattern(SUBJECTS.orderTransaction.verify)
  verify(@Payload() data: { transactionId: string; deadline?: number }): Promise<never> {
    received.push({ transactionId: data.transactionId, deadline: data.deadline });
    if (data.transactionId === 'late') {
      return Promise.reject(new PastDeadlineError(data.deadline ?? 0));
    }
    return new Promise((_, reject) => heldBack.push(() => reject(GatewayError.serverBusy())));
  }
}

/**
 * docs/decisions/overload-behaviour.md, recommendation 4: a 503 on an order operation the service
 * did not answer in time tells the merchant it may have been processed and how to find out; one
 * the service refused unprocessed says only that the gateway is busy.
 */
describe('an order operation the service does not answer in time', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    edge = await startEdgeTestApp({ controllers: [FakeLedgerController] });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    heldBack.forEach((answer) => answer());
    await edge?.close();
  });

  function verify(transactionId: string) {
    return edge.fastify.inject({
      method: 'PUT',
      url: `/api/rest/version/100/merchant/${merchant.id}/order/o-${transactionId}/transaction/${transactionId}`,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({
        apiOperation: 'VERIFY',
        order: { currency: 'USD' },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } },
      }),
    });
  }

  it('is answered 503 SERVER_BUSY saying it may have been processed: retry with the same transaction id or retrieve it', async () => {
    const sentAfter = Date.now();
    const response = await verify('slow');
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({ error: { cause: 'SERVER_BUSY', explanation: UNANSWERED_OPERATION_EXPLANATION }, result: 'ERROR' });
    // The service was told when the edge would stop waiting: the edge's timeout (2 s here) after the send.
    const { deadline } = received.find((m) => m.transactionId === 'slow')!;
    expect(deadline).toBeGreaterThanOrEqual(sentAfter + 2_000);
    expect(deadline).toBeLessThanOrEqual(Date.now());
  });

  it('keeps the plain explanation when the service refused the operation unprocessed (past its deadline): nothing was done', async () => {
    const response = await verify('late');
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({ error: { cause: 'SERVER_BUSY', explanation: GatewayError.serverBusy().explanation }, result: 'ERROR' });
  });
});
