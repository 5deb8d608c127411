import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { SUBJECTS } from '@gateway/contracts';
import { createLogger } from '@gateway/platform';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from './testing/edge-test-app';
import { logLinesInto } from '@gateway/testing';
/** A service whose handler fails in a way nobody planned for. */
@Controller()
class BrokenVerificationController {
  @MessagePattern(SUBJECTS.orderTransaction.verify)
  verify(): never {
    throw new TypeError("Cannot read properties of undefined (reading 'acquirer')");
  }
}

/**
 * An unexpected fault in a service reaches the merchant as 500 SERVER_FAILED with a support
 * code and nothing else, and the same support code is in the log line that carries the
 * request's id, so support can find what happened from what the merchant reports.
 */
describe('an unexpected fault in a service', () => {
  const lines: Record<string, unknown>[] = [];
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    const sink = logLinesInto(lines);
    edge = await startEdgeTestApp({
      logger: createLogger({ service: 'test', level: 'info', destination: sink }),
      controllers: [BrokenVerificationController],
    });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    await edge?.close();
  });

  it('is answered 500 SERVER_FAILED with only a support code, which the log line with the request id carries', async () => {
    const response = await edge.fastify.inject({
      method: 'PUT',
      url: `/api/rest/version/100/merchant/${merchant.id}/order/o-1/transaction/t-1`,
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({
        apiOperation: 'VERIFY',
        correlationId: 'merchant-corr-42',
        order: { currency: 'USD' },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } },
      }),
    });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expect(body).toEqual({ error: { cause: 'SERVER_FAILED', supportCode: expect.stringMatching(/^[0-9A-F]{12}$/) }, result: 'ERROR' });
    expect(response.body).not.toMatch(/acquirer|TypeError|at /);

    const requestId = response.headers['x-request-id'];
    const faultLine = lines.find((l) => l.supportCode === body.error.supportCode);
    expect(faultLine).toMatchObject({ level: 'error', requestId, merchantId: merchant.id });
    expect(JSON.stringify(faultLine)).toContain('TypeError');
    expect(lines.find((l) => l.msg === 'request' && l.requestId === requestId)).toMatchObject({ correlationId: 'merchant-corr-42', status: 500 });
  });
});
