import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { ApiResponse, call, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { MerchantReturnServer, startMerchantReturnServer } from '../support/merchant-return-server';
import { launchPayerBrowser, PayerBrowser } from '../support/payer-browser';

/**
 * Browser payments as a merchant and a payer live them, in a real browser (Debian's Chromium
 * driven by Playwright) against the running gateway: the merchant initiates over HTTP, the
 * payer opens redirectUrl, approves or cancels on the provider simulator's page, and lands on
 * the merchant's own https return page with the order and transaction ids; the merchant reads
 * the order back. Screenshots of the provider pages go to test-artifacts/screenshots/.
 */
jest.setTimeout(120_000);

type Body = Record<string, unknown>;
type Provider = 'provider_a' | 'provider_b' | 'provider_c';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SOURCE: Record<Provider, Body> = {
  provider_a: { type: 'PROVIDER_A' },
  provider_b: { type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '37040044' } } },
  provider_c: { type: 'PROVIDER_C' },
};

let browser: PayerBrowser;
let shop: MerchantReturnServer;
let merchant: TestMerchant;
const profile = readState().profile;

beforeAll(async () => {
  [browser, shop, merchant] = await Promise.all([launchPayerBrowser(), startMerchantReturnServer(), createMerchant({}, { name: 'Playwright Books' })]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), shop?.close()]);
});

const at = (body: unknown, path: string): unknown => path.split('.').reduce<unknown>((node, key) => (node as Body | undefined)?.[key], body);

function initiateBody(provider: Provider, providerA?: Body): Body {
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: shop.returnUrl, ...(providerA ? { provider_a: providerA } : {}) },
    order: {
      amount: '42.50',
      currency: 'EUR',
      description: 'Three paperbacks',
      itemAmount: '37.50',
      shippingAndHandlingAmount: '5.00',
      item: [
        { name: 'The first paperback', quantity: '2', unitPrice: '12.50' },
        { name: 'The second paperback', quantity: '1', unitPrice: '12.50' },
      ],
    },
    shipping: { address: { street: '1 Book Street', city: 'Berlin', postcodeZip: '10115', country: 'DEU' }, contact: { firstName: 'Pat', lastName: 'Payer' } },
    sourceOfFunds: SOURCE[provider],
  };
}

interface Payment {
  orderId: string;
  transactionId: string;
  redirectUrl: string;
}

async function initiate(provider: Provider, providerA?: Body): Promise<Payment> {
  const orderId = `e2e-bp-${randomBytes(5).toString('hex')}`;
  const response = await put(orderId, 'pay-1', initiateBody(provider, providerA), 32);
  expect(response.status).toBe(201);
  expect(response.body).toMatchObject({ result: 'PENDING', response: { gatewayCode: 'SUBMITTED' }, order: { status: 'INITIATED' } });
  return { orderId, transactionId: 'pay-1', redirectUrl: at(response.body, 'browserPayment.redirectUrl') as string };
}

function put(orderId: string, transactionId: string, body: Body, version = 100): Promise<ApiResponse> {
  return call('PUT', `${merchant.base(version)}/order/${orderId}/transaction/${transactionId}`, { authorization: merchant.authorization, body });
}

async function transaction(payment: Payment): Promise<Body> {
  const response = await call('GET', `${merchant.base()}/order/${payment.orderId}/transaction/${payment.transactionId}`, {
    authorization: merchant.authorization,
  });
  expect(response.status).toBe(200);
  return response.body;
}

async function order(orderId: string): Promise<Body> {
  const response = await call('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization });
  expect(response.status).toBe(200);
  return response.body;
}

/** The payer opens redirectUrl: the provider simulator's page. */
async function openProviderPage(page: Page, payment: Payment, screenshot: string): Promise<void> {
  const response = await page.goto(payment.redirectUrl);
  expect(response?.status()).toBe(200);
  await page.locator('#approve').waitFor();
  await browser.screenshot(page, `${profile}-${screenshot}`);
}

/** The payer clicks a button and the browser ends on the merchant's return page. */
async function clickAndLandAtShop(page: Page, button: '#approve' | '#cancel', payment: Payment, screenshot: string): Promise<void> {
  await Promise.all([page.waitForURL((url) => url.href.startsWith(`${shop.returnUrl}?`)), page.click(button)]);
  expect(await page.locator('#order-id').textContent()).toBe(payment.orderId);
  expect(await page.locator('#transaction-id').textContent()).toBe(payment.transactionId);
  const url = new URL(page.url());
  expect([url.searchParams.get('orderId'), url.searchParams.get('transactionId')]).toEqual([payment.orderId, payment.transactionId]);
  await browser.screenshot(page, `${profile}-${screenshot}`);
}

describe.each(['provider_a', 'provider_b', 'provider_c'] as const)('%s in a real browser', (provider) => {
  it('approve: the simulator page shows the payment, the payer lands at the shop with the ids, the order is CAPTURED; interaction status and times read back at each step', async () => {
    const page = await browser.newPage();
    try {
      const payment = await initiate(provider);
      const initiated = await transaction(payment);
      expect(at(initiated, 'browserPayment.interaction')).toEqual({ status: 'INITIATED', timeInitiated: expect.stringMatching(ISO_TIME) });

      await openProviderPage(page, payment, `${provider}-provider-page`);
      expect(await page.locator('#amount').textContent()).toBe('42.50 EUR');
      expect(await page.locator('#merchant').textContent()).toBe('Playwright Books');
      expect(await page.locator('#description').textContent()).toBe('Three paperbacks');
      expect(await page.locator('#items').textContent()).toContain('The second paperback');
      if (provider === 'provider_b') {
        expect(await page.locator('.bank-identifier').textContent()).toBe('37040044');
      }
      if (provider === 'provider_a') {
        expect(await page.locator('#shipping').textContent()).toContain('1 Book Street');
      }
      const redirected = at(await transaction(payment), 'browserPayment.interaction') as Body;
      expect(redirected).toEqual({ status: 'REDIRECTED_TO_PROVIDER', timeInitiated: at(initiated, 'browserPayment.interaction.timeInitiated'), timeRedirected: expect.stringMatching(ISO_TIME) });

      await clickAndLandAtShop(page, '#approve', payment, `${provider}-approved-at-shop`);
      const completed = await transaction(payment);
      expect(completed).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED' },
        transaction: { id: 'pay-1', type: 'PAYMENT', amount: 42.5, currency: 'EUR' },
        order: { status: 'CAPTURED', totalCapturedAmount: 42.5 },
        sourceOfFunds: { type: provider.toUpperCase() },
      });
      const times = at(completed, 'browserPayment.interaction') as Record<string, string>;
      expect(times).toEqual({
        status: 'COMPLETED',
        timeInitiated: redirected.timeInitiated,
        timeRedirected: redirected.timeRedirected,
        timeReturned: expect.stringMatching(ISO_TIME),
        timeCompleted: expect.stringMatching(ISO_TIME),
      });
      expect(times.timeInitiated <= times.timeRedirected && times.timeRedirected <= times.timeReturned && times.timeReturned <= times.timeCompleted).toBe(true);
      expect(await order(payment.orderId)).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 42.5, totalRefundedAmount: 0 });
    } finally {
      await page.close();
    }
  });

  it('cancel: the payer lands at the shop with the ids, the transaction fails and no money moves', async () => {
    const page = await browser.newPage();
    try {
      const payment = await initiate(provider);
      await openProviderPage(page, payment, `${provider}-provider-page-before-cancel`);
      await clickAndLandAtShop(page, '#cancel', payment, `${provider}-cancelled-at-shop`);
      const cancelled = await transaction(payment);
      expect(cancelled).toMatchObject({
        result: 'FAILURE',
        response: { gatewayCode: 'CANCELLED' },
        order: { status: 'FAILED', totalCapturedAmount: 0, totalAuthorizedAmount: 0 },
        browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT', timeReturned: expect.stringMatching(ISO_TIME) } },
      });
    } finally {
      await page.close();
    }
  });
});

describe('provider_a options in a real browser', () => {
  it('AUTHORIZE, confirmed at the provider: the order is AUTHORIZED, nothing captured', async () => {
    const page = await browser.newPage();
    try {
      const payment = await initiate('provider_a', { operation: 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_PROVIDER' });
      await openProviderPage(page, payment, 'provider_a-authorize-provider-page');
      await clickAndLandAtShop(page, '#approve', payment, 'provider_a-authorize-at-shop');
      expect(await transaction(payment)).toMatchObject({
        result: 'SUCCESS',
        transaction: { type: 'AUTHORIZATION', amount: 42.5 },
        order: { status: 'AUTHORIZED', totalAuthorizedAmount: 42.5, totalCapturedAmount: 0 },
      });
    } finally {
      await page.close();
    }
  });

  it('CONFIRM_AT_MERCHANT: refused before the payer is back, then confirmed with a changed amount; the same confirm replays', async () => {
    const page = await browser.newPage();
    try {
      const payment = await initiate('provider_a', { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' });
      await openProviderPage(page, payment, 'provider_a-confirm-at-merchant-provider-page');

      const early = await put(payment.orderId, 'pay-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' }, 30);
      expect(early.status).toBe(400);
      expect(early.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'apiOperation', validationType: 'INVALID' }, result: 'ERROR' });
      expect(at(early.body, 'error.explanation')).toContain('The payer has not returned from the provider yet');

      await clickAndLandAtShop(page, '#approve', payment, 'provider_a-confirm-at-merchant-at-shop');
      expect(await transaction(payment)).toMatchObject({ result: 'PENDING', browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT' } } });

      const changed = { apiOperation: 'CONFIRM_BROWSER_PAYMENT', order: { amount: '30.00', itemAmount: '25.00', item: [{ name: 'The first paperback', quantity: '2', unitPrice: '12.50' }] } };
      const confirmed = await put(payment.orderId, 'pay-1', changed, 30);
      expect(confirmed.status).toBe(201);
      expect(confirmed.body).toMatchObject({
        version: '30',
        result: 'SUCCESS',
        transaction: { id: 'pay-1', type: 'PAYMENT', amount: 30 },
        order: { amount: 30, status: 'CAPTURED', totalCapturedAmount: 30, itemAmount: 25, shippingAndHandlingAmount: 5 },
        browserPayment: { interaction: { status: 'COMPLETED', timeCompleted: expect.stringMatching(ISO_TIME) } },
      });
      const again = await put(payment.orderId, 'pay-1', changed, 30);
      expect([again.status, again.text]).toEqual([201, confirmed.text]);
      expect(await order(payment.orderId)).toMatchObject({ amount: 30, status: 'CAPTURED', totalCapturedAmount: 30 });
    } finally {
      await page.close();
    }
  });

  it('approve submitted twice (a second tab, a double click): the payer lands at the shop both times and the merchant confirms', async () => {
    const [page, second] = await Promise.all([browser.newPage(), browser.newPage()]);
    try {
      const payment = await initiate('provider_a', { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' });
      await openProviderPage(page, payment, 'provider_a-twice-provider-page');
      await openProviderPage(second, payment, 'provider_a-twice-provider-page-2');
      await clickAndLandAtShop(page, '#approve', payment, 'provider_a-twice-at-shop');
      await clickAndLandAtShop(second, '#approve', payment, 'provider_a-twice-at-shop-2');

      const confirmed = await put(payment.orderId, 'pay-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' }, 30);
      expect(confirmed.body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 42.5 } });
    } finally {
      await Promise.all([page.close(), second.close()]);
    }
  });

  it('CONFIRM_BROWSER_PAYMENT refusals: a CONFIRM_AT_PROVIDER payment, another currency, amounts that do not add up, each 400 with the field and reason', async () => {
    const atProvider = await initiate('provider_a', { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' });
    const wrongKind = await put(atProvider.orderId, 'pay-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' }, 30);
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body).toMatchObject({ error: { field: 'apiOperation', validationType: 'INVALID' } });
    expect(at(wrongKind.body, 'error.explanation')).toContain('initiated with paymentConfirmation CONFIRM_AT_PROVIDER');

    const page = await browser.newPage();
    try {
      const payment = await initiate('provider_a', { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' });
      await openProviderPage(page, payment, 'provider_a-refusals-provider-page');
      await clickAndLandAtShop(page, '#approve', payment, 'provider_a-refusals-at-shop');

      const currency = await put(payment.orderId, 'pay-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT', order: { currency: 'USD' } }, 30);
      expect(currency.status).toBe(400);
      expect(currency.body).toEqual({
        error: {
          cause: 'INVALID_REQUEST',
          field: 'order.currency',
          validationType: 'INVALID',
          explanation: "Value 'USD' is invalid. The currency of a browser payment cannot change: this payment is in EUR.",
        },
        result: 'ERROR',
      });
      const sums = await put(payment.orderId, 'pay-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT', order: { amount: '40.00' } }, 30);
      expect(sums.status).toBe(400);
      expect(sums.body).toMatchObject({
        error: {
          field: 'order.amount',
          validationType: 'INVALID',
          explanation: expect.stringContaining('must equal order.itemAmount + order.shippingAndHandlingAmount (42.5)'),
        },
      });
      expect(await transaction(payment)).toMatchObject({ result: 'PENDING', order: { status: 'INITIATED', totalCapturedAmount: 0 } });
    } finally {
      await page.close();
    }
  });
});

describe('responseControls.sensitiveData on browser payments', () => {
  it('refuses UNMASK without the permission and certificate authentication, on INITIATE and CONFIRM: 400 on the field, nothing created or changed', async () => {
    const unmask = { responseControls: { sensitiveData: 'UNMASK' } };
    const orderId = `e2e-bp-${randomBytes(5).toString('hex')}`;
    const initiated = await put(orderId, 'pay-1', { ...initiateBody('provider_c'), ...unmask }, 32);
    expect(initiated.status).toBe(400);
    expect(initiated.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'responseControls.sensitiveData', validationType: 'INVALID' }, result: 'ERROR' });
    expect((await call('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization })).status).toBe(404);

    const payment = await initiate('provider_c');
    const confirmed = await put(payment.orderId, 'pay-1', { apiOperation: 'CONFIRM_BROWSER_PAYMENT', ...unmask }, 30);
    expect(confirmed.status).toBe(400);
    expect(confirmed.body).toMatchObject({ error: { field: 'responseControls.sensitiveData', validationType: 'INVALID' } });
    expect(await transaction(payment)).toMatchObject({ result: 'PENDING', order: { status: 'INITIATED' } });
  });
});

describe('redirect tokens in a real browser', () => {
  it('a tampered or replayed BP token does nothing to any order', async () => {
    const page = await browser.newPage();
    try {
      const done = await initiate('provider_a');
      const waiting = await initiate('provider_a');
      await openProviderPage(page, done, 'provider_a-token-provider-page');
      await clickAndLandAtShop(page, '#approve', done, 'provider_a-token-at-shop');
      const before = await Promise.all([order(done.orderId), order(waiting.orderId)]);

      const token = waiting.redirectUrl.split('/').pop()!;
      const tampered = waiting.redirectUrl.replace(token, `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`);
      for (const url of [tampered, tampered.replace('/out/', '/in/'), waiting.redirectUrl.replace('provider_a', 'provider_b')]) {
        const response = await page.goto(url);
        expect([url, response?.status()]).toEqual([url, 404]);
        expect(await page.locator('h1').textContent()).toBe('Payment not found');
      }
      await browser.screenshot(page, `${profile}-tampered-token`);
      const response = await page.goto(done.redirectUrl);
      expect(response?.status()).toBe(410);
      await browser.screenshot(page, `${profile}-replayed-token`);
      // The return again (a reload after a lost answer) takes the payer to the shop again.
      await page.goto(done.redirectUrl.replace('/out/', '/in/'));
      expect(page.url().startsWith(`${shop.returnUrl}?`)).toBe(true);
      expect(await page.locator('#order-id').textContent()).toBe(done.orderId);
      expect(await Promise.all([order(done.orderId), order(waiting.orderId)])).toEqual(before);
    } finally {
      await page.close();
    }
  });
});

describe('refund of a browser payment', () => {
  it('REFUND of the captured provider_a payment goes back through the provider (needs REFUND, issue 6 phase 2)', async () => {
    const page = await browser.newPage();
    let payment: Payment;
    try {
      payment = await initiate('provider_a', { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' });
      await openProviderPage(page, payment, 'provider_a-refund-provider-page');
      await clickAndLandAtShop(page, '#approve', payment, 'provider_a-refund-at-shop');
    } finally {
      await page.close();
    }
    const refund = await put(payment.orderId, 'refund-1', { apiOperation: 'REFUND', transaction: { amount: '42.50', currency: 'EUR' } }, 29);
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'refund-1', type: 'REFUND', amount: 42.5, currency: 'EUR' },
      order: { status: 'REFUNDED', totalCapturedAmount: 42.5, totalRefundedAmount: 42.5 },
    });
    const refunded = await order(payment.orderId);
    expect(refunded).toMatchObject({ status: 'REFUNDED', totalRefundedAmount: 42.5 });
    expect((refunded.transaction as Body[]).map((t) => at(t, 'transaction.type'))).toEqual(['PAYMENT', 'REFUND']);
  });
});

describe('capture and void of a browser payment authorisation (spec browser payment rule 4)', () => {
  /** provider_a AUTHORIZE, approved by the payer in the browser: the order AUTHORIZED, nothing captured yet. */
  async function authorized(screenshot: string): Promise<Payment> {
    const page = await browser.newPage();
    try {
      const payment = await initiate('provider_a', { operation: 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_PROVIDER' });
      await openProviderPage(page, payment, `${screenshot}-provider-page`);
      await clickAndLandAtShop(page, '#approve', payment, `${screenshot}-at-shop`);
      expect(await order(payment.orderId)).toMatchObject({ status: 'AUTHORIZED', totalAuthorizedAmount: 42.5, totalCapturedAmount: 0 });
      return payment;
    } finally {
      await page.close();
    }
  }

  it('CAPTURE moves the authorised funds at the provider (order CAPTURED), and a REFUND of the capture goes back through it', async () => {
    const payment = await authorized('provider_a-capture');
    const capture = await put(payment.orderId, 'capture-1', { apiOperation: 'CAPTURE', transaction: { amount: '42.50', currency: 'EUR' } });
    expect(capture.status).toBe(201);
    expect(capture.body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      transaction: { id: 'capture-1', type: 'CAPTURE', amount: 42.5, currency: 'EUR', targetTransactionId: payment.transactionId, acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      sourceOfFunds: { type: 'PROVIDER_A' },
      order: { status: 'CAPTURED', totalAuthorizedAmount: 42.5, totalCapturedAmount: 42.5, totalRefundedAmount: 0 },
    });
    expect(at(capture.body, 'transaction.receipt')).toMatch(/^PAC-[0-9A-F]{20}$/);
    const again = await put(payment.orderId, 'capture-1', { apiOperation: 'CAPTURE', transaction: { amount: '42.50', currency: 'EUR' } });
    expect([again.status, again.text]).toEqual([201, capture.text]);
    const more = await put(payment.orderId, 'capture-2', { apiOperation: 'CAPTURE', transaction: { amount: '0.01', currency: 'EUR' } });
    expect(more.status).toBe(400);

    const refund = await put(payment.orderId, 'refund-1', { apiOperation: 'REFUND', transaction: { amount: '12.50', currency: 'EUR' } });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'refund-1', type: 'REFUND', amount: 12.5, targetTransactionId: 'capture-1' },
      order: { status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 42.5, totalRefundedAmount: 12.5 },
    });
    const read = await order(payment.orderId);
    expect(read).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalAuthorizedAmount: 42.5, totalCapturedAmount: 42.5, totalRefundedAmount: 12.5 });
    expect((read.transaction as Body[]).map((t) => at(t, 'transaction.type'))).toEqual(['AUTHORIZATION', 'CAPTURE', 'REFUND']);
  });

  it('VOID releases the authorisation at the provider: the order is CANCELLED and a later CAPTURE is refused', async () => {
    const payment = await authorized('provider_a-void');
    const voided = await put(payment.orderId, 'void-1', { apiOperation: 'VOID', transaction: { targetTransactionId: payment.transactionId } });
    expect(voided.status).toBe(201);
    expect(voided.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'void-1', type: 'VOID_AUTHORIZATION', amount: 42.5, targetTransactionId: payment.transactionId, acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      order: { status: 'CANCELLED', totalCapturedAmount: 0 },
    });
    const late = await put(payment.orderId, 'capture-1', { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'EUR' } });
    expect(late.status).toBe(400);
    expect(await order(payment.orderId)).toMatchObject({ status: 'CANCELLED', totalCapturedAmount: 0 });
  });
});
