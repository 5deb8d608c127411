import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { JsonObject, SUBJECTS } from '@gateway/contracts';
import { createLogger, standaloneBus } from '@gateway/platform';
import { logLinesInto, TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/**
 * Hostile input at the edge (issue 10, item 5): each kind is answered with the spec's error
 * body and the right status, never a 5xx or a stack trace, and never reaches a service.
 */
const VERIFY = {
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
};
const VERIFY_TEXT = JSON.stringify(VERIFY);

describe('hostile input at the edge', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;
  const received: unknown[] = [];
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = logLinesInto(logLines);
    standaloneBus.register(SUBJECTS.orderTransaction.verify, async (data) => {
      received.push(data);
      return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
    });
    edge = await startEdgeTestApp({
      logger: createLogger({ service: 'test', level: 'info', destination: sink }),
      env: { HTTP_BODY_LIMIT_BYTES: '4096', HTTP_BODY_MAX_DEPTH: '8', HTTP_URL_MAX_LENGTH: '1024', HTTP_REQUEST_TIMEOUT_MS: '1000' },
    });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    standaloneBus.unregister(SUBJECTS.orderTransaction.verify);
    await edge?.close();
  });

  beforeEach(() => {
    received.length = 0;
  });

  const orderUrl = (order = 'o-1', transaction = 't-1') => `/api/rest/version/100/merchant/${merchant.id}/order/${order}/transaction/${transaction}`;

  async function put(payload: string | Buffer, url = orderUrl(), headers: Record<string, string> = {}) {
    const response = await edge.fastify.inject({
      method: 'PUT',
      url,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json', ...headers },
      payload,
    });
    return { status: response.statusCode, text: response.body, body: JSON.parse(response.body) as JsonObject, headers: response.headers };
  }

  /** The spec's error body and nothing else: no stack, no framework fields. */
  function expectRefused(response: { status: number; body: JsonObject; text: string }, status: number, error: Record<string, unknown>) {
    expect({ status: response.status, body: response.body }).toEqual({ status, body: { error: { cause: 'INVALID_REQUEST', ...error }, result: 'ERROR' } });
    expect(response.text).not.toMatch(/\n\s+at |Error|FST_|statusCode/);
    expect(received).toEqual([]);
  }

  it('accepts the untouched request, so every refusal below is the hostile part', async () => {
    expect((await put(VERIFY_TEXT)).status).toBe(201);
    expect(received).toHaveLength(1);
  });

  it('reads the body whatever the Content-Type says, or without one', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const response = await edge.fastify.inject({
        method: 'PUT',
        url: orderUrl(),
        headers: { authorization: merchant.authorization, ...(contentType ? { 'content-type': contentType } : {}) },
        payload: VERIFY_TEXT,
      });
      expect({ contentType, status: response.statusCode }).toEqual({ contentType, status: 201 });
    }
  });

  it('refuses a body in a content coding it does not decode, instead of reading the coded bytes', async () => {
    // A proxy or WAF that decodes the body sees another request than the bytes we would read.
    for (const [coding, payload] of [
      ['gzip', gzipSync(VERIFY_TEXT)],
      ['gzip', Buffer.from(VERIFY_TEXT)],
      ['br', Buffer.from(VERIFY_TEXT)],
      ['x-unknown', Buffer.from(VERIFY_TEXT)],
    ] as const) {
      expectRefused(await put(payload, orderUrl(), { 'content-encoding': coding }), 400, {
        explanation: `The request body is in Content-Encoding '${coding}'; only an uncompressed body (identity) is accepted.`,
      });
    }
    expect((await put(VERIFY_TEXT, orderUrl('o-identity'), { 'content-encoding': 'identity' })).status).toBe(201);
  });

  it('refuses a transfer coding other than chunked, which Node passes on undecoded', async () => {
    const url = new URL(edge.running.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(
          `PUT ${orderUrl('o-te')} HTTP/1.1\r\nHost: x\r\nAuthorization: ${merchant.authorization}\r\nConnection: close\r\n` +
            `Transfer-Encoding: gzip, chunked\r\n\r\n${VERIFY_TEXT.length.toString(16)}\r\n${VERIFY_TEXT}\r\n0\r\n\r\n`,
        ),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: "The request body is in Transfer-Encoding 'gzip'; only chunked is accepted." },
      result: 'ERROR',
    });
    expect(received).toEqual([]);
  });

  it('says what is wrong with a Content-Type header that is not a media type, rather than calling the JSON body not JSON', async () => {
    for (const contentType of ['json', 'application/json, text/plain']) {
      expectRefused(await put(VERIFY_TEXT, orderUrl(), { 'content-type': contentType }), 400, {
        explanation: 'The Content-Type header is not a valid media type; send application/json.',
      });
    }
  });

  describe('bodies', () => {
    it('refuses a JSON text that is not an object', async () => {
      for (const body of ['[]', `[${VERIFY_TEXT}]`, '"VERIFY"', 'null']) {
        expectRefused(await put(body), 400, { explanation: 'The request body must be a JSON object.' });
      }
    });

    it('refuses a body over the size limit', async () => {
      const big = JSON.stringify({ ...VERIFY, correlationId: 'x'.repeat(5_000) });
      expectRefused(await put(big), 400, { explanation: 'The request body is too large.' });
    });

    it('refuses nesting past the limit, however it is made', async () => {
      const deep = `{"apiOperation":"VERIFY","order":${'{"a":'.repeat(8)}1${'}'.repeat(8)}}`;
      expectRefused(await put(deep), 400, { explanation: 'The request body is nested more than 8 levels deep.' });
      expectRefused(await put(`{"a":${'['.repeat(2_000)}`), 400, { explanation: 'The request body is nested more than 8 levels deep.' });
    });

    it('refuses a duplicate key, naming the field, even when both values are valid', async () => {
      const duplicated = VERIFY_TEXT.replace('"currency":"USD"', '"currency":"USD","currency":"EUR"');
      expectRefused(await put(duplicated), 400, {
        explanation: 'Field order.currency is given more than once; each field may appear only once in its object.',
        field: 'order.currency',
        validationType: 'INVALID',
      });
    });

    it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s with its own message, and pollutes nothing', async (key) => {
      const polluting = VERIFY_TEXT.replace('"order":{', `"order":{"${key}":{"isAdmin":true},`);
      expectRefused(await put(polluting), 400, {
        explanation: `Field name '${key}' is not allowed: no field of this API has that name.`,
        field: `order.${key}`,
        validationType: 'UNSUPPORTED',
      });
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it('refuses bytes that are not UTF-8 instead of reading them as U+FFFD', async () => {
      for (const bytes of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
        const payload = Buffer.concat([Buffer.from('{"apiOperation":"VERIFY","correlationId":"'), Buffer.from(bytes), Buffer.from('"}')]);
        expectRefused(await put(payload), 400, { explanation: 'The request body is not valid UTF-8 text.' });
      }
    });

    it('refuses a raw control character in a string, and an escaped one in a field', async () => {
      expectRefused(await put(VERIFY_TEXT.replace('"USD"', '"US\u0001D"')), 400, {
        explanation: expect.stringMatching(/^The request body is not valid JSON: control character in a string \(it must be escaped\) at character \d+\.$/),
      });
      const escaped = await put(JSON.stringify({ ...VERIFY, correlationId: 'a\u0000b' }));
      expectRefused(escaped, 400, {
        explanation: expect.stringContaining('must not contain control characters'),
        field: 'correlationId',
        validationType: 'INVALID',
      });
    });

    it('reports a 30-digit number as sent, not rounded, and never as a double', async () => {
      const response = await put(VERIFY_TEXT.replace('"currency":"USD"', '"currency":"USD","amount":123456789012345678901234567890'));
      expectRefused(response, 400, {
        explanation: 'Value is invalid. order.amount is a JSON number that cannot be read exactly (30 digits); send amounts and identifiers as JSON strings.',
        field: 'order.amount',
        validationType: 'INVALID',
      });
      expect(response.text).not.toMatch(/e\+29|1\.23456789/);
    });

    it('refuses a number where the spec wants a string, naming the field', async () => {
      expectRefused(await put(VERIFY_TEXT.replace('"month":"1"', '"month":1')), 400, {
        explanation: expect.stringMatching(/^Value '1' is invalid\./),
        field: 'sourceOfFunds.provided.card.expiry.month',
        validationType: 'INVALID',
      });
    });

    it('refuses a card number sent as a JSON number without echoing it', async () => {
      const response = await put(VERIFY_TEXT.replace(`"${TEST_CARD}"`, TEST_CARD));
      expectRefused(response, 400, {
        explanation: expect.any(String),
        field: 'sourceOfFunds.provided.card.number',
        validationType: 'INVALID',
      });
      expect(response.text).not.toContain(TEST_CARD);
    });

    it('checks the credentials before looking at a hostile body', async () => {
      const response = await edge.fastify.inject({ method: 'PUT', url: orderUrl(), payload: '{"__proto__":{},"a":1,"a":2' });
      expect(response.statusCode).toBe(401);
    });
  });

  describe('path identifiers', () => {
    it.each([
      ['CR LF (header injection)', () => orderUrl('o%0D%0ASet-Cookie:%20admin=1'), 'orderid'],
      ['a NUL', () => orderUrl('o%00'), 'orderid'],
      ['..%2F (path traversal)', () => orderUrl('..%2F..%2Fadmin'), 'orderid'],
      ['a backslash', () => orderUrl('..%5Cadmin'), 'orderid'],
      ['..%2F in a token id', () => `/api/rest/version/57/merchant/${merchant.id}/token/..%2Fx`, 'tokenid'],
      ['CR LF in a token id', () => `/api/rest/version/57/merchant/${merchant.id}/token/a%0D%0Ab`, 'tokenid'],
      ['CR LF in a merchant id', () => `/api/rest/version/100/merchant/${merchant.id}%0D%0A/order/o-1/transaction/t-1`, 'merchantId'],
    ])('refuses %s with 400 on the identifier', async (_what, url, field) => {
      const response = await put(VERIFY_TEXT, url());
      expectRefused(response, 400, { explanation: expect.stringMatching(/^Value '[^\r\n\u0000]*' is invalid\./), field, validationType: 'INVALID' });
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('takes an id of 40 characters and refuses one of 41', async () => {
      expect((await put(VERIFY_TEXT, orderUrl('o'.repeat(40)))).status).toBe(201);
      received.length = 0;
      expectRefused(await put(VERIFY_TEXT, orderUrl('o'.repeat(41))), 400, { explanation: expect.stringContaining('not 41'), field: 'orderid', validationType: 'INVALID' });
    });

    it("answers another merchant's valid credentials on this merchant's path with the 401 of bad credentials", async () => {
      const other = await edge.createMerchant();
      const response = await put(VERIFY_TEXT, orderUrl(), { authorization: other.authorization });
      expect(response.status).toBe(401);
      expect(received).toEqual([]);
    });

    it("answers another merchant's credentials with the 401 before looking at the path's order id", async () => {
      const other = await edge.createMerchant();
      const response = await put(VERIFY_TEXT, orderUrl('o%0D%0A'), { authorization: other.authorization });
      expect(response.status).toBe(401);
      expect(received).toEqual([]);
    });

    it('checks the path identifiers before the body', async () => {
      expectRefused(await put('{', orderUrl('o%0D%0A')), 400, { explanation: expect.stringMatching(/^Value 'o.*' is invalid\./), field: 'orderid', validationType: 'INVALID' });
    });

    it('refuses a merchant id with an encoded slash', async () => {
      const response = await put(VERIFY_TEXT, `/api/rest/version/100/merchant/${merchant.id}%2F..%2FOTHER/order/o-1/transaction/t-1`);
      expectRefused(response, 400, { explanation: expect.any(String), field: 'merchantId', validationType: 'INVALID' });
    });

    it('answers a URL that is not valid percent-encoding with 400', async () => {
      const response = await put(VERIFY_TEXT, orderUrl('%E0%A4%A'));
      expectRefused(response, 400, { explanation: 'The request path is not valid.' });
    });

    it('refuses an over-long URL before anything else, credentials included', async () => {
      const long = orderUrl('o'.repeat(1_100));
      const response = await edge.fastify.inject({ method: 'PUT', url: long, payload: VERIFY_TEXT });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: { cause: 'INVALID_REQUEST', explanation: 'The request URL is longer than 1024 characters.' },
        result: 'ERROR',
      });
    });

    it('answers an id just under the URL limit with the id rule, not a routing accident', async () => {
      const response = await put(VERIFY_TEXT, orderUrl('o'.repeat(900)));
      expectRefused(response, 400, { explanation: expect.stringContaining('not 900'), field: 'orderid', validationType: 'INVALID' });
    });
  });

  describe('what the HTTP parser refuses, over a real connection', () => {
    function rawExchange(bytes: string): Promise<string> {
      const url = new URL(edge.running.url);
      return new Promise((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
        socket.on('end', () => resolve(answer));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    }

    function errorBodyOf(answer: string) {
      const [head, body] = answer.split('\r\n\r\n');
      return { statusLine: head.split('\r\n')[0], body: JSON.parse(body) };
    }

    it('answers headers over the limit with the spec error body', async () => {
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(`${edge.running.url}${orderUrl()}`, { method: 'PUT', headers: { 'x-padding': 'p'.repeat(20_000) } }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        request.on('error', reject);
        request.end(VERIFY_TEXT);
      });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({
        error: { cause: 'INVALID_REQUEST', explanation: 'The request line and headers are too large.' },
        result: 'ERROR',
      });
    });

    it('answers a bare CR in a header (header injection) with the spec error body', async () => {
      const answer = await rawExchange(`PUT ${orderUrl()} HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\rSet-Cookie: b\r\nContent-Length: 2\r\n\r\n{}`);
      expect(errorBodyOf(answer)).toEqual({
        statusLine: 'HTTP/1.1 400 Bad Request',
        body: { error: { cause: 'INVALID_REQUEST', explanation: 'The request is not valid HTTP.' }, result: 'ERROR' },
      });
    });

    it('refuses a dot segment as an identifier (clients normalise it away; a raw request need not)', async () => {
      for (const segment of ['..', '%2E%2E', '.']) {
        const answer = await rawExchange(
          `PUT ${orderUrl('o-1', segment)} HTTP/1.1\r\nHost: x\r\nAuthorization: ${merchant.authorization}\r\nConnection: close\r\nContent-Length: ${VERIFY_TEXT.length}\r\n\r\n${VERIFY_TEXT}`,
        );
        expect(errorBodyOf(answer)).toEqual({
          statusLine: 'HTTP/1.1 400 Bad Request',
          body: {
            error: { cause: 'INVALID_REQUEST', explanation: expect.stringContaining("nor be '.' or '..'"), field: 'transactionid', validationType: 'INVALID' },
            result: 'ERROR',
          },
        });
      }
      expect(received).toEqual([]);
    });

    it('takes a client that leaves in the middle of its body for what it is, not for the database being unavailable', async () => {
      logLines.length = 0;
      const url = new URL(edge.running.url);
      await new Promise<void>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(
            `PUT ${orderUrl()} HTTP/1.1\r\nHost: x\r\nAuthorization: ${merchant.authorization}\r\nContent-Length: 1000\r\n\r\n{"apiOperation":`,
          );
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(logLines.filter((line) => line.level !== 'info')).toEqual([]);
      expect(logLines.map((line) => line.msg)).not.toContain('database unavailable');
      expect(received).toEqual([]);
    });

    it('does not wait forever for a body that stops coming: 408 in the spec error body, then the connection closes', async () => {
      const started = Date.now();
      // Not authenticated: the body is read before the credentials are checked.
      const answer = await rawExchange(`PUT ${orderUrl()} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"apiOperation":`);
      expect(errorBodyOf(answer)).toEqual({
        statusLine: 'HTTP/1.1 408 Request Timeout',
        body: { error: { cause: 'INVALID_REQUEST', explanation: 'The request was not received in time.' }, result: 'ERROR' },
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(received).toEqual([]);
    }, 10_000);

    it('answers an expectation other than 100-continue with the spec error body, not an empty 417', async () => {
      const answer = await rawExchange(`PUT ${orderUrl()} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}`);
      expect(errorBodyOf(answer)).toEqual({
        statusLine: 'HTTP/1.1 400 Bad Request',
        body: { error: { cause: 'INVALID_REQUEST', explanation: "The Expect header '200-ok' is not supported; only 100-continue is." }, result: 'ERROR' },
      });
      expect(received).toEqual([]);
    });

    it('answers a control character in the request line with the spec error body', async () => {
      const answer = await rawExchange(`PUT /api/rest/version/100/merchant/M/order/o\u0001/transaction/t HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(errorBodyOf(answer).statusLine).toBe('HTTP/1.1 400 Bad Request');
      expect(errorBodyOf(answer).body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
    });
  });
});
