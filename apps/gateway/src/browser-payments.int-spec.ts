import { randomBytes } from 'node:crypto';
import { defaultMerchantSettings, JsonObject, ProviderRefundMessage, ProviderRefundReply, SUBJECTS } from '@gateway/contracts';
import { BROWSER_PAYMENT_SCHEMA, SimulatedProviderRepository } from '@gateway/browser-payment/data-access';
import { LOCK_SERVICE, LockService } from '@gateway/locking';
import { canonicalJson, dataSourceToken } from '@gateway/platform';
import { DataSource } from 'typeorm';
import { PUBLIC_BASE_URL, startBrowserPaymentGateway, TestGateway, TestGatewayMerchant, twoBooksOrder } from './testing/test-gateway';

/**
 * Browser payments through the edge's HTTP surface with the real ledger and browser-payment
 * service (one process, in-process bus, the run's Postgres): the merchant's initiate and
 * confirm, the payer's journey through the pages (followed here with plain HTTP; the real
 * browser is in the e2e tier), what retrieval reads back, and what tampered tokens do.
 */
let gateway: TestGateway;

beforeAll(async () => {
  // A short payer lock wait keeps the "order busy" case quick.
  gateway = await startBrowserPaymentGateway({ PAYER_LOCK_WAIT_MS: '300' });
});

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const newOrderId = () => `bp-${randomBytes(5).toString('hex')}`;
const RETURN_URL = 'https://shop.example/checkout/return?cart=7';

type Provider = 'provider_a' | 'provider_b' | 'provider_c';

function initiateBody(provider: Provider, extra: JsonObject = {}): JsonObject {
  const sourceOfFunds: JsonObject =
    provider === 'provider_b'
      ? { type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '37040044' } } }
      : { type: provider === 'provider_a' ? 'PROVIDER_A' : 'PROVIDER_C' };
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: RETURN_URL },
    order: twoBooksOrder(),
    sourceOfFunds,
    ...extra,
  };
}

function providerA(operation: 'PAY' | 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_PROVIDER' | 'CONFIRM_AT_MERCHANT'): JsonObject {
  return { browserPayment: { returnUrl: RETURN_URL, provider_a: { operation, paymentConfirmation } } };
}

function put(merchant: TestGatewayMerchant, orderId: string, transactionId: string, body: JsonObject, version = 100) {
  return gateway.fetch(`${merchant.base(version)}/order/${orderId}/transaction/${transactionId}`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function retrieveTransaction(merchant: TestGatewayMerchant, orderId: string, transactionId: string): Promise<JsonObject> {
  const response = await gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/${transactionId}`, {
    headers: { authorization: merchant.authorization },
  });
  expect(response.status).toBe(200);
  return response.body;
}

async function retrieveOrder(merchant: TestGatewayMerchant, orderId: string): Promise<JsonObject> {
  const response = await gateway.fetch(`${merchant.base()}/order/${orderId}`, { headers: { authorization: merchant.authorization } });
  expect(response.status).toBe(200);
  return response.body;
}

const at = (body: JsonObject, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as JsonObject | undefined)?.[key], body);

interface Journey {
  merchant: TestGatewayMerchant;
  orderId: string;
  transactionId: string;
  initiated: JsonObject;
  redirectUrl: string;
}

async function initiated(provider: Provider, extra: JsonObject = {}, merchant?: TestGatewayMerchant): Promise<Journey> {
  const owner = merchant ?? (await gateway.newMerchant());
  const orderId = newOrderId();
  const response = await put(owner, orderId, 'bp-1', initiateBody(provider, extra), 32);
  expect(response.status).toBe(201);
  return { merchant: owner, orderId, transactionId: 'bp-1', initiated: response.body, redirectUrl: at(response.body, 'browserPayment.redirectUrl') as string };
}

/** The simulator's books for the journey's payment: what "the provider" holds. */
async function atProvider(journey: Journey) {
  const books = gateway.running.app.get(SimulatedProviderRepository, { strict: false });
  return (await books.find(at(journey.initiated, 'transaction.acquirer.transactionId') as string))!;
}

/** The simulator page's form actions, as a browser would submit them. */
function formAction(html: string, decision: 'approve' | 'cancel'): string {
  const match = new RegExp(`action="([^"]+/${decision})"`).exec(html);
  expect(match).not.toBeNull();
  return match![1];
}

/** Opens the redirect URL, clicks a button, follows the redirect back through the gateway. */
async function payerDecides(journey: Journey, decision: 'approve' | 'cancel') {
  const page = await gateway.fetch(journey.redirectUrl);
  expect(page.status).toBe(200);
  const decided = await gateway.fetch(formAction(page.text, decision), { method: 'POST' });
  expect(decided.status).toBe(303);
  const back = await gateway.fetch(decided.headers.get('location')!);
  return { page, decided, back };
}

describe('INITIATE_BROWSER_PAYMENT', () => {
  it.each(['provider_a', 'provider_b', 'provider_c'] as const)(
    'answers %s with a PENDING payment, gatewayCode SUBMITTED, order INITIATED and the payer\'s redirect URL',
    async (provider) => {
      const { initiated: body, orderId, merchant } = await initiated(provider, { correlationId: 'c-1' });
      expect(body).toMatchObject({
        merchant: merchant.id,
        version: '32',
        correlationId: 'c-1',
        result: 'PENDING',
        response: { gatewayCode: 'SUBMITTED' },
        order: { id: orderId, amount: 30, currency: 'EUR', status: 'INITIATED', totalCapturedAmount: 0, description: 'Two books', itemAmount: 25 },
        transaction: { id: 'bp-1', type: 'PAYMENT', amount: 30, currency: 'EUR', acquirer: { id: `${provider.toUpperCase()}_SIMULATOR` } },
        browserPayment: { interaction: { status: 'INITIATED' }, returnUrl: RETURN_URL },
        sourceOfFunds: { type: provider.toUpperCase() },
      });
      expect(at(body, 'browserPayment.redirectUrl')).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/bpui/${provider}/out/BP-[0-9a-f]{32}$`));
      expect(at(body, 'browserPayment.interaction.timeInitiated')).toMatch(ISO_TIME);
      expect(at(body, 'browserPayment.interaction.timeRedirected')).toBeUndefined();
      expect(at(body, 'transaction.acquirer.transactionId')).toMatch(/^P[ABC]-[0-9A-F]{20}$/);
    },
  );

  it('records a provider_a AUTHORIZE as a pending AUTHORIZATION and echoes the provider_a options', async () => {
    const { initiated: body } = await initiated('provider_a', {
      browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_MERCHANT', displayShippingAddress: false } },
    });
    expect(body).toMatchObject({
      transaction: { type: 'AUTHORIZATION' },
      browserPayment: {
        provider_a: { operation: 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_MERCHANT', displayShippingAddress: false, overrideShippingAddress: true },
      },
    });
  });

  it('shows provider_b\'s bank identifier in sourceOfFunds', async () => {
    const { initiated: body } = await initiated('provider_b');
    expect(body.sourceOfFunds).toEqual({ type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '37040044' } } });
  });

  it('replays the identical response for the same request and refuses the id with another body', async () => {
    const journey = await initiated('provider_a');
    const again = await put(journey.merchant, journey.orderId, 'bp-1', initiateBody('provider_a'), 32);
    expect(again.status).toBe(201);
    expect(again.text).toBe(canonicalJson(journey.initiated));
    const changed = await put(journey.merchant, journey.orderId, 'bp-1', initiateBody('provider_a', { transaction: { reference: 'x' } }), 32);
    expect(changed.status).toBe(400);
  });

  it('refuses a live merchant: no provider is connected, and nothing is recorded', async () => {
    const live = await gateway.newMerchant({ mode: 'LIVE' });
    const orderId = newOrderId();
    const response = await put(live, orderId, 'bp-1', initiateBody('provider_a'));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: 'Browser payments with provider_a are not available for this merchant: no provider connection is configured.',
      },
      result: 'ERROR',
    });
    const lookup = await gateway.fetch(`${live.base()}/order/${orderId}`, { headers: { authorization: live.authorization } });
    expect(lookup.status).toBe(404);
  });

  it('refuses a provider\'s own fields under another provider (UNSUPPORTED)', async () => {
    const merchant = await gateway.newMerchant();
    const response = await put(merchant, newOrderId(), 'bp-1', initiateBody('provider_c', providerA('PAY', 'CONFIRM_AT_PROVIDER')));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'browserPayment.provider_a', validationType: 'UNSUPPORTED' } });
  });
});

describe('the payer\'s journey, CONFIRM_AT_PROVIDER', () => {
  it('PAY: redirect, approve, return: interaction and times at each step, order CAPTURED, browser sent to returnUrl with the ids', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_PROVIDER'));
    const read = () => retrieveTransaction(journey.merchant, journey.orderId, 'bp-1');

    expect(await read()).toMatchObject({ browserPayment: { interaction: { status: 'INITIATED' } }, order: { status: 'INITIATED' } });

    const page = await gateway.fetch(journey.redirectUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('30.00 EUR');
    expect(page.text).toContain('Browser payment shop');
    expect(page.text).toContain('Book two');
    const redirected = await read();
    expect(redirected).toMatchObject({ result: 'PENDING', browserPayment: { interaction: { status: 'REDIRECTED_TO_PROVIDER' } } });
    const times1 = at(redirected, 'browserPayment.interaction') as JsonObject;
    expect(times1.timeRedirected).toMatch(ISO_TIME);
    expect(times1.timeRedirected! >= times1.timeInitiated!).toBe(true);
    expect(times1.timeReturned).toBeUndefined();

    const decided = await gateway.fetch(formAction(page.text, 'approve'), { method: 'POST' });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toBe(journey.redirectUrl.replace('/out/', '/in/'));
    // The decision is the provider's business: the gateway's view has not moved yet.
    expect(await read()).toMatchObject({ browserPayment: { interaction: { status: 'REDIRECTED_TO_PROVIDER' } } });

    const back = await gateway.fetch(decided.headers.get('location')!);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`https://shop.example/checkout/return?cart=7&orderId=${journey.orderId}&transactionId=bp-1`);
    expect(back.headers.get('referrer-policy')).toBe('no-referrer');

    const completed = await read();
    expect(completed).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      transaction: { type: 'PAYMENT', amount: 30 },
      order: { status: 'CAPTURED', totalAuthorizedAmount: 30, totalCapturedAmount: 30 },
      browserPayment: { interaction: { status: 'COMPLETED' } },
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@wallet.example', accountHolder: 'Simulated Payer' } } },
    });
    const times = at(completed, 'browserPayment.interaction') as JsonObject;
    expect(times.timeInitiated).toBe(times1.timeInitiated);
    expect(times.timeRedirected).toBe(times1.timeRedirected);
    expect([times.timeInitiated, times.timeRedirected, times.timeReturned, times.timeCompleted].every((t) => ISO_TIME.test(String(t)))).toBe(true);
    expect(times.timeRedirected! <= times.timeReturned! && times.timeReturned! <= times.timeCompleted!).toBe(true);

    const order = await retrieveOrder(journey.merchant, journey.orderId);
    expect(order).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 30, description: 'Two books' });
    expect(order.transaction).toHaveLength(1);
  });

  it('AUTHORIZE: the approved payment authorises only (order AUTHORIZED, nothing captured)', async () => {
    const journey = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_PROVIDER'));
    const { back } = await payerDecides(journey, 'approve');
    expect(back.status).toBe(303);
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({
      result: 'SUCCESS',
      transaction: { type: 'AUTHORIZATION', amount: 30 },
      order: { status: 'AUTHORIZED', totalAuthorizedAmount: 30, totalCapturedAmount: 0 },
      browserPayment: { interaction: { status: 'COMPLETED' } },
    });
  });

  it.each(['provider_b', 'provider_c'] as const)('%s: approve moves the funds (CAPTURED)', async (provider) => {
    const journey = await initiated(provider);
    const { page, back } = await payerDecides(journey, 'approve');
    if (provider === 'provider_b') {
      expect(page.text).toContain('37040044');
    }
    expect(back.status).toBe(303);
    const body = await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1');
    expect(body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED' }, browserPayment: { interaction: { status: 'COMPLETED' } } });
    if (provider === 'provider_c') {
      expect(body.sourceOfFunds).toEqual({
        type: 'PROVIDER_C',
        provided: { provider_c: { bankAccountHolder: 'Simulated Payer', bic: 'SIMUDEFFXXX', country: 'DEU', iban: 'xxxxxxxxxxxxxxxxxx3000' } },
      });
    }
  });

  it('cancel fails the transaction (order FAILED) and still takes the payer back to the merchant', async () => {
    const journey = await initiated('provider_a');
    const { back } = await payerDecides(journey, 'cancel');
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toContain(`orderId=${journey.orderId}`);
    const body = await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1');
    expect(body).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'CANCELLED' },
      order: { status: 'FAILED', totalCapturedAmount: 0 },
      browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } },
    });
    expect(at(body, 'browserPayment.interaction.timeReturned')).toMatch(ISO_TIME);
    expect(at(body, 'browserPayment.interaction.timeCompleted')).toBeUndefined();
  });

  it('a payer back without deciding has abandoned the payment: it fails and can no longer be approved', async () => {
    const journey = await initiated('provider_a');
    const page = await gateway.fetch(journey.redirectUrl);
    const back = await gateway.fetch(journey.redirectUrl.replace('/out/', '/in/'));
    expect(back.status).toBe(303);
    // The late click moves nothing; the payer is sent where the return went (the shop).
    const lateApproval = await gateway.fetch(formAction(page.text, 'approve'), { method: 'POST' });
    expect(lateApproval.status).toBe(303);
    const again = await gateway.fetch(lateApproval.headers.get('location')!);
    expect(again.headers.get('location')).toBe(back.headers.get('location'));
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({
      result: 'FAILURE',
      order: { status: 'FAILED' },
    });
  });
});

describe('redirect tokens', () => {
  it('a replayed return sends the payer to the shop again, the redirect URL after the journey is used up; neither changes anything', async () => {
    const journey = await initiated('provider_a');
    const { decided, back } = await payerDecides(journey, 'approve');
    const before = await retrieveOrder(journey.merchant, journey.orderId);

    const replayedReturn = await gateway.fetch(decided.headers.get('location')!);
    expect(replayedReturn.status).toBe(303);
    expect(replayedReturn.headers.get('location')).toBe(back.headers.get('location'));
    const reopened = await gateway.fetch(journey.redirectUrl);
    expect(reopened.status).toBe(410);
    expect(reopened.text).toContain('already been used');
    expect(await retrieveOrder(journey.merchant, journey.orderId)).toEqual(before);
  });

  it('a double-submitted approve still brings the payer to the shop, where the merchant confirms (CONFIRM_AT_MERCHANT)', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    const page = await gateway.fetch(journey.redirectUrl);
    // The first click's chain reaches the gateway (its answer is dropped by the browser for the
    // second click's); the second click's chain is what the payer sees.
    const first = await gateway.fetch(formAction(page.text, 'approve'), { method: 'POST' });
    expect((await gateway.fetch(first.headers.get('location')!)).status).toBe(303);
    const second = await gateway.fetch(formAction(page.text, 'approve'), { method: 'POST' });
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const landed = await gateway.fetch(second.headers.get('location')!);
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe(`${RETURN_URL}&orderId=${journey.orderId}&transactionId=bp-1`);

    const confirmed = await put(journey.merchant, journey.orderId, 'bp-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' }, 30);
    expect(confirmed.body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED' } });
  });

  it('a tampered token, or the token under another provider\'s path, finds nothing and moves nothing', async () => {
    const journey = await initiated('provider_a');
    const token = journey.redirectUrl.split('/').pop()!;
    const flipped = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    const attempts = [
      `/bpui/provider_a/out/${flipped}`,
      `/bpui/provider_a/in/${flipped}`,
      `/bpui/provider_b/out/${token}`,
      `/bpui/provider_b/in/${token}`,
      `/bpui/provider_a/out/${token.toUpperCase()}`,
      `/bpui/provider_a/out/${token}x`,
      `/bpui/provider_z/in/${token}`,
      '/bpui/provider_a/in/BP-',
    ];
    for (const path of attempts) {
      const response = await gateway.fetch(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.text).toContain('Payment not found');
    }
    for (const decision of [`/bpui/provider_a/out/${flipped}/approve`, `/bpui/provider_b/out/${token}/approve`, `/bpui/provider_a/out/${token}/pay`]) {
      expect((await gateway.fetch(decision, { method: 'POST' })).status).toBe(404);
    }
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({
      result: 'PENDING',
      browserPayment: { interaction: { status: 'INITIATED' } },
    });
  });

  it('a decision before the payer was sent to the provider is refused', async () => {
    const journey = await initiated('provider_a');
    const token = journey.redirectUrl.split('/').pop()!;
    const response = await gateway.fetch(`/bpui/provider_a/out/${token}/approve`, { method: 'POST' });
    expect(response.status).toBe(410);
    expect(response.text).toContain('not started from this link');
    expect(response.text).not.toContain('already');
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({
      browserPayment: { interaction: { status: 'INITIATED' } },
    });
  });

  it('serve pages that run nothing, cannot be framed and leak no referrer', async () => {
    const journey = await initiated('provider_a');
    const page = await gateway.fetch(journey.redirectUrl);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toMatch(/<script/i);
  });
});

describe('merchant-supplied text on the provider page', () => {
  it('is escaped: markup in the description, items and address is shown as text', async () => {
    const attack = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'`';
    const journey = await initiated('provider_a', {
      order: {
        amount: '10.00',
        currency: 'EUR',
        description: attack,
        item: [{ name: attack, quantity: '1', unitPrice: '10.00', description: '</td><script>x()</script>' }],
      },
      shipping: { address: { street: '"><svg onload=alert(3)>', city: 'Berlin', country: 'DEU' } },
    });
    const page = await gateway.fetch(journey.redirectUrl);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script|<img|<svg|onerror=|onload=/i);
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src&#61;x onerror&#61;alert(2)&gt;&quot;&#39;&#96;');
    expect(page.text).toContain('&quot;&gt;&lt;svg onload&#61;alert(3)&gt;');
  });
});

describe('CONFIRM_BROWSER_PAYMENT', () => {
  const confirm = (journey: Journey, extra: JsonObject = {}) =>
    put(journey.merchant, journey.orderId, journey.transactionId, { apiOperation: 'CONFIRM_BROWSER_PAYMENT', ...extra }, 30);

  it('completes a returned CONFIRM_AT_MERCHANT payment with a changed amount; a repeat replays it', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    const { back } = await payerDecides(journey, 'approve');
    expect(back.status).toBe(303);
    const returned = await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1');
    expect(returned).toMatchObject({ result: 'PENDING', order: { status: 'INITIATED' }, browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } } });

    const changes = {
      order: { amount: '27.00', itemAmount: '22.00', item: [{ name: 'Book one', quantity: '2', unitPrice: '11.00' }] },
      transaction: { reference: 'conf-1' },
    };
    const confirmed = await confirm(journey, changes);
    expect(confirmed.status).toBe(201);
    expect(confirmed.body).toMatchObject({
      version: '30',
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      transaction: { id: 'bp-1', type: 'PAYMENT', amount: 27, reference: 'conf-1' },
      order: { amount: 27, status: 'CAPTURED', totalCapturedAmount: 27, itemAmount: 22, shippingAndHandlingAmount: 5, item: [{ name: 'Book one', quantity: 2, unitPrice: 11 }] },
      browserPayment: { interaction: { status: 'COMPLETED' } },
    });
    expect(at(confirmed.body, 'browserPayment.interaction.timeCompleted')).toMatch(ISO_TIME);

    const again = await confirm(journey, changes);
    expect(again.status).toBe(201);
    expect(again.text).toBe(confirmed.text);
    const other = await confirm(journey, { order: { amount: '26.00', itemAmount: '21.00' } });
    expect(other.status).toBe(400);
    expect(await retrieveOrder(journey.merchant, journey.orderId)).toMatchObject({ amount: 27, totalCapturedAmount: 27, status: 'CAPTURED' });
  });

  it('above what the provider allows over the approved amount: 400 on order.amount naming the highest, nothing executed or recorded; a confirm at the highest completes', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    await payerDecides(journey, 'approve');
    // The payer approved 30.00 EUR; the simulated wallet allows a confirm up to 115% of it, 34.50.
    const above = await confirm(journey, { order: { amount: '35.00', itemAmount: '30.00', item: [{ name: 'Book one', quantity: '2', unitPrice: '15.00' }] } });
    expect(above.status).toBe(400);
    expect(above.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        field: 'order.amount',
        validationType: 'INVALID',
        explanation:
          "Value '35.00' is invalid. The payer approved 30.00 EUR at the provider, which allows a confirm of at most 34.50 EUR: confirm 34.50 or less, or initiate a new payment for the higher amount.",
      },
      result: 'ERROR',
    });
    expect(await atProvider(journey)).toMatchObject({ status: 'APPROVED', amount: '30.0000', capturedAmount: '0.0000' });
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({
      result: 'PENDING',
      transaction: { amount: 30 },
      order: { amount: 30, status: 'INITIATED', totalCapturedAmount: 0 },
      browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } },
    });

    const highest = await confirm(journey, { order: { amount: '34.50', itemAmount: '29.50', item: [{ name: 'Book one', quantity: '2', unitPrice: '14.75' }] } });
    expect(highest.status).toBe(201);
    expect(highest.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'bp-1', type: 'PAYMENT', amount: 34.5 },
      order: { amount: 34.5, status: 'CAPTURED', totalCapturedAmount: 34.5, itemAmount: 29.5 },
    });
    expect(await atProvider(journey)).toMatchObject({ status: 'CAPTURED', amount: '34.5000', capturedAmount: '34.5000' });
  });

  it('AUTHORIZE confirmed: order AUTHORIZED', async () => {
    const journey = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_MERCHANT'));
    await payerDecides(journey, 'approve');
    const confirmed = await confirm(journey);
    expect(confirmed.body).toMatchObject({ result: 'SUCCESS', transaction: { type: 'AUTHORIZATION' }, order: { status: 'AUTHORIZED', totalCapturedAmount: 0 } });
  });

  it('before the payer returned: 400 naming the reason, nothing changes', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    await gateway.fetch(journey.redirectUrl);
    const response = await confirm(journey);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        field: 'apiOperation',
        validationType: 'INVALID',
        explanation:
          "Value 'CONFIRM_BROWSER_PAYMENT' is invalid. The payer has not returned from the provider yet (browserPayment.interaction.status is REDIRECTED_TO_PROVIDER): confirm once the payer is back at browserPayment.returnUrl.",
      },
      result: 'ERROR',
    });
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({ result: 'PENDING' });
  });

  it('of a CONFIRM_AT_PROVIDER payment: 400', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_PROVIDER'));
    const response = await confirm(journey);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'apiOperation', validationType: 'INVALID' } });
    expect(at(response.body, 'error.explanation')).toContain('paymentConfirmation CONFIRM_AT_PROVIDER');
  });

  it('with another currency: 400 on order.currency', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    await payerDecides(journey, 'approve');
    const response = await confirm(journey, { order: { currency: 'USD' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: { field: 'order.currency', validationType: 'INVALID', explanation: "Value 'USD' is invalid. The currency of a browser payment cannot change: this payment is in EUR." },
    });
  });

  it('with amounts that do not add up against the initiate\'s: 400 on the amount', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    await payerDecides(journey, 'approve');
    const response = await confirm(journey, { order: { amount: '31.00' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: {
        field: 'order.amount',
        validationType: 'INVALID',
        explanation: "Value '31.00' is invalid. amount must equal order.itemAmount + order.shippingAndHandlingAmount (30).",
      },
    });
    const items = await confirm(journey, { order: { item: [{ name: 'Book one', quantity: '3', unitPrice: '10.00' }] } });
    expect(items.status).toBe(400);
    expect(items.body).toMatchObject({ error: { field: 'order.itemAmount' } });
    expect(at(items.body, 'error.explanation')).toContain('keeps its initiated value');
    // EUR has 2 decimals: a confirm without currency is checked against the payment's.
    const decimals = await confirm(journey, { order: { amount: '30.001' } });
    expect(decimals.body).toMatchObject({ error: { field: 'order.amount', explanation: "Value '30.001' is invalid. amount must have at most 2 decimal places for EUR." } });
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({ result: 'PENDING' });
  });

  it('after the payer cancelled: 400', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    await payerDecides(journey, 'cancel');
    const response = await confirm(journey);
    expect(response.status).toBe(400);
    expect(at(response.body, 'error.explanation')).toContain('cancelled');
  });

  it('cannot confirm another merchant\'s payment', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    await payerDecides(journey, 'approve');
    const stranger = await gateway.newMerchant();
    const response = await put(stranger, journey.orderId, 'bp-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' }, 30);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'transactionid' } });
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({ result: 'PENDING' });
  });
});

describe('the payer\'s return under the order lock', () => {
  it('waits for the lock; while an operation holds the order the payer gets a retry page and nothing changes', async () => {
    const journey = await initiated('provider_a');
    const page = await gateway.fetch(journey.redirectUrl);
    const decided = await gateway.fetch(formAction(page.text, 'approve'), { method: 'POST' });
    const locks = gateway.running.app.get<LockService>(LOCK_SERVICE);
    const lease = await locks.acquire(`${journey.merchant.id}:${journey.orderId}`, { waitMs: 0, ttlMs: 10_000 });
    expect(lease).not.toBeNull();
    try {
      const busy = await gateway.fetch(decided.headers.get('location')!);
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('2');
      expect(busy.text).toContain('Please try again');
    } finally {
      await lease!.release();
    }
    expect(await retrieveTransaction(journey.merchant, journey.orderId, 'bp-1')).toMatchObject({
      browserPayment: { interaction: { status: 'REDIRECTED_TO_PROVIDER' } },
    });
    const back = await gateway.fetch(decided.headers.get('location')!);
    expect(back.status).toBe(303);
  });
});

describe('CAPTURE and VOID of a provider_a AUTHORIZE, at the provider (spec browser payment rule 4)', () => {
  async function authorized(): Promise<Journey> {
    const journey = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_PROVIDER'));
    await payerDecides(journey, 'approve');
    expect(await retrieveOrder(journey.merchant, journey.orderId)).toMatchObject({ status: 'AUTHORIZED', totalAuthorizedAmount: 30, totalCapturedAmount: 0 });
    return journey;
  }

  const capture = (journey: Journey, transactionId: string, amount: string, extra: JsonObject = {}) =>
    put(journey.merchant, journey.orderId, transactionId, { apiOperation: 'CAPTURE', transaction: { amount, currency: 'EUR', ...extra } });

  it('captures the authorisation at the provider in parts, each capture once; the captures are then refunded at the provider', async () => {
    const journey = await authorized();
    const reference = at(journey.initiated, 'transaction.acquirer.transactionId');

    const first = await capture(journey, 'capture-1', '20.00');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      transaction: { id: 'capture-1', type: 'CAPTURE', amount: 20, currency: 'EUR', targetTransactionId: 'bp-1', acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@wallet.example' } } },
      order: { status: 'PARTIALLY_CAPTURED', totalAuthorizedAmount: 30, totalCapturedAmount: 20, totalRefundedAmount: 0 },
    });
    expect(at(first.body, 'transaction.receipt')).toMatch(/^PAC-[0-9A-F]{20}$/);
    expect(await atProvider(journey)).toMatchObject({ reference, status: 'CAPTURED', amount: '30.0000', capturedAmount: '20.0000' });

    // The same capture again replays; the ledger's capture limit refuses more than is left before the provider is asked.
    const again = await capture(journey, 'capture-1', '20.00');
    expect([again.status, again.text]).toEqual([201, first.text]);
    const beyond = await capture(journey, 'capture-2', '10.01');
    expect(beyond.status).toBe(400);
    expect(beyond.body).toMatchObject({ error: { field: 'transaction.amount', explanation: expect.stringContaining('available for capture on this order is 10.00 EUR') } });
    expect((await atProvider(journey)).capturedAmount).toBe('20.0000');

    const rest = await capture(journey, 'capture-2', '10.00', { targetTransactionId: 'bp-1' });
    expect(rest.body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 30 } });
    expect((await atProvider(journey)).capturedAmount).toBe('30.0000');

    const refund = await put(journey.merchant, journey.orderId, 'refund-1', {
      apiOperation: 'REFUND',
      transaction: { amount: '20.00', currency: 'EUR', targetTransactionId: 'capture-1' },
    });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { type: 'REFUND', amount: 20, targetTransactionId: 'capture-1', acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      order: { status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 30, totalRefundedAmount: 20 },
    });
    expect(at(refund.body, 'transaction.receipt')).toMatch(/^PAR-[0-9A-F]{20}$/);
    expect(await atProvider(journey)).toMatchObject({ capturedAmount: '30.0000', refundedAmount: '20.0000' });

    const order = await retrieveOrder(journey.merchant, journey.orderId);
    expect(order).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalAuthorizedAmount: 30, totalCapturedAmount: 30, totalRefundedAmount: 20 });
    expect((order.transaction as JsonObject[]).map((t) => [at(t, 'transaction.id'), at(t, 'transaction.type'), at(t, 'result')])).toEqual([
      ['bp-1', 'AUTHORIZATION', 'SUCCESS'],
      ['capture-1', 'CAPTURE', 'SUCCESS'],
      ['capture-2', 'CAPTURE', 'SUCCESS'],
      ['refund-1', 'REFUND', 'SUCCESS'],
    ]);
  });

  it('voids the authorisation at the provider: the order is CANCELLED and nothing can be captured after', async () => {
    const journey = await authorized();
    const voided = await put(journey.merchant, journey.orderId, 'void-1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'bp-1' } });
    expect(voided.status).toBe(201);
    expect(voided.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'void-1', type: 'VOID_AUTHORIZATION', amount: 30, targetTransactionId: 'bp-1', acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      sourceOfFunds: { type: 'PROVIDER_A' },
      order: { status: 'CANCELLED', totalAuthorizedAmount: 0, totalCapturedAmount: 0 },
    });
    expect(await atProvider(journey)).toMatchObject({ status: 'VOIDED', capturedAmount: '0.0000' });

    const late = await capture(journey, 'capture-1', '1.00');
    expect(late.status).toBe(400);
    expect((await atProvider(journey)).status).toBe('VOIDED');
    expect(await retrieveOrder(journey.merchant, journey.orderId)).toMatchObject({ status: 'CANCELLED' });
  });

  it('refuses a VOID of the authorisation while a capture of it stands, and a VOID of the capture (refund it instead)', async () => {
    const journey = await authorized();
    await capture(journey, 'capture-1', '5.00');
    for (const [transactionId, target, reason] of [
      ['void-1', 'bp-1', "void CAPTURE 'capture-1' first"],
      ['void-2', 'capture-1', 'refund it instead'],
    ]) {
      const refused = await put(journey.merchant, journey.orderId, transactionId, { apiOperation: 'VOID', transaction: { targetTransactionId: target } });
      expect(refused.status).toBe(400);
      expect(at(refused.body, 'error.explanation')).toContain(reason);
    }
    expect(await atProvider(journey)).toMatchObject({ status: 'CAPTURED', capturedAmount: '5.0000' });
  });
});

describe('browser-payment.refund.v1 (the ledger refunding a provider-funded order)', () => {
  function refund(journey: Journey, transactionId: string, amount: string, currency = 'EUR'): Promise<ProviderRefundReply> {
    const message: ProviderRefundMessage = {
      envelope: {
        merchant: { id: journey.merchant.id, mode: 'TEST', settings: defaultMerchantSettings() },
        apiVersion: 100,
        requestId: `refund-${transactionId}`,
        authMethod: 'PASSWORD',
        fencingToken: String(Date.now() * 1000),
      },
      orderId: journey.orderId,
      transactionId,
      targetTransactionId: journey.transactionId,
      amount,
      currency,
    };
    return gateway.bus.request(SUBJECTS.browserPayment.refund, message);
  }

  it('refunds a provider_a PAY at the provider, once per refund transaction, never beyond what was paid', async () => {
    const journey = await initiated('provider_a');
    await payerDecides(journey, 'approve');

    const first = await refund(journey, 'r1', '10.00');
    expect(first).toMatchObject({ result: 'SUCCESS', gatewayCode: 'APPROVED', sourceOfFunds: { type: 'PROVIDER_A' } });
    expect(first.providerReference).toMatch(/^PAR-[0-9A-F]{20}$/);
    expect(await refund(journey, 'r1', '10.00')).toEqual(first);
    await expect(refund(journey, 'r1', '11.00')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await refund(journey, 'r2', '20.01')).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED' });
    expect(await refund(journey, 'r3', '20.00')).toMatchObject({ result: 'SUCCESS' });
    await expect(refund(journey, 'r4', '1.00', 'USD')).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'transaction.currency' });
  });

  it("defaults a full refund's tax to the tax the browser payment was paid with (refund rule 5)", async () => {
    const journey = await initiated('provider_a', { order: { ...twoBooksOrder(), amount: '33.00', taxAmount: '3.00' } });
    await payerDecides(journey, 'approve');
    const refunded = await put(journey.merchant, journey.orderId, 'r1', { apiOperation: 'REFUND', transaction: { amount: '33.00', currency: 'EUR' } });
    expect(refunded.body).toMatchObject({ result: 'SUCCESS', order: { status: 'REFUNDED' }, transaction: { type: 'REFUND', amount: 33, taxAmount: 3 } });
  });

  it('refuses a payment that moved no money (AUTHORIZE, cancelled)', async () => {
    const authorized = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_PROVIDER'));
    await payerDecides(authorized, 'approve');
    await expect(refund(authorized, 'r1', '1.00')).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
    const cancelled = await initiated('provider_a');
    await payerDecides(cancelled, 'cancel');
    await expect(refund(cancelled, 'r1', '1.00')).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
  });
});

describe('the mode a payment was initiated in decides where its later steps go (amendment 2026-11-26 (6))', () => {
  async function atProvider(journey: Journey) {
    const books = gateway.running.app.get(SimulatedProviderRepository, { strict: false });
    return (await books.find(at(journey.initiated, 'transaction.acquirer.transactionId') as string))!;
  }

  const capture = (journey: Journey, transactionId: string, amount: string) =>
    put(journey.merchant, journey.orderId, transactionId, { apiOperation: 'CAPTURE', transaction: { amount, currency: 'EUR', targetTransactionId: 'bp-1' } });

  it('a TEST payment of a merchant switched to LIVE is finished by its payer, captured and refunded at its simulator; new ones are refused', async () => {
    const journey = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_PROVIDER'));
    await gateway.manage.setMode(journey.merchant.id, 'LIVE');

    const { back } = await payerDecides(journey, 'approve');
    expect(back.status).toBe(303);
    expect(await retrieveOrder(journey.merchant, journey.orderId)).toMatchObject({ status: 'AUTHORIZED', totalAuthorizedAmount: 30 });

    const captured = await capture(journey, 'capture-1', '30.00');
    expect(captured.status).toBe(201);
    expect(captured.body).toMatchObject({ result: 'SUCCESS', transaction: { type: 'CAPTURE', acquirer: { id: 'PROVIDER_A_SIMULATOR' } }, order: { status: 'CAPTURED' } });
    const refund = await put(journey.merchant, journey.orderId, 'refund-1', {
      apiOperation: 'REFUND',
      transaction: { amount: '10.00', currency: 'EUR', targetTransactionId: 'capture-1' },
    });
    expect(refund.body).toMatchObject({ result: 'SUCCESS', transaction: { acquirer: { id: 'PROVIDER_A_SIMULATOR' } }, order: { status: 'PARTIALLY_REFUNDED' } });
    expect(await atProvider(journey)).toMatchObject({ status: 'CAPTURED', capturedAmount: '30.0000', refundedAmount: '10.0000' });

    const another = await put(journey.merchant, newOrderId(), 'bp-1', initiateBody('provider_a'));
    expect([another.status, at(another.body, 'error.explanation')]).toEqual([400, expect.stringContaining('no provider connection is configured')]);
  });

  it('a TEST payment waiting for the confirm when the merchant was switched to LIVE is confirmed at its simulator; another is voided there', async () => {
    const journey = await initiated('provider_a', providerA('PAY', 'CONFIRM_AT_MERCHANT'));
    const authorised = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_PROVIDER'), journey.merchant);
    await payerDecides(journey, 'approve');
    await payerDecides(authorised, 'approve');
    await gateway.manage.setMode(journey.merchant.id, 'LIVE');

    const confirmed = await put(journey.merchant, journey.orderId, 'bp-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED' }, browserPayment: { interaction: { status: 'COMPLETED' } } });
    expect((await atProvider(journey)).status).toBe('CAPTURED');

    const voided = await put(authorised.merchant, authorised.orderId, 'void-1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'bp-1' } });
    expect(voided.body).toMatchObject({ result: 'SUCCESS', order: { status: 'CANCELLED' } });
    expect((await atProvider(authorised)).status).toBe('VOIDED');
  });

  it('a payment stored as LIVE\'s is never captured at a simulator, though the merchant is TEST now', async () => {
    const journey = await initiated('provider_a', providerA('AUTHORIZE', 'CONFIRM_AT_PROVIDER'));
    await payerDecides(journey, 'approve');
    // No live initiate succeeds while no real provider is connected: the row is made LIVE's here.
    const database = gateway.running.app.get<string, DataSource>(dataSourceToken(BROWSER_PAYMENT_SCHEMA.schema) as string, { strict: false });
    await database.query(`UPDATE browser_payment.payments SET merchant_mode = 'LIVE' WHERE merchant_id = $1 AND order_id = $2`, [journey.merchant.id, journey.orderId]);

    const refused = await capture(journey, 'capture-1', '30.00');
    expect(refused.status).toBe(400);
    expect(at(refused.body, 'error.explanation')).toContain('no provider connection is configured');
    expect(await atProvider(journey)).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0.0000' });
    expect(await retrieveOrder(journey.merchant, journey.orderId)).toMatchObject({ status: 'AUTHORIZED', totalCapturedAmount: 0 });
  });
});
