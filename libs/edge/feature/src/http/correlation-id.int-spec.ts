import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { SUBJECTS } from '@gateway/contracts';
import { createLogger } from '@gateway/platform';
import { logLinesInto, TEST_CARD } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/** A vault whose token creation fails in a way nobody planned for. */
@Controller()
class BrokenVault {
  @MessagePattern(SUBJECTS.tokenVault.createToken)
  create(): never {
    throw new TypeError("Cannot read properties of undefined (reading 'repository')");
  }
}

/**
 * A merchant's `correlationId` is on the edge's log lines of its request, the access log's
 * included, whatever the answer: it is how a merchant's report of a refused or failed call
 * finds our logs (http-conventions.ts, correlationIdOf). So it is read as soon as the body is,
 * before the request's use case can refuse it or fail. (Services' lines carry the request id.)
 */
describe("a merchant's correlationId in the edge's log lines", () => {
  const lines: Record<string, unknown>[] = [];
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    const sink = logLinesInto(lines);
    edge = await startEdgeTestApp({ logger: createLogger({ service: 'test', level: 'info', destination: sink }), controllers: [BrokenVault] });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    await edge?.close();
  });

  async function call(method: 'POST' | 'PUT', path: string, body: object) {
    const response = await edge.fastify.inject({
      method,
      url: `/api/rest/version/100/merchant/${merchant.id}${path}`,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    const requestId = response.headers['x-request-id'];
    return { status: response.statusCode, body: response.json(), accessLine: lines.find((l) => l.msg === 'request' && l.requestId === requestId) };
  }

  /** A body every one of these resources refuses, after reading its correlationId. */
  const refused = (correlationId: string) => ({ correlationId, notAField: 'x' });

  it('is on the access log line of a refused token creation', async () => {
    const { status, accessLine } = await call('POST', '/token', refused('corr-token-post'));
    expect(status).toBe(400);
    expect(accessLine).toMatchObject({ correlationId: 'corr-token-post', status: 400 });
  });

  it('is on the access log line of a refused session creation', async () => {
    const { status, accessLine } = await call('POST', '/session', refused('corr-session-post'));
    expect(status).toBe(400);
    expect(accessLine).toMatchObject({ correlationId: 'corr-session-post', status: 400 });
  });

  it('is on the access log line of a refused session update', async () => {
    const created = await call('POST', '/session', {});
    expect(created.status).toBe(201);
    const { status, accessLine } = await call('PUT', `/session/${created.body.session.id}`, refused('corr-session-put'));
    expect(status).toBe(400);
    expect(accessLine).toMatchObject({ correlationId: 'corr-session-put', status: 400 });
  });

  it('is on the access log line of a refused token save', async () => {
    const { status, accessLine } = await call('PUT', '/token/9999999999999999', refused('corr-token-put'));
    expect(status).toBe(400);
    expect(accessLine).toMatchObject({ correlationId: 'corr-token-put', status: 400 });
  });

  it('is on the access log line of a token creation the vault failed', async () => {
    const { status, accessLine } = await call('POST', '/token', {
      correlationId: 'corr-token-fault',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
    });
    expect(status).toBe(500);
    expect(accessLine).toMatchObject({ correlationId: 'corr-token-fault', status: 500 });
  });
});
