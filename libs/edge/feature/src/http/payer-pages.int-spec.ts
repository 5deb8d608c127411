import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  GatewayError,
  PayerDecisionMessage,
  PayerReply,
  PayerResolveReply,
  PayerStepMessage,
  PayerTokenMessage,
  SUBJECTS,
} from '@gateway/contracts';
import { LOCK_SERVICE, LockService } from '@gateway/locking';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

const TOKEN = 'BP-0123456789abcdef0123456789abcdef';
const received: { subject: string; message: unknown }[] = [];
let merchantId = '';
/** What the fake browser-payment does next with a step: answer it, or fail. */
let stepAnswer: () => PayerReply = () => ({ kind: 'redirect', location: 'https://shop.example/return?orderId=o-1' });

/** browser-payment as the edge sees it: records what it was asked, answers what a test says. */
@Controller()
class FakeBrowserPayment {
  @MessagePattern(SUBJECTS.browserPayment.payerResolve)
  resolve(@Payload() message: PayerTokenMessage): PayerResolveReply {
    received.push({ subject: 'resolve', message });
    if (message.token === 'BP-broken') {
      throw new TypeError('resolver exploded');
    }
    return { kind: 'order', merchantId, orderId: 'o-1' };
  }

  @MessagePattern(SUBJECTS.browserPayment.payerRedirect)
  redirect(@Payload() message: PayerStepMessage): PayerReply {
    received.push({ subject: 'redirect', message });
    return stepAnswer();
  }

  @MessagePattern(SUBJECTS.browserPayment.payerReturn)
  back(@Payload() message: PayerStepMessage): PayerReply {
    received.push({ subject: 'return', message });
    return stepAnswer();
  }

  @MessagePattern(SUBJECTS.browserPayment.payerDecide)
  decide(@Payload() message: PayerDecisionMessage): PayerReply {
    received.push({ subject: 'decide', message });
    return { kind: 'redirect', location: `https://pay.example/bpui/provider_a/in/${message.token}` };
  }
}

/**
 * The edge's payer pages against a fake browser-payment: what the edge forwards (the locked
 * order's fencing token, the merchant's profile, PAYER), what it sends back to a browser, and
 * that a payer always gets a page, never the API's JSON, whatever goes wrong behind it.
 */
describe('the payer pages at the edge', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    edge = await startEdgeTestApp({ controllers: [FakeBrowserPayment], env: { PAYER_LOCK_WAIT_MS: '200' } });
    merchant = await edge.createMerchant();
    merchantId = merchant.id;
  });

  afterAll(async () => {
    await edge?.close();
  });

  beforeEach(() => {
    received.length = 0;
    stepAnswer = () => ({ kind: 'redirect', location: 'https://shop.example/return?orderId=o-1' });
  });

  const get = (url: string) => edge.fastify.inject({ method: 'GET', url });

  it('resolves the token, then forwards the step under the order lock with the merchant\'s profile, as PAYER', async () => {
    const response = await get(`/bpui/provider_a/in/${TOKEN}`);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('https://shop.example/return?orderId=o-1');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(received.map((r) => r.subject)).toEqual(['resolve', 'return']);
    const step = received[1].message as PayerStepMessage;
    expect(step).toMatchObject({
      provider: 'provider_a',
      token: TOKEN,
      envelope: { merchant: { id: merchant.id, mode: 'TEST', name: 'Test merchant' }, authMethod: 'PAYER', apiVersion: 100 },
    });
    expect(step.envelope.fencingToken).toMatch(/^\d+$/);
  });

  it('sends a page with its own CSP and refuses framing', async () => {
    stepAnswer = () => ({ kind: 'page', status: 200, html: '<!DOCTYPE html><p>provider</p>', contentSecurityPolicy: "default-src 'none'" });
    const response = await get(`/bpui/provider_a/out/${TOKEN}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe("default-src 'none'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toBe('<!DOCTYPE html><p>provider</p>');
  });

  it('forwards a simulator decision without taking the lock, and only approve or cancel', async () => {
    const locks = edge.running.app.get<LockService>(LOCK_SERVICE);
    const lease = await locks.acquire(`${merchant.id}:o-1`, { waitMs: 0, ttlMs: 5_000 });
    try {
      const response = await edge.fastify.inject({ method: 'POST', url: `/bpui/provider_a/out/${TOKEN}/approve` });
      expect(response.statusCode).toBe(303);
      expect(received).toEqual([{ subject: 'decide', message: expect.objectContaining({ decision: 'approve', token: TOKEN }) }]);
    } finally {
      await lease!.release();
    }
    const other = await edge.fastify.inject({ method: 'POST', url: `/bpui/provider_a/out/${TOKEN}/refund` });
    expect(other.statusCode).toBe(404);
    expect(other.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(received).toHaveLength(1);
  });

  it("refuses a disabled merchant's payer before the provider (403 page), and lets one back from it finish", async () => {
    await edge.merchants.setStatus(merchant.id, 'DISABLED');
    try {
      const out = await get(`/bpui/provider_a/out/${TOKEN}`);
      expect(out.statusCode).toBe(403);
      expect(out.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(out.headers['x-frame-options']).toBe('DENY');
      expect(out.body).toContain('Payment not available');
      expect(received.map((r) => r.subject)).toEqual(['resolve']);
      const back = await get(`/bpui/provider_a/in/${TOKEN}`);
      expect(back.statusCode).toBe(303);
      expect(received.map((r) => r.subject)).toEqual(['resolve', 'resolve', 'return']);
    } finally {
      await edge.merchants.setStatus(merchant.id, 'ENABLED');
    }
  });

  it('answers a busy order with a retry page (503), and forwards nothing', async () => {
    const locks = edge.running.app.get<LockService>(LOCK_SERVICE);
    const lease = await locks.acquire(`${merchant.id}:o-1`, { waitMs: 0, ttlMs: 5_000 });
    try {
      const response = await get(`/bpui/provider_a/in/${TOKEN}`);
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('2');
      expect(response.body).toContain('Please try again');
      expect(received.map((r) => r.subject)).toEqual(['resolve']);
    } finally {
      await lease!.release();
    }
  });

  it('answers a lapsed lock (ORDER_LOCK_LOST) with the retry page too', async () => {
    stepAnswer = () => {
      throw new GatewayError('ORDER_LOCK_LOST');
    };
    expect((await get(`/bpui/provider_a/in/${TOKEN}`)).statusCode).toBe(503);
  });

  it('answers a fault behind it with an HTML page carrying only a support code', async () => {
    const response = await get('/bpui/provider_a/out/BP-broken');
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toMatch(/tell the shop this code: [0-9A-F]{12}\./);
    expect(response.body).not.toMatch(/exploded|TypeError/);
  });

  it('answers a path segment no token or provider can have with the not-found page, asking nobody', async () => {
    for (const url of ['/bpui/Provider-A/out/BP-x', `/bpui/provider_a/out/${'B'.repeat(81)}`, '/bpui/provider_a/in/%20%3Cscript%3E']) {
      const response = await get(url);
      expect([url, response.statusCode]).toEqual([url, 404]);
      expect(response.body).toContain('Payment not found');
    }
    expect(received).toEqual([]);
  });

  it('tells a wrong method on a payer path from an unknown path', async () => {
    const wrongMethod = await edge.fastify.inject({ method: 'DELETE', url: `/bpui/provider_a/out/${TOKEN}` });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET');
  });
});
