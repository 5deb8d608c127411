import { setTimeout as sleep } from 'node:timers/promises';
import {
  defaultMerchantSettings,
  JsonObject,
  MerchantContext,
  OperationReply,
  OrderOperationMessage,
  SUBJECTS,
  WireError,
} from '@gateway/contracts';
import { GatewayNatsClient } from '@gateway/platform';
import { TEST_CARD, testInfra } from '@gateway/testing';
import { firstValueFrom } from 'rxjs';
import { ApiResponse, call, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { acquirerRefundCalls } from '../support/metrics';
import { seededCardPayment } from '../support/seeded-payments';

/**
 * Refunds across processes in the distributed profile: the edge with its Redis order lock,
 * order-transaction on NATS, Postgres. No operation captures funds over HTTP yet (card PAY is
 * issue 9), so each order's payment is seeded by recording it in the ledger over the run's NATS,
 * as the paying service will.
 */
const ACQUIRER_LATENCY_MS = 150;

describe('refunds across processes (payments seeded through the ledger over NATS)', () => {
  const client = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'e2e-refund', requestTimeoutMs: 10_000 });
  let orderSequence = 0;
  const newOrderId = () => `refund-${Date.now()}-${(orderSequence += 1)}`;
  const subject = (name: string) => `${readState().natsPrefix}${name}`;

  afterAll(async () => {
    await client.close();
  });

  /** The merchant as services see it in envelopes (the edge sends this slice). */
  function contextOf(merchant: TestMerchant, latencyMs = 0): MerchantContext {
    return { id: merchant.id, mode: 'TEST', settings: { ...defaultMerchantSettings(), testAcquirer: { latencyMs } } };
  }

  async function seedCardPayment(merchant: TestMerchant, orderId: string, amount: string): Promise<void> {
    await firstValueFrom(client.send(subject(SUBJECTS.orderTransaction.ledgerRecord), seededCardPayment(contextOf(merchant), orderId, amount)));
  }

  const refundBody = (amount: string, extra: JsonObject = {}) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'USD' }, ...extra });

  function putRefund(merchant: TestMerchant, orderId: string, transactionId: string, body: unknown): Promise<ApiResponse<JsonObject>> {
    return call<JsonObject>('PUT', `${merchant.base(29)}/order/${orderId}/transaction/${transactionId}`, { authorization: merchant.authorization, body });
  }

  const getOrder = (merchant: TestMerchant, orderId: string) => call<JsonObject>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization });
  const isLockFailure = (r: ApiResponse<JsonObject>) => r.status === 201 && (r.body.response as JsonObject | undefined)?.gatewayCode === 'LOCK_FAILURE';
  const outcome = (r: ApiResponse<JsonObject>) =>
    r.status === 201 ? String(r.body.result) : `${r.status}:${String((r.body.error as JsonObject | undefined)?.field)}`;

  it('20 concurrent refunds of 10.00 through the edge (Redis lock) on 100.00 captured: exactly 10 succeed, 100.00 refunded', async () => {
    // The acquirer's latency keeps each refund holding the order's lock longer than the
    // edge's 100 ms lock wait, so the others really get LOCK_FAILURE and retry.
    const merchant = await createMerchant({ 'testAcquirer.latencyMs': ACQUIRER_LATENCY_MS });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, '100.00');
    const callsBefore = await acquirerRefundCalls();

    let lockFailures = 0;
    /** LOCK_FAILURE created nothing: the same transaction id is retried, as a merchant would. */
    async function refundUntilProcessed(transactionId: string): Promise<string> {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const response = await putRefund(merchant, orderId, transactionId, refundBody('10.00'));
        if (!isLockFailure(response)) {
          return outcome(response);
        }
        lockFailures += 1;
        await sleep(20 + Math.floor(Math.random() * 60));
      }
      throw new Error(`${transactionId} never got the order's lock`);
    }
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => refundUntilProcessed(`r${i}`)));

    expect(outcomes.filter((o) => o === 'SUCCESS')).toHaveLength(10);
    expect(outcomes.filter((o) => o === '400:transaction.amount')).toHaveLength(10);
    expect(lockFailures).toBeGreaterThan(0);
    const order = await getOrder(merchant, orderId);
    expect(order.text).toMatch(/"totalRefundedAmount":100[,}]/);
    expect(order.body).toMatchObject({ status: 'REFUNDED', totalCapturedAmount: 100 });
    expect(order.body.transaction as JsonObject[]).toHaveLength(11);
    expect((await acquirerRefundCalls()) - callsBefore).toBe(10);
  });

  it('the same with the Redis lock bypassed (refund subject over NATS, distinct fencing tokens): the database alone lets exactly 10 through', async () => {
    const merchant = await createMerchant({ 'testAcquirer.latencyMs': ACQUIRER_LATENCY_MS });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, '100.00');
    const callsBefore = await acquirerRefundCalls();

    let token = 1n;
    /** A refund refused for its stale token (ORDER_LOCK_LOST) is retried with a newer one, as with a new lease. */
    async function refundOverNats(transactionId: string): Promise<string> {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        token += 1n;
        const message: OrderOperationMessage = {
          envelope: {
            merchant: contextOf(merchant, ACQUIRER_LATENCY_MS),
            apiVersion: 29,
            requestId: `e2e-bypass-${transactionId}-${attempt}`,
            authMethod: 'PASSWORD',
            fencingToken: token.toString(),
          },
          apiOperation: 'REFUND',
          orderId,
          transactionId,
          body: refundBody('10.00'),
        };
        try {
          const reply = await firstValueFrom(client.send<OperationReply>(subject(SUBJECTS.orderTransaction.refund), message));
          return String(reply.body.result);
        } catch (err) {
          const wire = err as WireError;
          if (wire.code !== 'ORDER_LOCK_LOST') {
            return `${wire.code}:${wire.field}`;
          }
        }
      }
      throw new Error(`${transactionId} kept losing to newer tokens`);
    }
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => refundOverNats(`r${i}`)));

    expect(outcomes.filter((o) => o === 'SUCCESS')).toHaveLength(10);
    expect(outcomes.filter((o) => o === 'INVALID_FIELD:transaction.amount')).toHaveLength(10);
    const order = await getOrder(merchant, orderId);
    expect(order.text).toMatch(/"totalRefundedAmount":100[,}]/);
    expect(order.body.status).toBe('REFUNDED');
    // Money moved exactly for the refunds the ledger recorded, however the tokens raced.
    expect((await acquirerRefundCalls()) - callsBefore).toBe(10);
  });

  it('replays a resubmitted refund with the identical body and no acquirer call; another amount is a 400', async () => {
    const merchant = await createMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, '50.00');
    const body = refundBody('20.00', { correlationId: 'till-4' });
    const first = await putRefund(merchant, orderId, 'r1', body);
    expect(first.status).toBe(201);
    expect(first.body.result).toBe('SUCCESS');
    const calls = await acquirerRefundCalls();

    const again = await putRefund(merchant, orderId, 'r1', body);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(await acquirerRefundCalls()).toBe(calls);

    const changed = await putRefund(merchant, orderId, 'r1', refundBody('21.00'));
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ result: 'ERROR', error: { cause: 'INVALID_REQUEST' } });
    expect(await acquirerRefundCalls()).toBe(calls);
    expect((await getOrder(merchant, orderId)).body).toMatchObject({ totalRefundedAmount: 20, status: 'PARTIALLY_REFUNDED' });
  });

  it('sums refunds of 0.1 and 0.2 to exactly 0.3 in the totals and the responses', async () => {
    const merchant = await createMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, '0.30');
    expect((await putRefund(merchant, orderId, 'r1', refundBody('0.1'))).status).toBe(201);
    const second = await putRefund(merchant, orderId, 'r2', refundBody('0.2'));
    expect(second.text).toMatch(/"totalRefundedAmount":0\.3[,}]/);
    expect(second.body).toMatchObject({ order: { status: 'REFUNDED' }, transaction: { amount: 0.2 } });
    expect((await getOrder(merchant, orderId)).text).toMatch(/"totalRefundedAmount":0\.3[,}]/);
  });

  it('retrieval returns what the refund wrote, the card masked', async () => {
    const merchant = await createMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, '30.00');
    const refunded = await putRefund(merchant, orderId, 'r1', refundBody('30.00', { order: { reference: 'RMA-1' }, transaction: { amount: '30.00', currency: 'USD', reference: 'rf-1' } }));
    expect(refunded.status).toBe(201);

    const transaction = await call<JsonObject>('GET', `${merchant.base(29)}/order/${orderId}/transaction/r1`, { authorization: merchant.authorization });
    expect(transaction.status).toBe(200);
    expect(transaction.text).toBe(refunded.text);
    expect(transaction.text).not.toContain(TEST_CARD);
    expect(transaction.body).toMatchObject({
      order: { status: 'REFUNDED', reference: 'RMA-1' },
      transaction: { type: 'REFUND', reference: 'rf-1', targetTransactionId: 'pay-1', acquirer: { id: 'TEST_ACQUIRER' } },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
    });
    const order = await getOrder(merchant, orderId);
    expect(order.text).not.toContain(TEST_CARD);
    expect(order.body).toMatchObject({ reference: 'RMA-1', status: 'REFUNDED', transaction: [{ transaction: { id: 'pay-1' } }, { transaction: { id: 'r1' } }] });
  });
});
