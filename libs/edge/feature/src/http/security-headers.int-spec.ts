import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SealCardMessage, SealCardReply, SUBJECTS } from '@gateway/contracts';
import { maskPan } from '@gateway/crypto';
import { createTestPki, TEST_CARD, TestPki } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/** The vault's seal, so a session holding a (masked) card can be created at the edge. */
@Controller()
class SealingVault {
  @MessagePattern(SUBJECTS.tokenVault.sealCard)
  seal(@Payload() message: SealCardMessage): SealCardReply {
    return {
      sealed: 'opaque',
      card: message.card.number ? { number: maskPan(message.card.number) } : {},
      securityCodePresent: false,
    };
  }
}

/** What no answer of the edge may lack (docs/decisions/http-security-headers.md). */
function expectSecured(label: string, headers: IncomingHttpHeaders | Record<string, unknown>) {
  expect([label, headers['cache-control']]).toEqual([label, 'no-store']);
  expect([label, headers['x-content-type-options']]).toEqual([label, 'nosniff']);
  expect([label, headers['content-security-policy']]).toEqual([
    label,
    "default-src 'none'; frame-ancestors 'none'",
  ]);
  expect([label, headers['x-frame-options']]).toEqual([label, 'DENY']);
  expect([label, headers['referrer-policy']]).toEqual([label, 'no-referrer']);
  // Nothing lets a browser on another origin call the API, or names what serves it.
  expect([
    label,
    Object.keys(headers).filter((name) => /^access-control-|^server$|^x-powered-by$/i.test(name)),
  ]).toEqual([label, []]);
}

/**
 * The edge's answers as a shared cache, a browser and a scanner see them: no answer may be
 * stored by a cache on the way (sessions, tokens and masked cards are in them), sniffed into
 * HTML, framed, or called from another origin; the payer pages keep their own stricter headers.
 */
describe('security headers on every answer of the edge', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    edge = await startEdgeTestApp({ controllers: [SealingVault] });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    await edge?.close();
  });

  const api = (path: string) => `/api/rest/version/100/merchant/${merchant.id}${path}`;

  it('sends them on API answers, successes (a session holding a card) and errors alike, without changing the content type', async () => {
    const session = await edge.fastify.inject({
      method: 'POST',
      url: api('/session'),
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({ sourceOfFunds: { provided: { card: { number: TEST_CARD } } } }),
    });
    expect(session.statusCode).toBe(201);
    expect(session.headers['content-type']).toBe('application/json; charset=utf-8');
    expectSecured('session', session.headers);
    const id = session.json().session.id;
    const read = await edge.fastify.inject({
      method: 'GET',
      url: api(`/session/${id}`),
      headers: { authorization: merchant.authorization },
    });
    expect(read.statusCode).toBe(200);
    expectSecured('session read', read.headers);

    const answers = {
      'no credentials': await edge.fastify.inject({
        method: 'GET',
        url: api('/order/o-1'),
        headers: { origin: 'https://evil.example' },
      }),
      'unknown path': await edge.fastify.inject({ method: 'GET', url: '/nope' }),
      'over-long URL': await edge.fastify.inject({ method: 'GET', url: api(`/order/${'o'.repeat(5_000)}`) }),
    };
    for (const [label, response] of Object.entries(answers)) {
      expect([label, response.statusCode >= 400, response.headers['content-type']]).toEqual([
        label,
        true,
        'application/json; charset=utf-8',
      ]);
      expectSecured(label, response.headers);
    }
  });

  it("refuses another origin's preflight: no Access-Control-Allow-* header, so the browser never sends the call", async () => {
    const preflight = await edge.fastify.inject({
      method: 'OPTIONS',
      url: api('/session'),
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.statusCode).toBe(405);
    expectSecured('preflight', preflight.headers);
  });

  it("sends them on payer paths no payer route answers (which could be cached with their token), keeping a payer page's own and the health check's own", async () => {
    const token = 'BP-0123456789abcdef0123456789abcdef';
    for (const [method, url] of [
      ['DELETE', `/bpui/provider_a/out/${token}`],
      ['GET', `/bpui/provider_a/elsewhere/${token}`],
    ] as const) {
      const response = await edge.fastify.inject({ method, url });
      expect([url, response.statusCode >= 400]).toEqual([url, true]);
      expectSecured(`${method} ${url}`, response.headers);
    }
    const page = await edge.fastify.inject({ method: 'GET', url: '/bpui/Provider-A/out/BP-x' });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    const health = await edge.fastify.inject({ method: 'GET', url: '/health/live' });
    expect(health.headers['cache-control']).toBe('no-cache, no-store, must-revalidate');
    expect(health.headers['x-content-type-options']).toBe('nosniff');
    // Without TLS at the edge, HSTS is the TLS terminator's to send.
    expect(health.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('HSTS when the edge serves TLS itself', () => {
  let pki: TestPki;
  let edge: EdgeTestApp;

  beforeAll(async () => {
    pki = createTestPki();
    edge = await startEdgeTestApp({
      env: { TLS_CERT_FILE: pki.server.certFile, TLS_KEY_FILE: pki.server.keyFile },
    });
  });

  afterAll(async () => {
    await edge?.close();
    pki?.remove();
  });

  it('sends Strict-Transport-Security on its answers over HTTPS', async () => {
    const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const request = httpsRequest(
        `${edge.running.url}/api/rest/version/100/merchant/m-1/order/o-1`,
        { agent: false, ca: readFileSync(pki.caFile, 'utf8') },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.headers));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(headers['strict-transport-security']).toBe('max-age=31536000');
    expectSecured('over TLS', headers);
  });
});
