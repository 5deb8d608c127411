import { Writable } from 'node:stream';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SUBJECTS } from '@gateway/contracts';
import { MerchantRepository } from '@gateway/edge/data-access';
import { ManageMerchants } from '@gateway/edge/domain';
import {
  bootstrapApp,
  createLogger,
  createMessageServer,
  Metrics,
  PlatformModule,
  RunningApp,
} from '@gateway/platform';
import { loadConfig } from '@gateway/platform';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { configureEdgeHttp, EdgeConfig, EdgeModule } from './index';

/** A service whose handler fails in a way nobody planned for. */
@Controller()
class BrokenVerificationController {
  @MessagePattern(SUBJECTS.verification.verify)
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
  let running: RunningApp;
  let authorization: string;
  let merchantId: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger({ service: 'test', level: 'info', destination: sink });
    const metrics = new Metrics();
    const config = loadConfig(EdgeConfig, {
      GATEWAY_PROFILE: 'standalone',
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      API_PASSWORD_PEPPER: 'a-test-pepper-of-at-least-thirty-two-chars',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      MERCHANT_CACHE_TTL_MS: '0',
    });
    const messaging = { profile: 'standalone' as const, servers: [], subjectPrefix: '', requestTimeoutMs: 2_000, serviceName: 'test' };
    @Module({
      imports: [
        PlatformModule.forRoot({ logger, metrics, messaging, healthCheckTimeoutMs: 500 }),
        EdgeModule.forRoot(config),
      ],
      controllers: [BrokenVerificationController],
    })
    class TestAppModule {}
    running = await bootstrapApp({
      module: TestAppModule,
      logger,
      host: '127.0.0.1',
      port: 0,
      shutdownGraceMs: 5_000,
      messageServer: createMessageServer(messaging, 1_000),
      configureHttp: (fastify) => configureEdgeHttp(fastify, logger, metrics),
    });
    const dataSource = running.app.get<DataSource>(getDataSourceToken('edge') as string);
    const issued = await new ManageMerchants(MerchantRepository.over(dataSource), config.API_PASSWORD_PEPPER).create({
      name: 'Faults',
      mode: 'TEST',
    });
    merchantId = issued.merchant.id;
    authorization = `Basic ${Buffer.from(`merchant.${merchantId}:${issued.password}`).toString('base64')}`;
  });

  afterAll(async () => {
    await running?.shutdown('test done');
  });

  it('is answered 500 SERVER_FAILED with only a support code, which the log line with the request id carries', async () => {
    const fastify = (running.app as NestFastifyApplication).getHttpAdapter().getInstance();
    const response = await fastify.inject({
      method: 'PUT',
      url: `/api/rest/version/100/merchant/${merchantId}/order/o-1/transaction/t-1`,
      headers: { authorization, 'content-type': 'application/json' },
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
    expect(faultLine).toMatchObject({ level: 'error', requestId, merchantId });
    expect(JSON.stringify(faultLine)).toContain('TypeError');
    expect(lines.find((l) => l.msg === 'request' && l.requestId === requestId)).toMatchObject({ correlationId: 'merchant-corr-42', status: 500 });
  });
});
