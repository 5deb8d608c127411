/**
 * CPU time of stages of an api-edge request, each in isolation on one core (process.cpuUsage,
 * so other work on the host moves the figures less than wall time would):
 * - Nest's HTTP pipeline on Fastify (a guard, the route's param decorators, the handler) with and
 *   without one global interceptor that acts on message handlers only, as
 *   RequestContextInterceptor does, through `inject` (no sockets);
 * - the order lock's owner: randomBytes(16) as hex against randomUUID;
 * - the response: canonicalJson (keys sorted at every level, as the API answers) against a plain
 *   JSON.stringify, on a VERIFY's response body;
 * - the access log line: the scrub of its object.
 *   node -r ./tools/scripts/register-ts.cjs tools/bench/micro/edge-request-stages.ts
 */
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { CallHandler, CanActivate, Controller, ExecutionContext, Header, HttpCode, Injectable, Module, NestInterceptor, Param, Put, Req, UseGuards } from '@nestjs/common';
import { APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Observable } from 'rxjs';
import { canonicalJson, scrub } from '@gateway/platform';

@Injectable()
class AllowGuard implements CanActivate {
  async canActivate(): Promise<boolean> {
    return true;
  }
}

@Injectable()
class MessageHandlersOnly implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

@Controller('api/rest/version/:version/merchant/:merchantId/order/:orderId/transaction/:transactionId')
@UseGuards(AllowGuard)
class OperationController {
  @Put()
  @HttpCode(201)
  @Header('Content-Type', 'application/json; charset=utf-8')
  async put(
    @Req() _request: unknown,
    @Param('version') version: string,
    @Param('merchantId') merchantId: string,
    @Param('orderId') orderId: string,
    @Param('transactionId') transactionId: string,
  ): Promise<string> {
    await Promise.resolve();
    return JSON.stringify({ version, merchantId, orderId, transactionId });
  }
}

async function nestApp(withInterceptor: boolean): Promise<NestFastifyApplication> {
  @Module({
    controllers: [OperationController],
    providers: [AllowGuard, ...(withInterceptor ? [{ provide: APP_INTERCEPTOR, useClass: MessageHandlersOnly }] : [])],
  })
  class ProbeModule {}
  const app = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter(), { logger: false, bodyParser: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

/** Microseconds of this process's CPU per call. */
async function cpuPerCall(calls: number, call: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < calls / 5; i++) await call(i);
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call(i);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

function requestThrough(app: NestFastifyApplication): (i: number) => Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  return async (i) => {
    const response = await fastify.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/M1/order/o-${i}/transaction/t-1`, payload: '{}', headers: { 'content-type': 'application/json' } });
    if (response.statusCode !== 201) throw new Error(`answered ${response.statusCode}`);
  };
}

const VERIFY_RESPONSE = {
  result: 'SUCCESS',
  order: { id: 'o-1', amount: '0.00', currency: 'USD', status: 'VERIFIED', creationTime: '2026-11-22T00:00:00.000Z', totalAuthorizedAmount: '0.00', totalCapturedAmount: '0.00', totalRefundedAmount: '0.00' },
  response: { gatewayCode: 'APPROVED', gatewayRecommendation: 'NO_ACTION', acquirerCode: '00', cardSecurityCode: { gatewayCode: 'MATCH', acquirerCode: 'M' } },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', fundingMethod: 'CREDIT' } } },
  transaction: { id: 't-1', type: 'VERIFICATION', amount: '0.00', currency: 'USD', acquirer: { id: 'TEST', merchantId: 'BENCH1', transactionId: '123456', batch: 1 }, receipt: '123456789012' },
  gatewayEntryPoint: 'WEB_SERVICES_API',
  timeOfLastUpdate: '2026-11-22T00:00:00.000Z',
  timeOfRecord: '2026-11-22T00:00:00.000Z',
  merchant: 'BENCH1',
  version: '100',
};
const ACCESS_LINE = {
  requestId: '6f1c4a5e-2b7d-4e1a-9c3f-0a1b2c3d4e5f',
  merchantId: 'BENCH1',
  method: 'PUT',
  route: '/api/rest/version/:version/merchant/:merchantId/order/:orderId/transaction/:transactionId',
  operation: 'VERIFY',
  status: 201,
  result: 'SUCCESS',
  ms: 12.3,
};

void (async () => {
  const withInterceptor = await nestApp(true);
  const without = await nestApp(false);
  for (let round = 0; round < 5; round++) {
    const a = await cpuPerCall(5_000, requestThrough(withInterceptor));
    const b = await cpuPerCall(5_000, requestThrough(without));
    console.log(`Nest HTTP request: with a global interceptor ${a.toFixed(1)} µs, without ${b.toFixed(1)} µs`);
  }
  await Promise.all([withInterceptor.close(), without.close()]);
  for (let round = 0; round < 3; round++) {
    const hex = await cpuPerCall(100_000, () => randomBytes(16).toString('hex'));
    const uuid = await cpuPerCall(100_000, () => randomUUID());
    const sorted = await cpuPerCall(20_000, () => canonicalJson(VERIFY_RESPONSE));
    const plain = await cpuPerCall(20_000, () => JSON.stringify(VERIFY_RESPONSE));
    const scrubbed = await cpuPerCall(50_000, () => scrub(ACCESS_LINE));
    console.log(
      `lock owner: randomBytes(16) hex ${hex.toFixed(2)} µs, randomUUID ${uuid.toFixed(2)} µs; ` +
        `response: canonicalJson ${sorted.toFixed(1)} µs, JSON.stringify ${plain.toFixed(1)} µs; access line scrub ${scrubbed.toFixed(1)} µs`,
    );
  }
})();
