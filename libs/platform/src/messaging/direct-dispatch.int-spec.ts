import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { GatewayError } from '@gateway/contracts';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { of } from 'rxjs';
import { AllExceptionsFilter } from '../errors';
import { createLogger, currentRequestContext } from '../logging';
import { Metrics } from '../metrics';
import { testServers } from '../test-support';
import { APP_LOGGER } from '../tokens';
import { dispatchAppDirectly } from './direct-handlers';
import { GatewayNatsServer } from './gateway-nats.server';
import { PastDeadlineError } from './operation-deadline';
import { RequestContextInterceptor } from './request-context.interceptor';

@Controller()
class ProbeController {
  @MessagePattern('probe.echo.v1')
  echo(@Payload() data: { envelope?: { requestId?: string } }) {
    return Promise.resolve({ echoed: data, requestId: currentRequestContext()?.requestId ?? null });
  }

  @MessagePattern('probe.nothing.v1')
  nothing(): void {}

  @MessagePattern('probe.refuse.v1')
  refuse() {
    throw GatewayError.invalidField('order.amount', 'INVALID', 'Not an amount.');
  }

  @MessagePattern('probe.fail.v1')
  async fail() {
    throw new Error('a bug');
  }

  @MessagePattern('probe.late.v1')
  late() {
    return Promise.reject(new PastDeadlineError(Date.now()));
  }

  /** No gateway handler does this: it tells the two paths apart (Nest sends the stream's values). */
  @MessagePattern('probe.stream.v1')
  stream() {
    return Promise.resolve(of({ part: 1 }));
  }
}

/** One service, as PlatformModule runs one: the probe controller under the platform's interceptor and filter. */
async function startService(prefix: string, direct: boolean) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'probe',
    level: 'info',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(
          ...String(chunk)
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
        done();
      },
    }),
  });
  const metrics = new Metrics();
  @Module({
    controllers: [ProbeController],
    providers: [
      { provide: APP_LOGGER, useValue: logger },
      { provide: Metrics, useValue: metrics },
      { provide: APP_FILTER, useClass: AllExceptionsFilter },
      { provide: APP_INTERCEPTOR, useClass: RequestContextInterceptor },
    ],
  })
  class ProbeModule {}
  const server = new GatewayNatsServer({
    servers: [testServers.natsUrl],
    name: 'probe',
    queue: 'probe',
    subjectPrefix: prefix,
    drainTimeoutMs: 1_000,
    maxInFlight: 2,
  });
  const app: INestMicroservice = await NestFactory.createMicroservice(ProbeModule, {
    strategy: server,
    logger: false,
  });
  await app.init();
  if (direct) {
    dispatchAppDirectly(app, server);
  }
  await app.listen();
  return { app, lines, metrics };
}

describe('GatewayNatsServer direct dispatch', () => {
  const nestPrefix = `t${randomBytes(6).toString('hex')}.`;
  const directPrefix = `t${randomBytes(6).toString('hex')}.`;
  let nest: Awaited<ReturnType<typeof startService>>;
  let direct: Awaited<ReturnType<typeof startService>>;
  let nats: NatsConnection;

  beforeAll(async () => {
    nest = await startService(nestPrefix, false);
    direct = await startService(directPrefix, true);
    nats = await connect({ servers: testServers.natsUrl });
  });

  afterAll(async () => {
    await nats?.close();
    await nest?.app.close();
    await direct?.app.close();
  });

  /** The raw reply of each path to the same packet. */
  async function replies(
    subject: string,
    packet: unknown,
  ): Promise<[Record<string, unknown>, Record<string, unknown>]> {
    const ask = async (prefix: string) =>
      (await nats.request(`${prefix}${subject}`, JSON.stringify(packet), { timeout: 5_000 })).string();
    const [viaNest, viaDirect] = await Promise.all([ask(nestPrefix), ask(directPrefix)]);
    return [JSON.parse(viaNest), JSON.parse(viaDirect)];
  }

  const envelope = { requestId: 'req-1', merchant: { id: 'M1' } };

  it("answers a value in Nest's reply packet, the handler running in the request's context", async () => {
    const data = { envelope, n: 1 };
    const [viaNest, viaDirect] = await replies('probe.echo.v1', { pattern: 'probe.echo.v1', data, id: '7' });

    expect(viaDirect).toEqual({ response: { echoed: data, requestId: 'req-1' }, isDisposed: true, id: '7' });
    expect(viaDirect).toEqual(viaNest);
    expect(Object.keys(viaDirect)).toEqual(Object.keys(viaNest));
  });

  it('answers a handler without a result as Nest does', async () => {
    const [viaNest, viaDirect] = await replies('probe.nothing.v1', {
      pattern: 'probe.nothing.v1',
      data: {},
      id: '8',
    });

    expect(viaDirect).toEqual({ isDisposed: true, id: '8' });
    expect(viaDirect).toEqual(viaNest);
  });

  it('answers a coded error as it crosses the wire', async () => {
    const [viaNest, viaDirect] = await replies('probe.refuse.v1', {
      pattern: 'probe.refuse.v1',
      data: { envelope },
      id: '9',
    });

    expect(viaDirect).toEqual({
      err: GatewayError.invalidField('order.amount', 'INVALID', 'Not an amount.').toWire(),
      isDisposed: true,
      id: '9',
    });
    expect(viaDirect).toEqual(viaNest);
  });

  it('answers an unexpected error SERVER_FAILED with a support code, logged once under the request id', async () => {
    const [viaNest, viaDirect] = await replies('probe.fail.v1', {
      pattern: 'probe.fail.v1',
      data: { envelope },
      id: '10',
    });

    const supportCodeOf = (reply: Record<string, unknown>) =>
      (reply.err as { supportCode?: string }).supportCode;
    expect(viaDirect).toEqual({
      err: { ...GatewayError.serverFailed(supportCodeOf(viaDirect)).toWire() },
      isDisposed: true,
      id: '10',
    });
    expect({ ...viaDirect, err: { ...(viaDirect.err as object), supportCode: 'x' } }).toEqual({
      ...viaNest,
      err: { ...(viaNest.err as object), supportCode: 'x' },
    });
    for (const [service, reply] of [
      [nest, viaNest],
      [direct, viaDirect],
    ] as const) {
      const logged = service.lines.filter((line) => line.msg === 'request failed');
      expect(logged).toEqual([
        expect.objectContaining({ requestId: 'req-1', merchantId: 'M1', supportCode: supportCodeOf(reply) }),
      ]);
    }
  });

  it("observes each handler's outcome and the operations past their deadline by subject, as the interceptor does", async () => {
    await replies('probe.late.v1', { pattern: 'probe.late.v1', data: { envelope }, id: '11' });

    for (const { metrics } of [nest, direct]) {
      const handled = (await metrics.messagesHandled.get()).values
        .filter((v) => v.metricName === 'gateway_message_handler_duration_seconds_count')
        .map((v) => ({ ...v.labels, count: v.value }));
      expect(handled).toEqual(
        expect.arrayContaining([
          { subject: 'probe.echo.v1', outcome: 'ok', count: 1 },
          { subject: 'probe.refuse.v1', outcome: 'rejected', count: 1 },
          { subject: 'probe.fail.v1', outcome: 'failed', count: 1 },
          { subject: 'probe.late.v1', outcome: 'unavailable', count: 1 },
        ]),
      );
      expect((await metrics.messagesPastDeadline.get()).values).toEqual([
        { labels: { subject: 'probe.late.v1' }, value: 1 },
      ]);
    }
  });

  it("calls its subjects' handlers itself: a promise of an Observable is refused there (SERVER_FAILED), where Nest sends the stream's values", async () => {
    const [viaNest, viaDirect] = await replies('probe.stream.v1', { pattern: 'probe.stream.v1', data: { envelope }, id: '12' });

    expect(viaNest).toMatchObject({ response: { part: 1 }, id: '12' });
    expect(viaDirect).toEqual({ err: expect.objectContaining({ code: 'SERVER_FAILED' }), isDisposed: true, id: '12' });
  });

  it('frees its in-flight place once the reply is published (the server caps them at 2 here)', async () => {
    for (let n = 0; n < 5; n++) {
      const [viaNest, viaDirect] = await replies('probe.echo.v1', { pattern: 'probe.echo.v1', data: { n }, id: String(n) });
      expect(viaDirect).toEqual({ response: { echoed: { n }, requestId: null }, isDisposed: true, id: String(n) });
      expect(viaDirect).toEqual(viaNest);
    }
  });

  it('leaves to Nest what is not a request packet of its client, and Nest answers it as before', async () => {
    // A bare payload (no pattern, data or id) is an event to Nest: handled, not answered.
    const bare = nats.request(`${directPrefix}probe.echo.v1`, JSON.stringify({ envelope }), { timeout: 500 });
    await expect(bare).rejects.toThrow();
    const notJson = nats.request(`${directPrefix}probe.echo.v1`, 'not json', { timeout: 500 });
    await expect(notJson).rejects.toThrow();
    // An id with neither pattern nor data is no packet of its client either: Nest reads the whole
    // as a bare payload, an event, on both paths alike.
    for (const prefix of [nestPrefix, directPrefix]) {
      const idOnly = nats.request(`${prefix}probe.echo.v1`, JSON.stringify({ id: 'x', envelope }), { timeout: 500 });
      await expect(idOnly).rejects.toThrow();
    }
    // None of them holds a place under the in-flight cap (2 here): a request is answered after them.
    const [viaNest, viaDirect] = await replies('probe.echo.v1', { pattern: 'probe.echo.v1', data: { n: 1 }, id: '1' });
    expect(viaDirect).toEqual({ response: { echoed: { n: 1 }, requestId: null }, isDisposed: true, id: '1' });
    expect(viaDirect).toEqual(viaNest);
  });
});
