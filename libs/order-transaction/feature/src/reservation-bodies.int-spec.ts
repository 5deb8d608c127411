import { ACQUIRER_WIRE, Pan, parseCardExpiry, TestAcquirer } from '@gateway/acquirer';
import { AcquirerCallMessage, GatewayError, JsonObject, MerchantContext, OrderApiOperation, SUBJECTS } from '@gateway/contracts';
import { canonicalJson, standaloneBus } from '@gateway/platform';
import { checkResponse, describeViolations, TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';
import { LedgerTestApp, newOrderId, nextFence, operateAs, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';

/**
 * The body a merchant's retry gets while its card operation waits for the acquirer: the
 * reservation's PENDING body as the ledger stored it, which is also the answer for good when the
 * process dies before the completion. Held, as the edge renders it, to the spec's response rules
 * (libs/testing response-conformance.ts, the checker every e2e answer passes): it must carry what
 * the spec ALWAYS PROVIDES (the card's brand, scheme and funding method, transaction.acquirer.id)
 * and nothing only the acquirer can say (docs/decisions/card-payment-rules.md, amendment
 * 2026-11-26 "what a reservation's body shows"). The real handlers on the in-process bus, the
 * real ledger and Postgres, the built-in test acquirer made slow.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

/** How long the acquirer (or the stand-in vault) takes: the retry is sent well inside it. */
const ACQUIRER_LATENCY_MS = 700;
const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } };
const usd = (amount: string) => ({ amount, currency: 'USD' });

/** The merchant as one of its requests reaches the ledger with a slow test acquirer (the settings travel in the envelope). */
const slow = (merchant: MerchantContext): MerchantContext => ({
  ...merchant,
  settings: { ...merchant.settings, testAcquirer: { ...merchant.settings.testAcquirer, latencyMs: ACQUIRER_LATENCY_MS } },
});

interface Exchange {
  apiOperation: OrderApiOperation;
  orderId: string;
  transactionId: string;
  request: JsonObject;
}

/** The merchant's answer as the edge renders it (api-response.ts renderResponse: merchant and version added, keys sorted), checked. */
function violations(merchant: MerchantContext, exchange: Exchange, body: JsonObject): string | undefined {
  const text = canonicalJson({ ...body, merchant: merchant.id, version: '100' });
  const request = {
    method: 'PUT',
    path: `/api/rest/version/100/merchant/${merchant.id}/order/${exchange.orderId}/transaction/${exchange.transactionId}`,
    body: { apiOperation: exchange.apiOperation, ...exchange.request },
  };
  const found = checkResponse(request, { status: 201, body: JSON.parse(text), text });
  return found.length === 0 ? undefined : describeViolations(request, 201, found);
}

async function resultOf(merchant: MerchantContext, orderId: string, transactionId: string): Promise<string | undefined> {
  const rows = await app.dataSource.query(
    'SELECT result FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3',
    [merchant.id, orderId, transactionId],
  );
  return rows[0]?.result;
}

/**
 * Sends the operation, and once its reservation is written sends it again, as a merchant's retry
 * (the same ids and body; the same fencing token: no lock between them, as two copies racing
 * past a lost one): the retry is answered the stored PENDING body. Then the first completes.
 */
async function duringTheCall(merchant: MerchantContext, exchange: Exchange): Promise<{ pending: JsonObject; completed: JsonObject; replayed: JsonObject }> {
  const { orderId, transactionId, apiOperation, request } = exchange;
  const fencingToken = nextFence();
  const send = () => operateAs(app, merchant, orderId, transactionId, apiOperation, request, fencingToken);
  const first = send();
  await waitFor(async () => (await resultOf(merchant, orderId, transactionId)) === 'PENDING', { intervalMs: 10, what: `${apiOperation} reserved` });
  const pending = await send();
  const completed = await first;
  return { pending, completed, replayed: await send() };
}

/** What is set up before the operation held (at the acquirer's normal speed), and the operation itself. */
interface Case {
  name: string;
  setup?: (merchant: MerchantContext, orderId: string) => Promise<unknown>;
  exchange: (orderId: string) => Exchange;
}

const pay = (merchant: MerchantContext, orderId: string, apiOperation: 'PAY' | 'AUTHORIZE', transactionId = 'p1') =>
  operateAs(app, merchant, orderId, transactionId, apiOperation, { order: usd('50.00'), sourceOfFunds: card });

const CASES: Case[] = [
  { name: 'AUTHORIZE', exchange: (orderId) => ({ apiOperation: 'AUTHORIZE', orderId, transactionId: 'a1', request: { order: usd('50.00'), sourceOfFunds: card } }) },
  { name: 'PAY', exchange: (orderId) => ({ apiOperation: 'PAY', orderId, transactionId: 'p1', request: { order: usd('50.00'), sourceOfFunds: card } }) },
  {
    name: 'CAPTURE',
    setup: (merchant, orderId) => pay(merchant, orderId, 'AUTHORIZE', 'a1'),
    exchange: (orderId) => ({ apiOperation: 'CAPTURE', orderId, transactionId: 'c1', request: { transaction: usd('20.00') } }),
  },
  {
    name: 'REFUND of a payment',
    setup: (merchant, orderId) => pay(merchant, orderId, 'PAY'),
    exchange: (orderId) => ({ apiOperation: 'REFUND', orderId, transactionId: 'r1', request: { transaction: usd('20.00') } }),
  },
  {
    name: 'standalone REFUND to a card',
    exchange: (orderId) => ({ apiOperation: 'REFUND', orderId, transactionId: 'r1', request: { transaction: usd('20.00'), sourceOfFunds: card } }),
  },
  {
    name: 'VOID of a payment',
    setup: (merchant, orderId) => pay(merchant, orderId, 'PAY'),
    exchange: (orderId) => ({ apiOperation: 'VOID', orderId, transactionId: 'v1', request: { transaction: { targetTransactionId: 'p1' } } }),
  },
];

describe('the PENDING body a retry gets while a card operation is at the acquirer', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: conforms to the spec, and the completion replaces it', async (_name, { setup, exchange }) => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await setup?.(merchant, orderId);
    const held = exchange(orderId);
    const { pending, completed, replayed } = await duringTheCall(slow(merchant), held);
    expect(violations(merchant, held, pending)).toBeUndefined();
    expect(pending).toMatchObject({ result: 'PENDING', response: { gatewayCode: 'PENDING' }, transaction: { acquirer: { id: 'TEST_ACQUIRER' } } });
    // Nothing only the acquirer can say.
    expect(pending.transaction).not.toHaveProperty('authorizationCode');
    expect(pending.transaction).not.toHaveProperty('receipt');
    expect(pending.transaction).not.toHaveProperty('acquirer.transactionId');
    expect(pending).not.toHaveProperty('authorizationResponse');
    expect(completed).toMatchObject({ result: 'SUCCESS', transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: expect.any(String) } } });
    expect(violations(merchant, held, completed)).toBeUndefined();
    expect(replayed).toEqual(completed);
  });

  it('a card payment shows the card the request gave, with its BIN\'s brand, scheme and funding method', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const { pending, completed } = await duringTheCall(slow(merchant), CASES[1].exchange(orderId));
    const shown = { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' };
    expect(pending.sourceOfFunds).toEqual({ type: 'CARD', provided: { card: shown } });
    expect(completed.sourceOfFunds).toEqual({ type: 'CARD', provided: { card: shown } });
  });
});

describe('a payment through the token vault before the vault answered', () => {
  afterEach(() => standaloneBus.unregister(SUBJECTS.tokenVault.acquirerCall));

  const token = '9999999999999999';

  /** A slow stand-in answering as the vault does: the test acquirer's result in wire form, and the card it completed, masked. */
  function slowVault(): void {
    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async (data) => {
      const message = data as AcquirerCallMessage;
      await new Promise((resolve) => setTimeout(resolve, ACQUIRER_LATENCY_MS));
      const wire = ACQUIRER_WIRE[message.operation as 'PAY'];
      const stored = { number: Pan.of(TEST_CARD), expiry: parseCardExpiry('1', '39') };
      const result = await new TestAcquirer().pay({ ...wire.decodeRequest(message.request), card: stored });
      return { result: wire.encodeResult(result), card: { number: '512345xxxxxx0008', expiry: TEST_EXPIRY.APPROVED, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' } };
    });
  }

  it.each([
    ['a token alone', { token }],
    ['a token and the name on the card', { token, provided: { card: { nameOnCard: 'A Payer' } } }],
    ['a token and the request\'s own card number', { token, provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } }],
  ])('with %s: conforms to the spec', async (_name, sourceOfFunds) => {
    slowVault();
    const merchant = testMerchant();
    const held: Exchange = { apiOperation: 'PAY', orderId: newOrderId(), transactionId: 'p1', request: { order: usd('20.00'), sourceOfFunds } };
    const { pending, completed } = await duringTheCall(merchant, held);
    expect(violations(merchant, held, pending)).toBeUndefined();
    expect(pending).toMatchObject({ result: 'PENDING', sourceOfFunds: { token }, transaction: { acquirer: { id: 'TEST_ACQUIRER' } } });
    expect(completed).toMatchObject({ result: 'SUCCESS' });
    expect(violations(merchant, held, completed)).toBeUndefined();
  });

  it('recorded UNKNOWN when the vault fails after the request reached it: names the acquirer it went to, and conforms', async () => {
    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async () => {
      throw GatewayError.serverFailed().toWire();
    });
    const merchant = testMerchant();
    const held: Exchange = { apiOperation: 'PAY', orderId: newOrderId(), transactionId: 'p1', request: { order: usd('20.00'), sourceOfFunds: { token } } };
    const body = await operateAs(app, merchant, held.orderId, 'p1', 'PAY', held.request);
    expect(violations(merchant, held, body)).toBeUndefined();
    expect(body).toMatchObject({ result: 'UNKNOWN', transaction: { acquirer: { id: 'TEST_ACQUIRER' } } });
  });
});
