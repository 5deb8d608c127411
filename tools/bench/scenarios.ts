import { randomBytes } from 'node:crypto';
import { defaultMerchantSettings, RecordOperationMessage, SUBJECTS } from '@gateway/contracts';
import { GatewayNatsClient, RequestHasher } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testInfra } from '@gateway/testing';
import type { BenchMerchant, RunningGateway } from './gateway';
import type { Traffic } from './load';
import type { ScenarioName } from './options';

export interface PreparedTraffic {
  traffic: Traffic;
  /** What the report should say about the scenario, given how many requests completed. */
  notes?(requests: number): string;
}

const CARD = { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' };
const SUCCESS = '"result":"SUCCESS"';
/** The seeded records are never replayed: any key makes a well-formed hash for them. */
const seedHasher = RequestHasher.fromText(randomBytes(32).toString('base64'));

/** Runs `task(i)` for i in [0, count) with at most `parallel` in flight. */
async function inParallel(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      await task((next += 1) - 1);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

/**
 * Orders with 100.00 captured, for REFUND. Distributed: each order's card payment is recorded
 * in the ledger over the run's NATS, as order-transaction records it after the acquirer
 * approved (the fastest way to prepare tens of thousands). Standalone has no NATS to reach: each
 * order is paid with a card over HTTP (PAY), as a merchant would.
 */
export async function capturedOrders(gateway: RunningGateway, merchant: BenchMerchant, count: number): Promise<string[]> {
  const tag = randomBytes(3).toString('hex');
  const orderIds = Array.from({ length: count }, (_, i) => `br${tag}${i}`);
  if (gateway.natsPrefix) {
    const client = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'bench-seed', requestTimeoutMs: 30_000 });
    const settings = { ...defaultMerchantSettings(), testAcquirer: { latencyMs: 0 } };
    try {
      // No more at once than order-transaction's pool holds: a record waiting for a connection
      // longer than the pool's timeout fails, which a machine losing CPU to its host reaches.
      await inParallel(count, 10, async (i) => {
        const record: RecordOperationMessage = {
          envelope: { merchant: { id: merchant.id, mode: 'TEST', settings }, apiVersion: 100, requestId: `bench-seed-${i}`, authMethod: 'PASSWORD', fencingToken: '1' },
          orderId: orderIds[i],
          transactionId: 'pay-1',
          apiOperation: 'PAY',
          requestHash: seedHasher.hash({ apiOperation: 'PAY', orderId: orderIds[i] }),
          mode: 'CREATE',
          order: { currency: 'USD' },
          transaction: { type: 'PAYMENT', amount: '100.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
          response: {
            sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
            transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: `MCC${String(i).padStart(10, '0')}` }, authorizationCode: '123456' },
          },
        };
        await client.request(`${gateway.natsPrefix}${SUBJECTS.orderTransaction.ledgerRecord}`, record, 30_000).catch((err: unknown) => {
          throw new Error(`recording captured order ${orderIds[i]} failed: ${err instanceof Error ? err.message : JSON.stringify(err)}`);
        });
      });
    } finally {
      await client.close();
    }
    return orderIds;
  }
  await inParallel(count, 16, (i) => payByCard(gateway, merchant, orderIds[i]));
  return orderIds;
}

async function payByCard(gateway: RunningGateway, merchant: BenchMerchant, orderId: string): Promise<void> {
  const paid = await fetch(`${gateway.baseUrl}${merchant.base(100)}/order/${orderId}/transaction/pay-1`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ apiOperation: 'PAY', order: { amount: '100.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: CARD } } }),
  });
  const body = await paid.text();
  if (paid.status !== 201 || !body.includes(SUCCESS)) {
    throw new Error(`PAY for ${orderId} answered ${paid.status}`);
  }
}

function initiateBody(amount: string, currency = 'EUR') {
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: 'https://shop.example/return' },
    order: { amount, currency, description: 'Benchmark order' },
    sourceOfFunds: { type: 'PROVIDER_A' },
  };
}

/** Each gateway scenario's merchant, prepared data and traffic. */
export async function prepareScenario(
  scenario: Exclude<ScenarioName, `reference-${string}`>,
  gateway: RunningGateway,
  merchants: { plain: BenchMerchant; tokens: BenchMerchant },
  refundOrders: number,
): Promise<PreparedTraffic> {
  const tag = randomBytes(3).toString('hex');
  const { plain } = merchants;
  const auth = { authorization: plain.authorization };
  switch (scenario) {
    case 'verify':
    case 'verify-at-rate':
      return {
        traffic: {
          baseUrl: gateway.baseUrl,
          method: 'PUT',
          path: (n) => `${plain.base(100)}/order/bv${tag}${n}/transaction/verify-1`,
          headers: auth,
          body: JSON.stringify({ apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: CARD } } }),
          expectStatus: 201,
          expectBody: SUCCESS,
        },
      };
    case 'token-put':
      return {
        traffic: {
          baseUrl: gateway.baseUrl,
          method: 'PUT',
          path: (n) => `${merchants.tokens.base(57)}/token/bt${tag}${n}`,
          headers: { authorization: merchants.tokens.authorization },
          body: JSON.stringify({ verificationStrategy: 'NONE', sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } }),
          expectStatus: 201,
          expectBody: SUCCESS,
        },
      };
    case 'refund': {
      const started = Date.now();
      const orders = await capturedOrders(gateway, plain, refundOrders);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      return {
        // Each order in turn; should the run outlast them, the next round refunds them again
        // under new transaction ids (100.00 captured covers 100 rounds), which the notes show.
        traffic: {
          baseUrl: gateway.baseUrl,
          method: 'PUT',
          path: (n) => `${plain.base(29)}/order/${orders[n % orders.length]}/transaction/refund-${Math.floor(n / orders.length) + 1}`,
          headers: auth,
          body: JSON.stringify({ apiOperation: 'REFUND', transaction: { amount: '1.00', currency: 'USD' } }),
          expectStatus: 201,
          expectBody: SUCCESS,
        },
        notes: (requests) =>
          `${orders.length} orders with 100.00 captured, prepared in ${seconds} s ${
            gateway.natsPrefix ? 'through the ledger record subject (card payments)' : 'by card payments (PAY) over HTTP'
          }; ${requests <= orders.length ? 'each refund on an order of its own' : `${requests} refunds, so up to ${Math.ceil(requests / orders.length)} per order`}`,
      };
    }
    case 'initiate-browser-payment':
      return {
        traffic: {
          baseUrl: gateway.baseUrl,
          method: 'PUT',
          path: (n) => `${plain.base(32)}/order/bb${tag}${n}/transaction/pay-1`,
          headers: auth,
          body: JSON.stringify(initiateBody('42.50')),
          expectStatus: 201,
          expectBody: '"result":"PENDING"',
        },
      };
    case 'unauthenticated':
      return {
        traffic: {
          baseUrl: gateway.baseUrl,
          method: 'PUT',
          path: (n) => `${plain.base(100)}/order/bu${tag}${n}/transaction/verify-1`,
          body: JSON.stringify({ apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: CARD } } }),
          expectStatus: 401,
        },
      };
    case 'refund-overload':
      // Open loop with its own checks of every answer and the ledger: tools/bench/refund-overload.ts.
      throw new Error('refund-overload is measured by measureRefundOverload, not as plain traffic');
  }
}
