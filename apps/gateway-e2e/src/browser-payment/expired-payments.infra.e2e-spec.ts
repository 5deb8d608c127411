import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort, waitFor } from '@gateway/testing';
import { checkedFetch, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { httpOk, StartedProcess, startApp } from '../support/processes';

jest.setTimeout(90_000);

/**
 * The expired payment sweep across processes over NATS, as Kubernetes runs it: an api-edge,
 * browser-payment and order-transaction of this file's own (a NATS prefix only they use, the
 * run's database and Redis), with redirect tokens good for 2 s and the edge sweeping every
 * 300 ms. The merchant sees the result by retrieving the order.
 */
describe('expired browser payments, distributed', () => {
  const state = readState();
  const prefix = `bpx${randomBytes(3).toString('hex')}.`;
  const logDir = path.join(state.logDir, 'expired-payments');
  const processes: StartedProcess[] = [];
  let base: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    const [edgePort, paymentsPort, ledgerPort] = await Promise.all([freePort(), freePort(), freePort()]);
    base = `http://127.0.0.1:${edgePort}`;
    const common = { NATS_SUBJECT_PREFIX: prefix };
    processes.push(
      startApp('order-transaction', { ...state.appEnv['order-transaction'], ...common, HTTP_PORT: String(ledgerPort), ORDER_TRANSACTION_MODE: 'serve' }, logDir),
      startApp(
        'browser-payment',
        { ...state.appEnv['browser-payment'], ...common, HTTP_PORT: String(paymentsPort), PUBLIC_BASE_URL: base, BROWSER_PAYMENT_TOKEN_TTL_SECONDS: '2' },
        logDir,
      ),
      startApp('api-edge', { ...state.appEnv['api-edge'], ...common, HTTP_PORT: String(edgePort), BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '300' }, logDir),
    );
    for (const port of [ledgerPort, paymentsPort, edgePort]) {
      await waitFor(() => httpOk(`http://127.0.0.1:${port}/health/ready`), { timeoutMs: 60_000, what: `the app on ${port}` });
    }
    merchant = await createMerchant();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
  });

  async function api(method: string, url: string, body?: unknown) {
    const response = await checkedFetch(base, `${merchant.base()}${url}`, {
      method,
      headers: { authorization: merchant.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  async function initiate(): Promise<{ orderId: string; redirectUrl: string }> {
    const orderId = `bpx-${randomBytes(5).toString('hex')}`;
    const { status, body } = await api('PUT', `/order/${orderId}/transaction/bp-1`, {
      apiOperation: 'INITIATE_BROWSER_PAYMENT',
      browserPayment: { returnUrl: 'https://shop.example/return', provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' } },
      order: { amount: '30.00', currency: 'EUR' },
      sourceOfFunds: { type: 'PROVIDER_A' },
    });
    expect(status).toBe(201);
    return { orderId, redirectUrl: body.browserPayment.redirectUrl };
  }

  const settled = (orderId: string) =>
    waitFor(async () => {
      const { body } = await api('GET', `/order/${orderId}`);
      return body.status !== 'INITIATED' && body;
    }, { timeoutMs: 15_000, intervalMs: 200, what: `order ${orderId} settled` });

  it('fails a payment never opened as TIMED_OUT, and captures one the payer approved and never came back from', async () => {
    const abandoned = await initiate();
    const approved = await initiate();
    const page = await fetch(approved.redirectUrl);
    expect(page.status).toBe(200);
    const action = /action="([^"]+\/approve)"/.exec(await page.text())![1];
    expect((await fetch(`${base}${action}`, { method: 'POST', redirect: 'manual' })).status).toBe(303);

    const [failed, captured] = await Promise.all([settled(abandoned.orderId), settled(approved.orderId)]);
    expect(failed).toMatchObject({ status: 'FAILED', transaction: [{ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' } }] });
    expect(captured).toMatchObject({
      status: 'CAPTURED',
      totalCapturedAmount: 30,
      transaction: [{ result: 'SUCCESS', browserPayment: { interaction: { status: 'COMPLETED' } } }],
    });
  });
});
