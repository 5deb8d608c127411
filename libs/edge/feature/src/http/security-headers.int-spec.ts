import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
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
 * What refuses a request before any hook runs, over a real connection (inject bypasses Node's
 * parser): a bare CR in a header and headers over the limit (Node's parser, clientErrorHandler),
 * an Expect other than 100-continue (Node's checkExpectation), a URL that is not valid
 * percent-encoding (Fastify's frameworkErrors). Each with what it must explain.
 */
const EARLY_REFUSALS: [string, string, string][] = [
  ['a bare CR in a header', 'GET /nope HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\rSet-Cookie: b\r\n\r\n', 'The request is not valid HTTP.'],
  ['headers over the limit', `GET /nope HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`, 'The request line and headers are too large.'],
  [
    'an unsupported Expect',
    'PUT /api/rest/version/100/merchant/m-1/order/o-1 HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
    "The Expect header '200-ok' is not supported; only 100-continue is.",
  ],
  ['bad percent-encoding', 'GET /api/rest/version/100/merchant/m-1/order/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'The request path is not valid.'],
];

/** Writes `bytes` on a fresh connection and reads the answer until the server closes it. */
function rawExchange(url: string, bytes: string, ca?: string): Promise<{ statusLine: string; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = ca
      ? tlsConnect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => socket.write(bytes))
      : connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      const [head, ...body] = answer.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ statusLine, headers, body: body.join('\r\n\r\n') });
    });
    socket.on('error', (error) => (answer ? undefined : reject(error)));
  });
}

/** The API's error body, with no stack or framework fields. */
function expectApiError(label: string, answer: { statusLine: string; headers: Record<string, string>; body: string }, explanation: string) {
  expect([label, answer.statusLine, answer.headers['content-type']]).toEqual([label, 'HTTP/1.1 400 Bad Request', 'application/json; charset=utf-8']);
  expect([label, JSON.parse(answer.body)]).toEqual([label, { error: { cause: 'INVALID_REQUEST', explanation }, result: 'ERROR' }]);
  expect(answer.body).not.toMatch(/\n\s+at |FST_|statusCode/);
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

  it('sends them on what is refused before any hook runs, in the API\'s error shape', async () => {
    for (const [label, bytes, explanation] of EARLY_REFUSALS) {
      const answer = await rawExchange(edge.running.url, bytes);
      expectApiError(label, answer, explanation);
      expectSecured(label, answer.headers);
      expect([label, answer.headers['strict-transport-security']]).toEqual([label, undefined]);
    }
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

  it('sends it, with the others, on what is refused before any hook runs', async () => {
    for (const [label, bytes, explanation] of EARLY_REFUSALS) {
      const answer = await rawExchange(edge.running.url, bytes, readFileSync(pki.caFile, 'utf8'));
      expectApiError(label, answer, explanation);
      expect([label, answer.headers['strict-transport-security']]).toEqual([label, 'max-age=31536000']);
      expectSecured(label, answer.headers);
    }
  });
});
