import { CallHandler, ExecutionContext } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { GatewayError } from '@gateway/contracts';
import { lastValueFrom, Observable, of, throwError } from 'rxjs';
import { currentRequestContext } from '../logging';
import { Metrics } from '../metrics';
import { PastDeadlineError } from './operation-deadline';
import { RequestContextInterceptor } from './request-context.interceptor';

class PingHandlers {
  @MessagePattern('verification.ping.v1')
  ping(): void {}
}

function rpcContext(data: unknown): ExecutionContext {
  return {
    getType: () => 'rpc',
    getHandler: () => PingHandlers.prototype.ping,
    switchToRpc: () => ({ getData: () => data, getContext: () => undefined }),
  } as unknown as ExecutionContext;
}

const handler = (result: () => Observable<unknown>): CallHandler => ({ handle: result });

async function handledCount(metrics: Metrics, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.messagesHandled.get();
  const count = metric.values.find(
    (v) => v.metricName === 'gateway_message_handler_duration_seconds_count' && Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
  );
  return count?.value ?? 0;
}

describe('RequestContextInterceptor', () => {
  let metrics: Metrics;
  let interceptor: RequestContextInterceptor;

  beforeEach(() => {
    metrics = new Metrics();
    interceptor = new RequestContextInterceptor(metrics);
  });

  it('observes the handling time of a message by its declared subject, as ok when it answers', async () => {
    await lastValueFrom(interceptor.intercept(rpcContext({}), handler(() => of({ ok: true }))));
    expect(await handledCount(metrics, { subject: 'verification.ping.v1', outcome: 'ok' })).toBe(1);
  });

  it('counts a coded error as rejected and anything else as failed', async () => {
    const rejected = interceptor.intercept(rpcContext({}), handler(() => throwError(() => GatewayError.invalidRequest('no'))));
    await expect(lastValueFrom(rejected)).rejects.toBeInstanceOf(GatewayError);
    const failed = interceptor.intercept(rpcContext({}), handler(() => throwError(() => new Error('boom'))));
    await expect(lastValueFrom(failed)).rejects.toThrow('boom');
    expect(await handledCount(metrics, { outcome: 'rejected' })).toBe(1);
    expect(await handledCount(metrics, { outcome: 'failed' })).toBe(1);
    expect(await handledCount(metrics, { outcome: 'ok' })).toBe(0);
  });

  it('counts an operation refused past its deadline by subject, and no other SERVER_BUSY', async () => {
    const late = interceptor.intercept(rpcContext({}), handler(() => throwError(() => new PastDeadlineError(1))));
    await expect(lastValueFrom(late)).rejects.toBeInstanceOf(PastDeadlineError);
    const busy = interceptor.intercept(rpcContext({}), handler(() => throwError(() => GatewayError.serverBusy())));
    await expect(lastValueFrom(busy)).rejects.toBeInstanceOf(GatewayError);
    const counted = (await metrics.messagesPastDeadline.get()).values;
    expect(counted).toEqual([expect.objectContaining({ labels: { subject: 'verification.ping.v1' }, value: 1 })]);
    expect(await handledCount(metrics, { outcome: 'unavailable' })).toBe(2);
  });

  it("runs the handler in the edge's request context, so its log lines carry the request id", async () => {
    const envelope = { requestId: 'req-123', merchant: { id: 'TESTSHOP' } };
    const seen = await lastValueFrom(
      interceptor.intercept(rpcContext({ envelope }), handler(() => of(null).pipe(() => of(currentRequestContext())))),
    );
    expect(seen).toEqual({ requestId: 'req-123', merchantId: 'TESTSHOP' });
  });

  it("carries the request id of a message without an envelope (the payer's pages, the expired payment sweep)", async () => {
    const seen = await lastValueFrom(
      interceptor.intercept(rpcContext({ requestId: 'req-payer-1', provider: 'provider_a', token: 'BP-x' }), handler(() => of(null).pipe(() => of(currentRequestContext())))),
    );
    expect(seen).toEqual({ requestId: 'req-payer-1', merchantId: undefined });
  });

  it("counts a handler passing on SERVER_FAILED (another service's, or its bus's) as failed, not rejected", async () => {
    const passedOn = interceptor.intercept(rpcContext({}), handler(() => throwError(() => GatewayError.serverFailed('SC-1'))));
    await expect(lastValueFrom(passedOn)).rejects.toBeInstanceOf(GatewayError);
    const wire = interceptor.intercept(rpcContext({}), handler(() => throwError(() => GatewayError.serverFailed('SC-2').toWire())));
    await expect(lastValueFrom(wire)).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    expect(await handledCount(metrics, { outcome: 'failed' })).toBe(2);
    expect(await handledCount(metrics, { outcome: 'rejected' })).toBe(0);
  });

  it('counts SERVER_BUSY, and the database being away (which is answered so), as unavailable, not as failed', async () => {
    const busy = interceptor.intercept(rpcContext({}), handler(() => throwError(() => GatewayError.serverBusy())));
    await expect(lastValueFrom(busy)).rejects.toBeInstanceOf(GatewayError);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const database = interceptor.intercept(rpcContext({}), handler(() => throwError(() => refused)));
    await expect(lastValueFrom(database)).rejects.toBe(refused);
    expect(await handledCount(metrics, { outcome: 'unavailable' })).toBe(2);
    expect(await handledCount(metrics, { outcome: 'failed' })).toBe(0);
    expect(await handledCount(metrics, { outcome: 'rejected' })).toBe(0);
  });

  it('leaves HTTP requests alone', async () => {
    const http = { getType: () => 'http' } as unknown as ExecutionContext;
    await lastValueFrom(interceptor.intercept(http, handler(() => of('page'))));
    expect((await metrics.messagesHandled.get()).values).toHaveLength(0);
  });
});
