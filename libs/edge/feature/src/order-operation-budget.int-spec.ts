import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GatewayError, OperationReply, RetrieveTransactionMessage, SealCardMessage, SealCardReply, SUBJECTS } from '@gateway/contracts';
import { UNANSWERED_OPERATION_EXPLANATION } from '@gateway/edge/domain';
import { TEST_CARD } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from './testing/edge-test-app';

/** The edge's wait for a service (startEdgeTestApp's), and how long the vault takes to seal a card without its code. */
const REQUEST_TIMEOUT_MS = 2_000;
const SLOW_SEAL_MS = 1_200;

/** The deadlines the edge stamped, by subject, and the operations held unanswered. */
const stamped: { subject: string; deadline?: number }[] = [];
const heldBack: (() => void)[] = [];

/** A vault slow to seal a session's card without its security code, and a ledger that holds no response and never answers the operation. */
@Controller()
class SlowVaultAndLedger {
  @MessagePattern(SUBJECTS.tokenVault.sealCard)
  async seal(@Payload() message: SealCardMessage): Promise<SealCardReply> {
    stamped.push({ subject: SUBJECTS.tokenVault.sealCard, deadline: message.deadline });
    if (message.withoutSecurityCode) {
      await new Promise((resolve) => setTimeout(resolve, SLOW_SEAL_MS));
      return { sealed: 'sealed-without-code', card: {}, securityCodePresent: false };
    }
    return { sealed: 'sealed-with-code', card: {}, securityCodePresent: message.card.securityCode !== undefined };
  }

  @MessagePattern(SUBJECTS.orderTransaction.retrieveTransaction)
  retrieveTransaction(@Payload() message: RetrieveTransactionMessage): Promise<OperationReply> {
    stamped.push({ subject: SUBJECTS.orderTransaction.retrieveTransaction, deadline: message.deadline });
    return Promise.reject(new GatewayError('NOT_FOUND', { explanation: 'no transaction' }));
  }

  @MessagePattern(SUBJECTS.orderTransaction.verify)
  verify(@Payload() message: { deadline?: number }): Promise<never> {
    stamped.push({ subject: SUBJECTS.orderTransaction.verify, deadline: message.deadline });
    return new Promise((_, reject) => heldBack.push(() => reject(GatewayError.serverBusy())));
  }
}

/**
 * docs/decisions/shutdown-grace.md, amendment on one budget: an order operation taking a session's
 * security code sends the replay check, the seal and the operation under the order's lock within
 * one NATS_REQUEST_TIMEOUT_MS, not one each.
 */
describe("an order operation taking a session's security code", () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    edge = await startEdgeTestApp({ controllers: [SlowVaultAndLedger], requestTimeoutMs: REQUEST_TIMEOUT_MS });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    heldBack.forEach((answer) => answer());
    await edge?.close();
  });

  const call = (method: 'POST' | 'PUT', url: string, body: object) =>
    edge.fastify.inject({
      method,
      url: `/api/rest/version/100/merchant/${merchant.id}${url}`,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('waits one request timeout in all, the slow seal leaving the operation only the rest, every request stamped with the same deadline', async () => {
    const card = { number: TEST_CARD, expiry: { month: '1', year: '39' }, securityCode: '100' };
    const session = (await call('POST', '/session', { sourceOfFunds: { provided: { card } } })).json() as { session: { id: string } };
    stamped.length = 0;

    const started = Date.now();
    const response = await call('PUT', '/order/o-budget/transaction/t1', {
      apiOperation: 'VERIFY',
      order: { currency: 'USD' },
      session: { id: session.session.id },
      sourceOfFunds: { type: 'CARD' },
    });
    const took = Date.now() - started;

    // The operation was sent and not answered in time: it may have been processed.
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ error: { cause: 'SERVER_BUSY', explanation: UNANSWERED_OPERATION_EXPLANATION }, result: 'ERROR' });
    expect(stamped.map(({ subject }) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.tokenVault.sealCard, SUBJECTS.orderTransaction.verify]);
    expect(new Set(stamped.map(({ deadline }) => deadline)).size).toBe(1);
    // One budget: about 2 s from the lock, not 1.2 s for the seal and then 2 s more for the operation.
    expect(took).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(took).toBeLessThan(REQUEST_TIMEOUT_MS + SLOW_SEAL_MS / 2);
  });
});
