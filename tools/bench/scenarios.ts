import { randomBytes } from 'node:crypto';
import { defaultMerchantSettings, RecordOperationMessage, SUBJECTS } from '@gateway/contracts';
import { canonicalRequestHash, GatewayNatsClient } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testInfra } from '@gateway/testing';
import { firstValueFrom } from 'rxjs';
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
 * in the ledger over the run's NATS, as the paying service records it (no operation captures a
 * card over HTTP on main yet). Standalone has no NATS to reach: a provider_a browser payment
 * (PAY, confirmed at the provider) walked through over HTTP, as a payer's browser would.
 */
async function capturedOrders(gateway: RunningGateway, merchant: BenchMerchant, count: number): Promise<string[]> {
  const tag = randomBytes(3).toString('hex');
  const orderIds = Array.from({ length: count }, (_, i) => `br${tag}${i}`);
  if (gateway.natsPrefix) {
    const client = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'bench-seed', requestTimeoutMs: 30_000 });
    const settings = { ...defaultMerchantSettings(), testAcquirer: { latencyMs: 0 } };
    try {
      await inParallel(count, 64, async (i) => {
        const record: RecordOperationMessage = {
          envelope: { merchant: { id: merchant.id, mode: 'TEST', settings }, apiVersion: 100, requestId: `bench-seed-${i}`, authMethod: 'PASSWORD', fencingToken: '1' },
          orderId: orderIds[i],
          transactionId: 'pay-1',
          apiOperation: 'PAY',
          requestHash: canonicalRequestHash({ apiOperation: 'PAY', orderId: orderIds[i] }),
          mode: 'CREATE',
          order: { currency: 'USD' },
          transaction: { type: 'PAYMENT', amount: '100.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
          response: {
            sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
            transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: `MCC${String(i).padStart(10, '0')}` }, authorizationCode: '123456' },
          },
        };
        await firstValueFrom(client.send(`${gateway.natsPrefix}${SUBJECTS.orderTransaction.ledgerRecord}`, record));
      });
    } finally {
      await client.close();
    }
    return orderIds;
  }
  await inParallel(count, 8, (i) => payThroughBrowserPayment(gateway, merchant, orderIds[i]));
  return orderIds;
}

async function payThroughBrowserPayment(gateway: RunningGateway, merchant: BenchMerchant, orderId: string): Promise<void> {
  const initiated = await fetch(`${gateway.baseUrl}${merchant.base(32)}/order/${orderId}/transaction/pay-1`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(initiateBody('100.00', 'USD')),
  });
  const redirectUrl = ((await initiated.json()) as { browserPayment?: { redirectUrl?: string } }).browserPayment?.redirectUrl;
  if (initiated.status !== 201 || !redirectUrl) {
    throw new Error(`INITIATE_BROWSER_PAYMENT for ${orderId} answered ${initiated.status}`);
  }
  const page = await (await fetch(redirectUrl)).text();
  const approve = /<form method="post" action="([^"]+)"><button id="approve"/.exec(page)?.[1];
  if (!approve) {
    throw new Error(`the provider page of ${orderId} has no approve form`);
  }
  const decided = await fetch(new URL(approve.replace(/&amp;/g, '&'), redirectUrl), { method: 'POST', redirect: 'manual' });
  const back = decided.headers.get('location');
  if (!back) {
    throw new Error(`approving ${orderId} answered ${decided.status} without a redirect`);
  }
  const returned = await fetch(new URL(back, redirectUrl), { redirect: 'manual' });
  if (returned.status >= 400) {
    throw new Error(`the payer's return of ${orderId} answered ${returned.status}`);
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
            gateway.natsPrefix ? 'through the ledger record subject (card payments)' : 'through provider_a browser payments (refunds go to the provider simulator)'
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
  }
}
