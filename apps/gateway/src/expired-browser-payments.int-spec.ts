import { randomBytes } from 'node:crypto';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import type { JsonObject } from '@gateway/contracts';
import { dataSourceToken } from '@gateway/platform';
import { waitFor } from '@gateway/testing';
import type { DataSource } from 'typeorm';
import { startBrowserPaymentGateway, TestGateway, TestGatewayMerchant } from './testing/test-gateway';

/**
 * Browser payments whose redirect token expired before the journey ended, settled by the edge's
 * own sweep on its timer (every 200 ms here, tokens good for 2 s): the real sweeper, order
 * locks, browser-payment service, provider simulator and ledger in one process on the run's
 * Postgres, observed the way a merchant would, by retrieving the order.
 */
const TOKEN_TTL_MS = 2_000;
let gateway: TestGateway;
let merchant: TestGatewayMerchant;

beforeAll(async () => {
  gateway = await startBrowserPaymentGateway({
    BROWSER_PAYMENT_TOKEN_TTL_SECONDS: String(TOKEN_TTL_MS / 1_000),
    BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '200',
  });
  merchant = await gateway.newMerchant();
});

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

const RETURN_URL = 'https://shop.example/return';

function initiateBody(paymentConfirmation: 'CONFIRM_AT_PROVIDER' | 'CONFIRM_AT_MERCHANT' = 'CONFIRM_AT_PROVIDER'): JsonObject {
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation } },
    order: { amount: '30.00', currency: 'EUR' },
    sourceOfFunds: { type: 'PROVIDER_A' },
  };
}

const put = (orderId: string, body: JsonObject) =>
  gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/bp-1`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function order(orderId: string): Promise<JsonObject> {
  const response = await gateway.fetch(`${merchant.base()}/order/${orderId}`, { headers: { authorization: merchant.authorization } });
  expect(response.status).toBe(200);
  return response.body;
}

/** The order's one transaction, as retrieval shows it. */
const transactionOf = (body: JsonObject) => (body.transaction as JsonObject[])[0];
const interactionStatus = (transaction: JsonObject) => ((transaction.browserPayment as JsonObject).interaction as JsonObject).status;

async function initiated(paymentConfirmation?: 'CONFIRM_AT_PROVIDER' | 'CONFIRM_AT_MERCHANT', body = initiateBody(paymentConfirmation)) {
  const orderId = `exp-${randomBytes(5).toString('hex')}`;
  const response = await put(orderId, body);
  expect(response.status).toBe(201);
  const redirectUrl = (response.body.browserPayment as JsonObject).redirectUrl as string;
  return { orderId, redirectUrl, initiatedAt: Date.now() };
}

/** The payer opens the provider's page and clicks, and never comes back to the gateway; the way back (the in URL) is returned. */
async function payerLeavesAfter(redirectUrl: string, decision: 'approve' | 'cancel' | null): Promise<string | undefined> {
  const page = await gateway.fetch(redirectUrl);
  expect(page.status).toBe(200);
  if (decision) {
    const action = new RegExp(`action="([^"]+/${decision})"`).exec(page.text)![1];
    const decided = await gateway.fetch(action, { method: 'POST' });
    expect(decided.status).toBe(303);
    return decided.headers.get('location') ?? undefined;
  }
  return undefined;
}

/** Waits until the sweep moved the order away from INITIATED. */
const settled = (orderId: string) =>
  waitFor(async () => {
    const body = await order(orderId);
    return body.status !== 'INITIATED' && body;
  }, { timeoutMs: TOKEN_TTL_MS + 8_000, intervalMs: 100, what: `order ${orderId} settled` });

describe('browser payments past their redirect token', () => {
  it('never opened: the sweep fails it TIMED_OUT once the token expired, not before', async () => {
    const journey = await initiated();
    const body = await settled(journey.orderId);
    expect(Date.now() - journey.initiatedAt).toBeGreaterThanOrEqual(TOKEN_TTL_MS);
    expect(body).toMatchObject({ status: 'FAILED', totalCapturedAmount: 0 });
    expect(transactionOf(body)).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'TIMED_OUT' },
      browserPayment: { interaction: { status: 'INITIATED' } },
    });
  });

  it("timed out: the payment keeps its request without the payer's data, and the ledger's record of it still has it", async () => {
    const payments = gateway.running.app.get<string, DataSource>(dataSourceToken(BROWSER_PAYMENT_SCHEMA.schema) as string, { strict: false });
    const request = async (orderId: string): Promise<JsonObject> =>
      (await payments.query('SELECT request FROM browser_payment.payments WHERE merchant_id = $1 AND order_id = $2', [merchant.id, orderId]))[0].request;
    const body = initiateBody();
    Object.assign(body, {
      order: { amount: '30.00', currency: 'EUR', reference: 'ref-7', custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
      customer: { email: 'zelda@example.org' },
      shipping: { contact: { firstName: 'Zelda', phone: '+4479460000' } },
      transaction: { merchantNote: 'called back' },
    });
    const journey = await initiated(undefined, body);
    expect(await request(journey.orderId)).toMatchObject({ customer: { email: 'zelda@example.org' }, order: { custom: { colour: 'mauve' } } });

    const settledBody = await settled(journey.orderId);
    expect(transactionOf(settledBody)).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'TIMED_OUT' },
      order: { custom: { colour: 'mauve' } },
      shipping: { contact: { firstName: 'Zelda' } },
      transaction: { merchantNote: 'called back' },
    });
    expect(await request(journey.orderId)).toEqual({
      browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' } },
      order: { amount: '30.00', currency: 'EUR', reference: 'ref-7' },
      sourceOfFunds: { type: 'PROVIDER_A' },
      transaction: {},
    });
  });

  it('left at the provider undecided: TIMED_OUT', async () => {
    const journey = await initiated();
    await payerLeavesAfter(journey.redirectUrl, null);
    const body = await settled(journey.orderId);
    expect(transactionOf(body)).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'TIMED_OUT' },
      browserPayment: { interaction: { status: 'REDIRECTED_TO_PROVIDER' } },
    });
  });

  it('approved at the provider (CONFIRM_AT_PROVIDER), never back: the payment is executed and the order CAPTURED', async () => {
    const journey = await initiated();
    await payerLeavesAfter(journey.redirectUrl, 'approve');
    const body = await settled(journey.orderId);
    expect(body).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 30 });
    expect(transactionOf(body)).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      browserPayment: { interaction: { status: 'COMPLETED' } },
    });
  });

  it('approved at the provider just before the token expired, back after it: sent on to the merchant, not told to start again, and charged once', async () => {
    const journey = await initiated();
    const wayBack = await payerLeavesAfter(journey.redirectUrl, 'approve');
    await new Promise((resolve) => setTimeout(resolve, journey.initiatedAt + TOKEN_TTL_MS + 100 - Date.now()));
    // Whether the sweep settled it first or not, the payer lands at the shop.
    const back = await gateway.fetch(wayBack!);
    expect([back.status, back.headers.get('location')]).toEqual([303, `${RETURN_URL}?orderId=${journey.orderId}&transactionId=bp-1`]);
    const body = await settled(journey.orderId);
    expect(body).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 30 });
    expect(transactionOf(body)).toMatchObject({ result: 'SUCCESS', browserPayment: { interaction: { status: 'COMPLETED' } } });
  });

  it('approved at the provider (CONFIRM_AT_MERCHANT), never back: left for the merchant, whose confirm then captures it', async () => {
    const journey = await initiated('CONFIRM_AT_MERCHANT');
    await payerLeavesAfter(journey.redirectUrl, 'approve');
    const returned = await waitFor(async () => {
      const transaction = transactionOf(await order(journey.orderId));
      return interactionStatus(transaction) === 'RETURNED_TO_MERCHANT' && transaction;
    }, { timeoutMs: TOKEN_TTL_MS + 8_000, intervalMs: 100, what: 'the payment returned' });
    expect(returned).toMatchObject({ result: 'PENDING', browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } } });
    const confirmed = await put(journey.orderId, { apiOperation: 'CONFIRM_BROWSER_PAYMENT' });
    expect(confirmed.body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 30 } });
  });

  it('approved and back (CONFIRM_AT_MERCHANT), never confirmed: left alone within the confirm window; past it, released at the provider and TIMED_OUT, and a late confirm refused', async () => {
    const payments = gateway.running.app.get<string, DataSource>(dataSourceToken(BROWSER_PAYMENT_SCHEMA.schema) as string, { strict: false });
    const row = async (orderId: string): Promise<{ request: JsonObject; providerStatus: string }> =>
      (
        await payments.query(
          `SELECT p.request, s.status AS "providerStatus"
             FROM browser_payment.payments p JOIN browser_payment.simulated_provider_payments s ON s.reference = p.provider_reference
            WHERE p.merchant_id = $1 AND p.order_id = $2`,
          [merchant.id, orderId],
        )
      )[0];
    const body = initiateBody('CONFIRM_AT_MERCHANT');
    Object.assign(body, { customer: { email: 'zelda@example.org' } });
    const journey = await initiated('CONFIRM_AT_MERCHANT', body);
    const wayBack = await payerLeavesAfter(journey.redirectUrl, 'approve');
    const back = await gateway.fetch(wayBack!);
    expect(back.status).toBe(303);

    // The token expired, and the sweep has run several times since: within the window, nothing moves.
    await new Promise((resolve) => setTimeout(resolve, journey.initiatedAt + TOKEN_TTL_MS + 1_500 - Date.now()));
    const waiting = await order(journey.orderId);
    expect(waiting.status).toBe('INITIATED');
    expect(transactionOf(waiting)).toMatchObject({ result: 'PENDING', browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } } });
    expect(await row(journey.orderId)).toMatchObject({ providerStatus: 'APPROVED', request: { customer: { email: 'zelda@example.org' } } });

    // The payer came back longer ago than the confirm window (72 hours unless configured).
    await payments.query(
      `UPDATE browser_payment.payments SET time_returned = time_returned - interval '72 hours 1 minute' WHERE merchant_id = $1 AND order_id = $2`,
      [merchant.id, journey.orderId],
    );
    const ended = await settled(journey.orderId);
    expect(ended).toMatchObject({ status: 'FAILED', totalCapturedAmount: 0 });
    expect(transactionOf(ended)).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'TIMED_OUT' },
      browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } },
    });
    const after = await row(journey.orderId);
    expect(after.providerStatus).toBe('ABANDONED');
    expect(after.request).not.toHaveProperty('customer');

    const late = await put(journey.orderId, { apiOperation: 'CONFIRM_BROWSER_PAYMENT' });
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ result: 'ERROR', error: { field: 'apiOperation', validationType: 'INVALID' } });
    expect((late.body.error as JsonObject).explanation).toMatch(/timed out.*not confirmed within the confirm window/);
    expect(await order(journey.orderId)).toMatchObject({ status: 'FAILED', totalCapturedAmount: 0 });
    expect((await row(journey.orderId)).providerStatus).toBe('ABANDONED');
  });
});
